"""Pages on other origins may use the API: preflights pass, responses carry the CORS
headers browsers check (errors too), and only the configured origins are allowed."""

from __future__ import annotations

import pytest

from service.api.app import create_app
from service.config import Settings
from tests.service.conftest import ADMIN, bearer, create

PAGE = "https://table.example"


def preflight(client, path: str, method: str = "POST",
              headers: str = "authorization, content-type, idempotency-key, if-match"):
    return client.options(path, headers={"Origin": PAGE,
                                         "Access-Control-Request-Method": method,
                                         "Access-Control-Request-Headers": headers})


def test_a_preflight_allows_the_methods_and_headers_clients_send(client):
    match = create(client)
    answer = preflight(client, f"/v1/matches/{match['id']}/actions")
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == PAGE  # echoed, with Vary: Origin
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    allowed = answer.headers["Access-Control-Allow-Headers"].lower()
    for header in ("authorization", "content-type", "idempotency-key", "if-match"):
        assert header in allowed
    assert "Access-Control-Allow-Credentials" not in answer.headers


def test_responses_expose_the_headers_clients_read_errors_included(client):
    match = create(client)
    seen = client.get(f"/v1/matches/{match['id']}", headers={"Origin": PAGE})
    assert seen.headers["Access-Control-Allow-Origin"] == PAGE
    exposed = seen.headers["Access-Control-Expose-Headers"]
    for header in ("ETag", "Location", "Retry-After", "RateLimit-Remaining"):
        assert header in exposed
    refused = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                          headers={"Origin": PAGE, **bearer("wrong")})
    assert refused.status_code == 401
    assert refused.headers["Access-Control-Allow-Origin"] == PAGE


@pytest.fixture
def strict(redis_client, key_prefix):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        cors_origins=(PAGE, "http://localhost:5173"))
    return create_app(settings, client=redis_client, jobs_inline=True).test_client()


def test_configured_origins_only(strict):
    allowed = strict.get("/v1/variants", headers={"Origin": PAGE})
    assert allowed.headers["Access-Control-Allow-Origin"] == PAGE
    other = strict.get("/v1/variants", headers={"Origin": "https://evil.example"})
    assert other.status_code == 200  # the request itself is not refused: the browser is
    assert "Access-Control-Allow-Origin" not in other.headers


def test_the_origins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("RUMMY_CORS_ORIGINS", " https://a.example/, http://b.example:8080 ")
    assert Settings.from_env().cors_origins == ("https://a.example", "http://b.example:8080")
    monkeypatch.delenv("RUMMY_CORS_ORIGINS")
    assert Settings.from_env().cors_origins == ("*",)
