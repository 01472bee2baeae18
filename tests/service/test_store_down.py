"""With Redis unreachable the API answers 503 with a stable code, never a 500."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.api.app import create_app
from service.config import Settings


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
