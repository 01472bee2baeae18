"""Revoking an organiser key cuts its holder off at once, as rotating a seat token cuts a
seat's: every stream the key opened (the full view of its matches, by header or ticket,
and its lifecycle feed) ends with ``event: end`` ``key_revoked``, nothing appended after
the revocation reaches it, and a ticket issued to the key lets nobody in any more.

In-process on both backends here; across two real API processes in
``tests/service/test_stream_cutoff_processes.py``.
"""

from __future__ import annotations

import time
from typing import Any

from flask.testing import FlaskClient

from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer
from tests.service.test_matches_api import DECK
from tests.service.test_organisers_api import new_organiser
from tests.service.test_stream_cutoff import SseReader
from tests.service.test_stream_tickets import ticket

ENDED = ("end", {"reason": "key_revoked"})


def revoke(client: FlaskClient, organiser: dict[str, Any]) -> None:
    answer = client.delete(f"/v1/organisers/{organiser['id']}", headers=ADMIN_AUTH)
    assert answer.status_code == 200, answer.json


def organisers_match_to_knock(client: FlaskClient, key: str) -> dict[str, Any]:
    """A prepared gin match of the key's organiser, where Bob (seat 1) has drawn and can
    knock (as ``test_matches_api.to_knock``)."""
    created = client.post("/v1/matches", headers=bearer(key), json={
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"first_dealer": 0}, "deck": DECK})
    assert created.status_code == 201, created.json
    match = created.json
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})]:
        answer = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                             headers=bearer(match["seats"][seat]["token"]))
        assert answer.status_code == 200, answer.json
    return match


def game_events(reader: SseReader) -> list[str]:
    return [name for name in reader.names() if name not in ("presence", "end")]


