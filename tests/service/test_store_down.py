"""With Redis unreachable the API answers 503 with a stable code, never a 500."""

from __future__ import annotations

import logging

import fakeredis
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.api.app import create_app
from service.config import RateLimits, Settings


def test_requests_while_redis_is_down_are_503():
    dead = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2,
                       retry=Retry(NoBackoff(), 0))
    app = create_app(Settings(redis_url="redis://127.0.0.1:1"), client=dead)
    client = app.test_client()
    body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}]}
    for response in (client.post("/v1/matches", json=body), client.get("/v1/matches/abc")):
        assert response.status_code == 503
        assert response.json["code"] == "store_unavailable"
    assert client.get("/healthz").status_code == 503


def test_the_limiters_outage_is_one_line_not_a_traceback_per_request(caplog):
    """Finding 8: while Redis was down the rate limiter logged a full traceback for every
    request (the answers were right: 503)."""
    dead = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2,
                       retry=Retry(NoBackoff(), 0))
    settings = Settings(redis_url="redis://127.0.0.1:1", rate_limits=RateLimits())
    client = create_app(settings, client=dead).test_client()
    body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}]}
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            assert client.post("/v1/matches", json=body).status_code == 503
            assert client.get("/v1/matches/abc", headers={"Authorization": "Bearer x"}
                              ).status_code == 503
    limiter_lines = [r for r in caplog.records if r.name in ("flask-limiter", "rummy.limits")]
    assert len(limiter_lines) == 1, [r.getMessage() for r in limiter_lines]
    assert "rate-limit storage unavailable" in limiter_lines[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize("who", ["the public", "a seat", "the admin"])
def test_a_match_held_in_memory_is_503_when_redis_goes_away(who):
    """A process that holds a match folded reads only its newer events and presence (with
    the meta, for a seat): with Redis gone those reads are a 503 too, never a 500."""
    server = fakeredis.FakeServer()
    app = create_app(Settings(redis_url="redis://unused", admin_token="adm"),
                     client=fakeredis.FakeRedis(server=server), jobs_inline=True)
    client = app.test_client()
    match = client.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "A"}, {"name": "B"}]}).json
    token = {"the public": None, "a seat": match["seats"][0]["token"], "the admin": "adm"}[who]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    url = f"/v1/matches/{match['id']}"
    assert client.get(url, headers=headers).status_code == 200
    server.connected = False
    answer = client.get(url, headers=headers)
    assert (answer.status_code, answer.json["code"]) == (503, "store_unavailable")
