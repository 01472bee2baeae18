"""Bots in embedded mode as ``make serve`` runs it: no worker and no inline payments, one
timer thread pays every bot's move after the request that left it the turn has answered,
and at its think time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.config import Settings
from tests.service.conftest import ADMIN, bearer
from tests.service.test_bots_api import SHORT

WAIT_S = 60.0
"""Bounded waits, generous: this machine has two cores and other work on them."""


@pytest.fixture
def served(serving: Callable[..., Flask]) -> FlaskClient:
    """The app in embedded mode, as ``make serve`` builds it."""
    return serving(Settings(redis_url=None, admin_token=ADMIN, key_prefix="embedded"),
                   fakeredis.FakeRedis(server=fakeredis.FakeServer())).test_client()


def poll(client: FlaskClient, match_id: str, done: Any, timeout: float = WAIT_S
         ) -> tuple[dict[str, Any], float]:
    """The public view once ``done(view)`` holds, and how long it took (seconds)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        view = client.get(f"/v1/matches/{match_id}").json
        if done(view):
            return view, time.monotonic() - started
        time.sleep(0.02)
    raise AssertionError(f"not done after {timeout}s: {view['phase']} v{view['version']}")


def create(client: FlaskClient, variant: str, players: list[dict[str, Any]]
           ) -> dict[str, Any]:
    answer = client.post("/v1/matches", json={"variant": variant, "players": players,
                                              "options": {**SHORT[variant],
                                                          "first_dealer": 0}})
    assert answer.status_code == 201, answer.json
    return answer.json


@pytest.mark.parametrize("variant", ["rummy", "rami"])
def test_an_all_bot_match_completes_on_the_timer_thread(served, variant):
    match = create(served, variant, [{"bot": "random"}, {"bot": "basic"}, {"bot": "expert"}])
    assert match["version"] < 10  # its creation answered before the bots played
    poll(served, match["id"], lambda v: v["phase"] == "complete")
    events = served.get(f"/v1/matches/{match['id']}/events").json["events"]
    moves = [e["command"] for e in events if e["command"] and "action" in e["command"]]
    assert moves and all(move.get("bot") for move in moves)  # every seat's move, a bot's


def test_an_all_bot_gin_match_of_four_completes_on_the_timer_thread(served):
    match = create(served, "gin", [{"bot": level} for level in
                                   ("random", "basic", "expert", "basic")])
    poll(served, match["id"], lambda v: v["phase"] == "complete")


def test_a_persons_move_answers_before_the_bot_replies_at_its_think_time(served):
    match = create(served, "gin", [{"name": "Ann"}, {"bot": "basic", "think_ms": 300}])
    ann = bearer(match["seats"][0]["token"])
    poll(served, match["id"], lambda v: v["turn"] == 0)  # the bot's upcard offer, paid
    for _ in range(4):  # Ann plays until her move hands the turn to the bot
        mine = served.get(f"/v1/matches/{match['id']}", headers=ann).json
        move = next((a for a in mine["legal_actions"] if a["type"] in ("pass", "draw")),
                    mine["legal_actions"][0])
        answer = served.post(f"/v1/matches/{match['id']}/actions", json=move, headers=ann)
        assert answer.status_code == 200
        if answer.json["turn"] == 1:
            break
    events = served.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert events[-1]["version"] == answer.json["version"]  # no reply stored yet
    handed = events[-1]["ts"]
    _, waited = poll(served, match["id"], lambda v: v["version"] > answer.json["version"])
    replied = served.get(f"/v1/matches/{match['id']}/events?after="
                         f"{answer.json['version']}").json["events"][0]
    assert replied["command_id"].startswith("seat1:bot:basic:")
    waited_ms = round((replied["ts"] - handed) * 1000)  # both stamped in whole milliseconds
    assert 300 <= waited_ms < 1300  # at its think time, on the timer's clock
    assert waited < 1.5