def wait_for(check: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_revocation_ends_the_keys_full_view_streams_and_nothing_after_it_reaches_them(
        client):
    club = new_organiser(client, "club")
    key = bearer(club["key"])
    match = organisers_match_to_knock(client, club["key"])
    url = f"/v1/matches/{match['id']}/stream?after={match['version'] + 3}"
    by_header = SseReader(client.get(url, headers=key))
    by_ticket = SseReader(client.get(f"{url}&ticket={ticket(client, match, key)}"))
    another = organisers_match_to_knock(client, club["key"])  # one announcement ends both
    of_another = SseReader(client.get(f"/v1/matches/{another['id']}/stream", headers=key))
    admin = SseReader(client.get(url, headers=ADMIN_AUTH))
    seat = SseReader(client.get(url, headers=bearer(match["seats"][0]["token"])))
    public = SseReader(client.get(url))
    time.sleep(0.3)
    started = time.monotonic()
    revoke(client, club)
    for reader in (by_header, by_ticket):
        reader.wait_closed(2)
        assert reader.items[-1] == ENDED and game_events(reader) == []
    of_another.wait_closed(2)
    assert of_another.items[-1] == ENDED
    assert time.monotonic() - started < 2

    knocked = client.post(f"/v1/matches/{match['id']}/actions",
                          json={"type": "knock", "discard": "5S"},
                          headers=bearer(match["seats"][1]["token"]))
    assert knocked.status_code == 200, knocked.json
    wait_for(lambda: "HandDealt" in admin.names())  # the next hand: its whole deck and seed
    assert "deck" in dict(admin.items)["HandDealt"]["data"]
    for reader in (by_header, by_ticket):
        assert reader.items[-1] == ENDED and game_events(reader) == []
    for reader in (admin, seat, public):  # the admin token, seats and the public go on
        wait_for(lambda reader=reader: "HandKnocked" in reader.names())
        assert not reader.closed
    assert client.get(url, headers=key).status_code == 401
    again = client.post(f"/v1/matches/{match['id']}/stream-tickets", headers=key)
    assert again.status_code == 401
    client.post(f"/v1/matches/{match['id']}/abort", headers=ADMIN_AUTH, json={"reason": "end"})
    for reader in (admin, seat, public):
        reader.wait_closed(2)


def test_a_revocation_ends_the_keys_feed_and_no_other_organisers(client):
    club, other = new_organiser(client, "club"), new_organiser(client, "other")
    key = bearer(club["key"])
    mine = organisers_match_to_knock(client, club["key"])
    other_match = organisers_match_to_knock(client, other["key"])
    issued = client.post("/v1/feed/tickets", headers=key)
    assert issued.status_code == 201, issued.json
    by_header = SseReader(client.get("/v1/feed", headers=key))
    by_ticket = SseReader(client.get(f"/v1/feed?ticket={issued.json['ticket']}"))
    theirs = SseReader(client.get("/v1/feed", headers=bearer(other["key"])))
    time.sleep(0.3)
    started = time.monotonic()
    revoke(client, club)
    for reader in (by_header, by_ticket):
        reader.wait_closed(2)
        assert reader.items == [ENDED]
    assert time.monotonic() - started < 2
    aborted = client.post(f"/v1/matches/{mine['id']}/abort", headers=ADMIN_AUTH,
                          json={"reason": "club closed"})
    assert aborted.status_code == 200, aborted.json
    aborted = client.post(f"/v1/matches/{other_match['id']}/abort",
                          headers=bearer(other["key"]), json={"reason": "done"})
    assert aborted.status_code == 200, aborted.json
    wait_for(lambda: "match_aborted" in theirs.names())
    assert not theirs.closed
    for reader in (by_header, by_ticket):
        assert reader.items == [ENDED]
    refused = client.get("/v1/feed", headers=key)
    assert (refused.status_code, refused.json["code"]) == (401, "invalid_token")
    revoke(client, other)
    theirs.wait_closed(2)
    assert theirs.items[-1] == ENDED


def test_a_feed_ticket_issued_before_a_revocation_lets_nobody_in(client):
    club = new_organiser(client, "club")
    issued = client.post("/v1/feed/tickets", headers=bearer(club["key"]))
    assert issued.status_code == 201, issued.json
    revoke(client, club)
    answer = client.get(f"/v1/feed?ticket={issued.json['ticket']}")
    assert (answer.status_code, answer.json["code"]) == (401, "invalid_ticket")
    assert "revoked" in answer.json["message"]


def test_the_admin_tokens_feed_ticket_still_lets_the_admin_in(client):
    """The admin token is configuration: nothing revokes it."""
    issued = client.post("/v1/feed/tickets", headers=ADMIN_AUTH)
    assert issued.status_code == 201, issued.json
    revoke(client, new_organiser(client, "club"))
    feed = client.get(f"/v1/feed?ticket={issued.json['ticket']}")
    assert feed.status_code == 200 and feed.mimetype == "text/event-stream"
    feed.close()


def test_a_revocation_and_a_later_event_taken_together_end_the_stream_first(wiring):
    """The hub may hand a stream the revocation and events appended after it in one
    take; the take is checked whole before any of its events is sent."""
    club = wiring.organisers.create(ADMIN, "club")
    match = wiring.creation.create({"variant": "gin", "players": [{"name": "Ann"},
                                                                   {"name": "Bob"}],
                                    "options": {"first_dealer": 0}, "deck": DECK},
                                   club["key"])
    stream = wiring.streams.follow(match["id"], club["key"], match["version"], 100)
    assert next(stream) is None  # caught up and subscribed: a keep-alive tick
    hub, events_key = wiring.streams.live.hub, wiring.store.events_key(match["id"])
    wiring.organisers.revoke(ADMIN, club["id"])
    after = wiring.play.act(match["id"], match["seats"][1]["token"], {"type": "pass"})
    wait_for(lambda: hub._positions.get(events_key) == f"{after['version']}-0")
    assert next(stream) == {"end": {"reason": "key_revoked"}}
    stream.close()
