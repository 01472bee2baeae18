"""Open seats, the lobby, invite codes and seat tokens: joining a match over HTTP."""

from __future__ import annotations

import threading
import time

from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_organisers_api import new_organiser
from tests.service.test_stream_cutoff import SseReader
from tests.service.test_stream_tickets import first_events, ticket


def open_match(client, invite: str | None = None, variant: str = "gin",
               players: list[dict] | None = None, auth: dict | None = None) -> dict:
    body = {"variant": variant, "players": players or [{"name": "Ann"}, {"open": True}],
            "options": {"first_dealer": 0}}
    if invite is not None:
        body["invite_code"] = invite
    created = client.post("/v1/matches", json=body, headers=auth or {})
    assert created.status_code == 201, created.json
    return created.json


def claim(client, match: dict, seat: int, name: str = "Bob", **extra):
    return client.post(f"/v1/matches/{match['id']}/seats/{seat}/claim",
                       json={"name": name, **extra})


def test_a_match_with_an_open_seat_waits_without_dealing(client):
    match = open_match(client)
    assert match["status"] == "waiting" and match["version"] == 0
    assert match["seats"][0]["token"] and match["seats"][1] == {
        "seat": 1, "name": None, "open": True, "external_id": None, "token": None,
        "bot": None}
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["phase"] == "waiting" and view["open_seats"] == 1
    assert view["stock_count"] == 0 and view["dealer"] is None
    assert [s["open"] for s in view["seats"]] == [False, True]
    assert client.get(f"/v1/matches/{match['id']}/events").json == {"events": []}
    ann = bearer(match["seats"][0]["token"])
    seat_view = client.get(f"/v1/matches/{match['id']}", headers=ann).json
    assert seat_view["seat"] == 0 and seat_view["legal_actions"] == seat_view["moves"] == []


def test_acting_before_every_seat_is_taken_is_a_409(client):
    match = open_match(client)
    acted = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                        headers=bearer(match["seats"][0]["token"]))
    assert acted.status_code == 409 and acted.json["code"] == "match_not_started"


def test_the_last_claim_deals_the_first_hand_with_every_players_name(client):
    match = open_match(client, players=[{"open": True}, {"name": "Bob"}, {"open": True}],
                       variant="gem")
    first = claim(client, match, 0, "Ann")
    assert first.status_code == 201 and first.json["started"] is False
    assert first.json["open_seats"] == 1
    last = claim(client, match, 2, "Cy", external_id="cy-7")
    assert last.status_code == 201 and last.json["started"] is True
    view = client.get(f"/v1/matches/{match['id']}", headers=bearer(last.json["token"])).json
    assert view["phase"] != "waiting" and view["seat"] == 2 and len(view["hand"]) > 0
    assert [s["name"] for s in view["seats"]] == ["Ann", "Bob", "Cy"]
    assert view["seats"][2]["external_id"] is None  # the owner's, not the table's
    full = client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json
    assert full["seats"][2]["external_id"] == "cy-7"
    started = client.get(f"/v1/matches/{match['id']}/events").json["events"][0]
    assert started["data"]["players"] == ["Ann", "Bob", "Cy"]


def test_a_claimed_seat_is_taken_409(client):
    match = open_match(client, players=[{"open": True}, {"open": True}])
    assert claim(client, match, 0, "Ann").status_code == 201
    again = claim(client, match, 0, "Eve")
    assert again.status_code == 409 and again.json["code"] == "seat_taken"
    named = open_match(client, players=[{"name": "Ann"}, {"open": True}])
    assert claim(client, named, 0, "Eve").json["code"] == "seat_taken"
    assert claim(client, named, 1).status_code == 201
    assert claim(client, named, 1, "Eve").json["code"] == "seat_taken"


def test_unknown_seats_and_matches_are_404(client):
    match = open_match(client)
    assert claim(client, match, 2).json["code"] == "seat_not_found"
    gone = client.post("/v1/matches/nope/seats/0/claim", json={"name": "Bob"})
    assert gone.status_code == 404 and gone.json["code"] == "match_not_found"


def test_a_bad_or_missing_invite_code_is_403(client):
    match = open_match(client, invite="table-5")
    assert client.get("/v1/lobby").json["matches"][0]["invite_only"] is True
    for extra in ({}, {"invite_code": "table-6"}):
        refused = claim(client, match, 1, **extra)
        assert refused.status_code == 403 and refused.json["code"] == "invalid_invite"
    assert claim(client, match, 1, invite_code="table-5").status_code == 201


