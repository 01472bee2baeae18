"""A Flask test client on each Redis backend, jobs run in-process."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.bootstrap import bootstrap
from service.config import Settings

ADMIN = "admin-secret"


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str, serving: Callable[..., Flask]) -> Flask:
    """The app as ``create_app(settings, client, jobs_inline=True)`` builds it, admin token
    ``ADMIN``, a keep-alive tick every 200 ms (the shared app with this test's wiring)."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=200)
    return serving(settings, redis_client, jobs_inline=True)


@pytest.fixture
def client(app) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def wiring(redis_client: redis.Redis, key_prefix: str):
    """The use cases without HTTP (the composition root, in-process), admin token ``ADMIN``,
    a keep-alive tick every 100 ms."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=100)
    wired = bootstrap(settings, redis_client, in_process=True)
    yield wired
    wired.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


ADMIN_AUTH = bearer(ADMIN)


def create(client: FlaskClient, deck: list[str] | None = None, players: int = 2,
           **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": "gin",
                            "players": [{"name": n} for n in ["Ann", "Bob", "Cy", "Di"][:players]],
                            "options": {"first_dealer": 0, **options}}
    if deck is not None:
        body["deck"] = deck
    response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH if deck else {})
    assert response.status_code == 201, response.json
    return response.json


def play_to_the_end(client: FlaskClient, match: Mapping[str, Any],
                    choose: Callable[[dict[str, Any]], dict[str, Any]], moves: int = 3000) -> None:
    """Play ``match`` to its end through the app's own use cases, the seat to move taking
    ``choose(its view)`` each time. For tests of what a finished match gives (audits,
    duplicate deals), which need its moves made, not sent over HTTP: the HTTP path of
    every action is tested on its own (test_matches_api.py, test_contract.py)."""
    wiring = client.application.extensions["rummy"]
    tokens = [seat["token"] for seat in match["seats"]]
    for _ in range(moves):
        public = wiring.queries.view(match["id"], None)
        if public["phase"] == "complete":
            return
        seat = public["turn"]
        wiring.play.act(match["id"], tokens[seat],
                        choose(wiring.queries.view(match["id"], tokens[seat])))
    raise AssertionError("the match did not end")
