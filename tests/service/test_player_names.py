"""Player names: each has a visible letter, digit or pictograph, and the seats of one match
have distinct names, compared case-insensitively after normalising. Wherever a name enters:
creation, claims, organiser batches.

A name of blanks (spaces, the Hangul fillers, the Braille blank) showed as nothing on
every other screen, and two seats named alike could not be told apart.
"""

from __future__ import annotations

import pytest

from tests.service.conftest import ADMIN_AUTH
from tests.service.test_seats_api import claim, open_match
from tests.service.test_text_api import KEPT

BLANK = [" ", "   ", "\u3164", "\u3164\u3164", "\u2800", "\u115f\u1160", "\uffa0", " \u3164 ",
         "\u2800 \u3164", "\u3000"]
"""Whitespace only, Hangul fillers (U+3164, U+115F, U+1160, U+FFA0), the Braille blank
U+2800 and the ideographic space: plain text, but nothing anybody can see."""


def created(client, *names: str):
    return client.post("/v1/matches", json={
        "variant": "gem" if len(names) == 3 else "gin",
        "players": [{"name": name} for name in names]})


def refused(answer, status: int, code: str, field: str) -> bool:
    return ((answer.status_code, answer.json["code"]) == (status, code)
            and list(answer.json.get("errors", {})) == [field])


@pytest.mark.parametrize("name", BLANK)
def test_a_name_needs_something_visible(client, name):
    assert refused(created(client, "Ann", name), 400, "invalid_name", "players.1.name")
    match = open_match(client)
    assert refused(claim(client, match, 1, name), 400, "invalid_name", "name")
    batch = client.post("/v1/batches", headers=ADMIN_AUTH, json={"matches": [
        {"variant": "gin", "players": [{"name": name}, {"name": "Bob"}]}]})
    assert refused(batch, 400, "invalid_name", "matches.0.players.0.name")


def test_letters_digits_and_pictographs_of_any_script_are_names(client):
    for name in ["7", "Ann", "李", *KEPT, "\u3164Ann", "Bob\u2800"]:
        assert created(client, name, "Other").status_code == 201, name


@pytest.mark.parametrize("twin", ["Ann", "ann", "ANN", " Ann ", "Ann  ", "\uff21nn",
                                  "A\u200dnn", "Ann\ufe0f", "A\u3164nn"])
def test_two_seats_of_a_match_never_share_a_name(client, twin):
    """Case, surrounding or doubled spaces, compatibility forms (full-width letters) and
    invisible characters between letters do not make a name another one."""
    assert refused(created(client, "Ann", twin), 400, "name_taken", "players.1.name")
    assert refused(created(client, "Bob", "Ann", twin), 400, "name_taken", "players.2.name")
    batch = client.post("/v1/batches", headers=ADMIN_AUTH, json={"matches": [
        {"variant": "gin", "players": [{"name": "Cy"}, {"name": "Di"}]},
        {"variant": "gin", "players": [{"name": "Ann"}, {"name": twin}]}]})
    assert refused(batch, 400, "name_taken", "matches.1.players.1.name")


def test_a_claim_takes_no_name_another_seat_has(client):
    match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
    assert refused(claim(client, match, 1, "ANN"), 409, "name_taken", "name")
    bob = claim(client, match, 1, "Bob").json
    assert refused(claim(client, match, 2, "bob "), 409, "name_taken", "name")
    left = client.post(f"/v1/matches/{match['id']}/seats/1/leave",
                       headers={"Authorization": f"Bearer {bob['token']}"})
    assert left.status_code == 200
    assert claim(client, match, 2, "Bob").json["started"] is False  # free again
    assert claim(client, match, 1, "Cy").json["started"] is True


def test_claims_of_one_name_at_the_same_instant_seat_only_one(client, app, monkeypatch):
    """Both claims read the lobby before either writes (the check as read is skipped, as
    it passes for both in a race): the claim script itself keeps the names distinct."""
    from service.usecases import seats

    monkeypatch.setattr(seats, "_require_free_name", lambda waiting, seat, name: None)
    match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
    assert refused(claim(client, match, 1, "ann"), 409, "name_taken", "name")
    assert claim(client, match, 1, "Bob").status_code == 201
    assert refused(claim(client, match, 2, " BOB"), 409, "name_taken", "name")
    assert claim(client, match, 2, "Cy").json["started"] is True


def test_an_open_seat_never_takes_a_name_by_itself(client):
    """Open seats have no name until claimed: a named player may be called anything,
    "Seat 2" included."""
    match = open_match(client, players=[{"name": "Seat 2"}, {"open": True}])
    assert claim(client, match, 1, "Seat 1").status_code == 201