def test_an_invite_code_needs_open_seats(client):
    body = {"variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "invite_code": "table-5"}
    refused = client.post("/v1/matches", json=body)
    assert refused.status_code == 400 and "invite_code" in refused.json["errors"]


def test_an_open_seat_carries_no_player(client):
    body = {"variant": "gin", "players": [{"name": "Ann"}, {"open": True, "name": "Bob"}]}
    refused = client.post("/v1/matches", json=body)
    assert refused.status_code == 400
    body = {"variant": "gin", "players": [{"name": "Ann"}, {}]}
    assert client.post("/v1/matches", json=body).status_code == 400


def test_batches_cannot_have_open_seats(client):
    organiser = new_organiser(client, "club")
    body = {"matches": [{"variant": "gin", "players": [{"name": "Ann"}, {"open": True}]}]}
    refused = client.post("/v1/batches", json=body, headers=bearer(organiser["key"]))
    assert refused.status_code == 400


def test_the_lobby_lists_waiting_matches_newest_first_by_variant(client):
    gin = open_match(client)
    gem = open_match(client, variant="gem")
    full = open_match(client)
    claim(client, full, 1)
    assert [m["id"] for m in client.get("/v1/lobby").json["matches"]] == [gem["id"], gin["id"]]
    only_gin = client.get("/v1/lobby?variant=gin").json
    assert [m["id"] for m in only_gin["matches"]] == [gin["id"]]
    assert only_gin["next_cursor"] is None
    page = client.get("/v1/lobby?limit=1").json
    assert len(page["matches"]) == 1 and page["next_cursor"] == "1"
    rest = client.get(f"/v1/lobby?limit=1&cursor={page['next_cursor']}").json
    assert [m["id"] for m in rest["matches"]] == [gin["id"]]
    for refused in ("variant=poker", "variant=", "cursor=abc", "cursor=", "limit=0"):
        answer = client.get(f"/v1/lobby?{refused}")
        assert answer.status_code == 400 and answer.json["code"] == "invalid_request", refused


def test_only_one_of_two_racing_claims_gets_the_last_seat(client, app):
    match = open_match(client)
    answers = []

    def race(name: str) -> None:
        answers.append(app.test_client().post(
            f"/v1/matches/{match['id']}/seats/1/claim", json={"name": name}))

    threads = [threading.Thread(target=race, args=(name,)) for name in ("Bob", "Eve")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [201, 409]
    winner = next(a.json for a in answers if a.status_code == 201)
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert events[0]["data"]["players"][1] == winner["name"]
    assert sum(e["type"] == "MatchCreated" for e in events) == 1


def test_the_last_claim_starts_the_match_with_whoever_holds_the_seats_then(client, app,
                                                                        monkeypatch):
    """Cy takes the last seat; between the lobby read and the start, Bob gives seat 1 back
    and Eve claims it: the match starts with Eve (name, entropy, external id), who holds
    the seat's token, never with Bob, who does not any more."""
    match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
    bob = claim(client, match, 1, "Bob", entropy="bob's", external_id="bob-1").json
    seats = app.extensions["rummy"].seats
    decide_start, meanwhile = seats._start, []

    def swap_seat_1() -> None:
        other = app.test_client()
        meanwhile.append(other.post(f"/v1/matches/{match['id']}/seats/1/leave",
                                    headers=bearer(bob["token"])).status_code)
        eve = claim(other, match, 1, "Eve", entropy="eve's", external_id="eve-1")
        meanwhile.append(eve.status_code)
        meanwhile.append(eve.json["token"])

    def paused(*args):
        if not meanwhile:  # another request runs in the pause, as another process would
            thread = threading.Thread(target=swap_seat_1)
            thread.start()
            thread.join()
        return decide_start(*args)

    monkeypatch.setattr(seats, "_start", paused)
    cy = claim(client, match, 2, "Cy", entropy="cy's")
    assert cy.status_code == 201 and cy.json["started"] is True
    assert meanwhile[:2] == [200, 201]
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert events[0]["data"]["players"] == ["Ann", "Eve", "Cy"]
    assert events[1]["data"]["entropy"] == ["", "eve's", "cy's"]
    eve_view = client.get(f"/v1/matches/{match['id']}", headers=bearer(meanwhile[2])).json
    assert eve_view["seat"] == 1
    full = client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json
    assert [s["external_id"] for s in full["seats"]] == [None, "eve-1", None]


def test_a_seat_streams_from_the_lobby_and_gets_its_own_cards_when_play_starts(client, app):
    match = open_match(client)
    ann = bearer(match["seats"][0]["token"])
    ann_ticket = ticket(client, match, ann)
    timer = threading.Timer(0.3, lambda: claim(app.test_client(), match, 1))
    timer.start()
    events = first_events(client, f"/v1/matches/{match['id']}/stream?ticket={ann_ticket}", 3)
    timer.join()
    assert [e["type"] for e in events] == ["MatchCreated", "SeedCommitted", "HandDealt"]
    hand = client.get(f"/v1/matches/{match['id']}", headers=ann).json["hand"]
    assert sorted(events[2]["data"]["hand"]) == sorted(hand)


def test_the_creator_rotates_a_seat_token_and_the_old_one_is_401(client):
    match = open_match(client)
    bob = claim(client, match, 1).json
    rotated = client.post(f"/v1/matches/{match['id']}/seats/1/token",
                          headers=bearer(match["creator_token"]))
    assert rotated.status_code == 200 and rotated.json["seat"] == 1
    old = client.get(f"/v1/matches/{match['id']}", headers=bearer(bob["token"]))
    assert old.status_code == 401 and old.json["code"] == "invalid_token"
    acted = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                        headers=bearer(bob["token"]))
    assert acted.status_code == 401
    new = client.get(f"/v1/matches/{match['id']}", headers=bearer(rotated.json["token"]))
    assert new.status_code == 200 and new.json["seat"] == 1


def test_a_seat_token_is_rotated_before_the_match_starts_too(client):
    match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}],
                       variant="gem")
    rotated = client.post(f"/v1/matches/{match['id']}/seats/0/token",
                          headers=bearer(match["creator_token"])).json
    claim(client, match, 1)
    claim(client, match, 2, "Cy")
    assert client.get(f"/v1/matches/{match['id']}",
                      headers=bearer(match["seats"][0]["token"])).status_code == 401
    assert client.get(f"/v1/matches/{match['id']}",
                      headers=bearer(rotated["token"])).json["seat"] == 0


