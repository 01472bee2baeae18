"""The views' dump as built (``schemas.AsBuilt``) gives what marshmallow's own dump gives.

Matches of every variant are played with random legal moves; at every step each viewer's
view (the public, every seat, the organiser) as the use case returns it is dumped both
ways and compared as the JSON the client would receive (types included: ``1`` is not
``1.0``). Clocks, a forfeit's ``ended`` and the lobby's listing are covered too.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import Schema

from service.api.schemas import LobbyMatchSchema, MatchViewSchema
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer

NAMES = ["Ann", "Bob", "Cy", "Di"]


def as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def assert_dumped_alike(schema: Schema, view: dict[str, Any]) -> None:
    assert as_json(schema.dump(view)) == as_json(Schema.dump(schema, view))


def new_match(client: FlaskClient, variant: str, players: int, **extra: Any) -> dict[str, Any]:
    body = {"variant": variant, "players": [{"name": n} for n in NAMES[:players]],
            "options": {"first_dealer": 0}, "seed": f"dumps-{variant}", **extra}
    response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


def views(app: Flask, match: dict[str, Any]) -> list[dict[str, Any]]:
    """The raw views of every viewer, as the routes hand them to the schema."""
    queries = app.extensions["rummy"].queries
    tokens = [None, ADMIN] + [seat["token"] for seat in match["seats"]]
    return [queries.view(match["id"], token) for token in tokens]


def play(app: Flask, client: FlaskClient, match: dict[str, Any], moves: int,
         rng: random.Random) -> None:
    schema = MatchViewSchema()
    for _ in range(moves):
        seen = views(app, match)
        for view in seen:
            assert_dumped_alike(schema, view)
        full = seen[1]
        if full["phase"] in ("complete", "aborted") or full["turn"] is None:
            return
        seat = full["turn"]
        legal = seen[2 + seat]["legal_actions"]
        enders = [a for a in legal if a["type"] in ("knock", "big_gin", "lay_down")]
        action = rng.choice(enders if enders and rng.random() < 0.5 else legal)
        response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                               headers=bearer(match["seats"][seat]["token"]))
        assert response.status_code == 200, response.json
        assert_dumped_alike(schema, response.json)


@pytest.mark.parametrize("variant, players", [("gin", 2), ("gem", 3), ("rummy", 3),
                                              ("rami", 2)])
def test_every_viewers_view_dumps_as_marshmallow_would(app, client, variant, players):
    rng = random.Random(variant)
    play(app, client, new_match(client, variant, players), 120, rng)


def test_a_clocked_and_a_forfeited_match_dump_alike(app, client):
    match = new_match(client, "gin", 2, clock={"turn_seconds": 10, "bank_seconds": 30})
    play(app, client, match, 10, random.Random(3))
    response = client.post(f"/v1/matches/{match['id']}/forfeit",
                           json={"seat": 1, "reason": "no-show"}, headers=ADMIN_AUTH)
    assert response.status_code == 200, response.json
    for view in views(app, match):
        assert view.get("ended") is not None
        assert_dumped_alike(MatchViewSchema(), view)


def test_the_lobbys_matches_dump_alike(app, client):
    for variant in ("gin", "gem", "rummy"):
        response = client.post("/v1/matches", json={
            "variant": variant, "players": [{"name": "Ann"}, {"open": True}]})
        assert response.status_code == 201, response.json
    listed = app.extensions["rummy"].seats.listing(None, 20, None)["matches"]
    assert len(listed) == 3
    schema = LobbyMatchSchema()
    for view in listed:
        assert_dumped_alike(schema, view)
