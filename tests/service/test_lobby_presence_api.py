"""The lobby lists a table only while its creator is there: one whose creator has been
gone for ``RUMMY_LOBBY_ABANDON_S`` is called off, so nobody joins a table that would
deal and then wait on the absent creator's turn for good."""

from __future__ import annotations

import time
from typing import Any

import pytest

from service.config import Settings
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer
from tests.service.test_seats_api import claim, open_match

ABANDON_S = 120


class Clock:
    """The wall clock, moved on by the test (lobby records are stamped in real time)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(redis_client, key_prefix, serving, clock):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=200, lobby_abandon_s=ABANDON_S)
    return serving(settings, redis_client, jobs_inline=True, clock=clock)


def listed(client) -> dict[str, dict[str, Any]]:
    answer = client.get("/v1/lobby")
    assert answer.status_code == 200, answer.json
    return {match["id"]: match for match in answer.json["matches"]}


def test_a_table_whose_creator_left_leaves_the_lobby_and_is_called_off(client, clock):
    match = open_match(client)
    fresh = listed(client)[match["id"]]
    assert fresh["creator_present"] is False and fresh["creator_seen_at"] is None
    clock.ahead = ABANDON_S + 5
    assert match["id"] not in listed(client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["phase"] == "aborted"
    assert view["ended"] == {"by": "abort", "seat": None, "reason": "creator left",
                             "initiator": "creator"}
    refused = claim(client, match, 1)
    assert refused.status_code == 422 and refused.json["code"] == "match_over"


def test_a_claim_of_a_table_whose_creator_left_is_refused_before_anybody_lists_it(client,
                                                                                clock):
    match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}],
                       variant="gem")
    assert claim(client, match, 1).status_code == 201
    clock.ahead = ABANDON_S + 5
    refused = claim(client, match, 2, "Cy")
    assert refused.status_code == 422 and refused.json["code"] == "match_over"
    assert client.get(f"/v1/matches/{match['id']}").json["ended"]["reason"] == "creator left"


def test_a_creator_with_the_table_open_keeps_it_listed_and_is_here_now(client, app, clock):
    match = open_match(client)
    app.extensions["rummy"].queries.live.presence.open(match["id"], "0:page")
    clock.ahead = 10 * ABANDON_S
    shown = listed(client)[match["id"]]
    assert shown["creator_present"] is True and shown["phase"] == "waiting"
    assert shown["creator_seen_at"] == pytest.approx(time.time(), abs=5)
    assert claim(client, match, 1).json["started"] is True


def test_the_next_page_starts_where_the_tables_called_off_were(client, app, clock):
    presence = app.extensions["rummy"].queries.live.presence
    oldest, left, newest = (open_match(client) for _ in range(3))
    for here in (oldest, newest):
        presence.open(here["id"], "0:page")
    clock.ahead = ABANDON_S + 5
    first = client.get("/v1/lobby?limit=2").json
    assert [m["id"] for m in first["matches"]] == [newest["id"]]
    rest = client.get(f"/v1/lobby?limit=2&cursor={first['next_cursor']}").json
    assert [m["id"] for m in rest["matches"]] == [oldest["id"]]
    assert client.get(f"/v1/matches/{left['id']}").json["phase"] == "aborted"


def away_since_a_minute_before_the_limit(client, clock, match_id: str) -> None:
    """Seen last at ABANDON_S - 60: away but listed just past the limit from the creation,
    called off once ABANDON_S has passed since that sighting."""
    clock.ahead = ABANDON_S + 5
    shown = listed(client)[match_id]
    assert shown["creator_present"] is False
    assert shown["creator_seen_at"] == pytest.approx(time.time() + ABANDON_S - 60, abs=5)
    clock.ahead = 2 * ABANDON_S
    assert match_id not in listed(client)


def test_the_creator_is_away_from_when_their_page_closed(client, app, clock):
    match = open_match(client)
    presence = app.extensions["rummy"].queries.live.presence
    clock.ahead = ABANDON_S - 60
    presence.open(match["id"], "0:page")
    presence.close(match["id"], "0:page")
    away_since_a_minute_before_the_limit(client, clock, match["id"])


def test_reading_the_table_with_the_creators_seat_token_counts_as_being_there(client, clock):
    match = open_match(client)
    ann = bearer(match["seats"][0]["token"])
    clock.ahead = ABANDON_S - 60
    assert client.get(f"/v1/matches/{match['id']}", headers=ann).status_code == 200
    away_since_a_minute_before_the_limit(client, clock, match["id"])


def test_tables_without_a_creator_seat_keep_waiting_as_before(client, clock):
    organisers = open_match(client, auth=ADMIN_AUTH)
    bots = open_match(client, players=[{"bot": "basic"}, {"open": True}])
    clock.ahead = 10 * ABANDON_S
    shown = listed(client)
    for match in (organisers, bots):
        assert shown[match["id"]]["creator_present"] is None
        assert shown[match["id"]]["creator_seen_at"] is None
    assert claim(client, organisers, 1).json["started"] is True


def test_the_abandon_time_is_a_setting_and_zero_turns_it_off(monkeypatch):
    assert Settings.from_env().lobby_abandon_s == 120
    monkeypatch.setenv("RUMMY_LOBBY_ABANDON_S", "0")
    assert Settings.from_env().lobby_abandon_s == 0
    monkeypatch.setenv("RUMMY_LOBBY_ABANDON_S", "soon")
    with pytest.raises(ValueError, match="RUMMY_LOBBY_ABANDON_S"):
        Settings.from_env()