def test_the_organiser_rotates_tokens_and_seats_cannot(client):
    created = client.post("/v1/matches", headers=ADMIN_AUTH, json={
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]}).json
    assert client.post(f"/v1/matches/{created['id']}/seats/0/token",
                       headers=ADMIN_AUTH).status_code == 200
    seat = client.post(f"/v1/matches/{created['id']}/seats/0/token",
                       headers=bearer(created["seats"][1]["token"]))
    assert seat.status_code == 403 and seat.json["code"] == "creator_only"
    anonymous = client.post(f"/v1/matches/{created['id']}/seats/0/token")
    assert anonymous.status_code == 401
    other = new_organiser(client, "club")
    assert client.post(f"/v1/matches/{created['id']}/seats/0/token",
                       headers=bearer(other["key"])).status_code == 404


def test_an_open_seat_has_no_token_to_rotate(client):
    match = open_match(client)
    refused = client.post(f"/v1/matches/{match['id']}/seats/1/token",
                          headers=bearer(match["creator_token"]))
    assert refused.status_code == 409 and refused.json["code"] == "seat_open"
    missing = client.post(f"/v1/matches/{match['id']}/seats/7/token",
                          headers=bearer(match["creator_token"]))
    assert missing.status_code == 404 and missing.json["code"] == "seat_not_found"


class TestLeavingASeat:
    """A player gives back an open seat before the match starts (issue 19: there was no
    way to leave)."""

    def test_a_player_leaves_and_the_seat_is_open_again(self, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = claim(client, match, 1).json
        url = f"/v1/matches/{match['id']}/seats/1/leave"
        left = client.post(url, headers=bearer(bob["token"]))
        assert left.status_code == 200, left.json
        assert left.json == {"id": match["id"], "seat": 1, "open_seats": 2}
        view = client.get(f"/v1/matches/{match['id']}").json
        assert view["open_seats"] == 2 and view["seats"][1]["open"] is True
        assert view["seats"][1]["name"] is None
        gone = client.get(f"/v1/matches/{match['id']}", headers=bearer(bob["token"]))
        assert (gone.status_code, gone.json["code"]) == (401, "invalid_token")
        listed = client.get("/v1/lobby").json["matches"]
        assert [m["open_seats"] for m in listed if m["id"] == match["id"]] == [2]
        assert claim(client, match, 1, "Cy").status_code == 201
        started = claim(client, match, 2, "Di").json
        assert started["started"] is True
        names = [s["name"] for s in client.get(f"/v1/matches/{match['id']}").json["seats"]]
        assert names == ["Ann", "Cy", "Di"]

    def test_only_the_seats_holder_leaves_and_only_before_the_start(self, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = claim(client, match, 1).json
        base = f"/v1/matches/{match['id']}/seats"
        ann = bearer(match["seats"][0]["token"])
        other = client.post(f"{base}/1/leave", headers=ann)
        assert (other.status_code, other.json["code"]) == (403, "not_your_seat")
        named = client.post(f"{base}/0/leave", headers=ann)
        assert (named.status_code, named.json["code"]) == (409, "seat_named")
        assert client.post(f"{base}/1/leave").status_code == 401
        assert client.post(f"{base}/1/leave", headers=ADMIN_AUTH).status_code == 403
        cy = claim(client, match, 2, "Cy").json
        assert cy["started"] is True
        late = client.post(f"{base}/1/leave", headers=bearer(bob["token"]))
        assert (late.status_code, late.json["code"]) == (409, "match_started")
        assert client.post("/v1/matches/nope/seats/1/leave",
                           headers=bearer(bob["token"])).status_code == 404

    def test_leaving_ends_the_seats_stream(self, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = claim(client, match, 1).json
        stream = SseReader(client.get(f"/v1/matches/{match['id']}/stream",
                                      headers=bearer(bob["token"])))
        time.sleep(0.3)
        assert client.post(f"/v1/matches/{match['id']}/seats/1/leave",
                           headers=bearer(bob["token"])).status_code == 200
        stream.wait_closed(2)
        assert stream.items[-1] == ("end", {"reason": "seat_left"})


class TestCallingOffAWaitingMatch:
    """A creator may abort a match that has not started (issue 19: abort answered 403
    ``organiser_only`` even to the match's creator)."""

    def test_the_creator_calls_off_a_waiting_match(self, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = claim(client, match, 1).json
        stream = SseReader(client.get(f"/v1/matches/{match['id']}/stream",
                                      headers=bearer(bob["token"])))
        time.sleep(0.3)
        answer = client.post(f"/v1/matches/{match['id']}/abort", json={"reason": "no one came"},
                             headers=bearer(match["creator_token"]))
        assert answer.status_code == 200, answer.json
        assert answer.json["phase"] == "aborted"
        assert answer.json["ended"] == {"by": "abort", "seat": None, "reason": "no one came",
                                        "initiator": "creator"}
        stream.wait_closed(2)
        assert stream.items[-1] == ("end", {"reason": "match_over"})
        seat_view = client.get(f"/v1/matches/{match['id']}", headers=bearer(bob["token"]))
        assert seat_view.status_code == 200 and seat_view.json["phase"] == "aborted"
        assert match["id"] not in [m["id"] for m in client.get("/v1/lobby").json["matches"]]
        late = claim(client, match, 2, "Cy")
        assert (late.status_code, late.json["code"]) == (422, "match_over")
        leave = client.post(f"/v1/matches/{match['id']}/seats/1/leave",
                            headers=bearer(bob["token"]))
        assert (leave.status_code, leave.json["code"]) == (422, "match_over")
        acted = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                            headers=bearer(bob["token"]))
        assert (acted.status_code, acted.json["code"]) == (422, "match_over")
        assert client.get(f"/v1/matches/{match['id']}/stream").status_code == 204
        again = client.post(f"/v1/matches/{match['id']}/abort", json={"reason": "x"},
                            headers=bearer(match["creator_token"]))
        assert (again.status_code, again.json["code"]) == (422, "match_over")
        assert client.get(f"/v1/matches/{match['id']}/events").json == {"events": []}

    def test_only_the_creator_or_its_organiser_calls_it_off(self, client):
        key = bearer(new_organiser(client, "Club")["key"])
        match = open_match(client, auth=key)
        url = f"/v1/matches/{match['id']}/abort"
        seat = client.post(url, json={"reason": "x"}, headers=bearer(match["seats"][0]["token"]))
        assert (seat.status_code, seat.json["code"]) == (403, "creator_only")
        unread = client.post(url, headers=bearer(match["seats"][0]["token"]))
        assert (unread.status_code, unread.json["code"]) == (403, "creator_only")
        by_organiser = client.post(url, json={"reason": "closing"}, headers=key)
        assert by_organiser.status_code == 200, by_organiser.json
        assert by_organiser.json["ended"]["initiator"] == "organiser"

    def test_once_started_the_creator_may_not_abort(self, client):
        match = open_match(client)
        assert claim(client, match, 1).json["started"] is True
        answer = client.post(f"/v1/matches/{match['id']}/abort", json={"reason": "x"},
                             headers=bearer(match["creator_token"]))
        assert (answer.status_code, answer.json["code"]) == (403, "owner_only")
