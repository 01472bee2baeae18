"""Stream tickets: a browser's EventSource cannot send a token, so a page trades its token
for a short-lived, single-use ticket bound to the match and to whoever asked."""

from __future__ import annotations

import json

from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_matches_api import act, to_knock
from tests.service.test_organisers_api import new_organiser


def ticket(client, match, auth) -> str:
    answer = client.post(f"/v1/matches/{match['id']}/stream-tickets", headers=auth)
    assert answer.status_code == 201, answer.json
    assert answer.json["expires_in"] == 60
    return answer.json["ticket"]


def first_events(client, url: str, count: int) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)
    received = []
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.startswith("id:"):
            received.append(json.loads(text.split("data: ", 1)[1]))
        if len(received) == count:
            break
    response.close()
    return received


def test_a_seat_ticket_streams_what_that_seat_may_see(client):
    match = to_knock(client)  # Bob (seat 1) drew AH from the stock at version 6
    url = f"/v1/matches/{match['id']}/stream"
    bob = ticket(client, match, bearer(match["seats"][1]["token"]))
    (drawn,) = first_events(client, f"{url}?ticket={bob}&after=5", 1)
    assert drawn["type"] == "CardDrawn" and drawn["data"]["card"] == "AH"
    ann = ticket(client, match, bearer(match["seats"][0]["token"]))
    (hidden,) = first_events(client, f"{url}?ticket={ann}&after=5", 1)
    assert "card" not in hidden["data"]


def test_a_ticket_lets_in_one_request_only(client):
    match = to_knock(client)
    url = f"/v1/matches/{match['id']}/stream?after=5&ticket="
    once = ticket(client, match, bearer(match["seats"][1]["token"]))
    first_events(client, url + once, 1)
    again = client.get(url + once)
    assert (again.status_code, again.json["code"]) == (401, "invalid_ticket")


def test_a_ticket_is_bound_to_its_match(client):
    match, other = to_knock(client), to_knock(client)
    theirs = ticket(client, other, bearer(other["seats"][1]["token"]))
    answer = client.get(f"/v1/matches/{match['id']}/stream?ticket={theirs}")
    assert (answer.status_code, answer.json["code"]) == (401, "invalid_ticket")


def test_the_organiser_gets_the_full_view_and_the_public_needs_no_ticket(client):
    match = to_knock(client)
    full = ticket(client, match, ADMIN_AUTH)
    (drawn,) = first_events(client, f"/v1/matches/{match['id']}/stream?ticket={full}"
                                    "&after=5", 1)
    assert drawn["data"]["card"] == "AH"
    public = client.post(f"/v1/matches/{match['id']}/stream-tickets")
    assert (public.status_code, public.json["code"]) == (401, "missing_token")
    wrong = client.post(f"/v1/matches/{match['id']}/stream-tickets", headers=bearer("nope"))
    assert wrong.status_code == 401


def test_a_stored_ticket_is_only_a_hash_and_expires(client, redis_client, key_prefix):
    match = to_knock(client)
    issued = ticket(client, match, bearer(match["seats"][0]["token"]))
    keys = [k.decode() for k in redis_client.scan_iter(match=f"{key_prefix}:*ticket*")]
    assert len(keys) == 1 and issued not in keys[0] and f"{{{match['id']}}}" in keys[0]
    assert 0 < redis_client.ttl(keys[0]) <= 60


def knocked_to_the_end(client, match):
    """Seat 1 knocks with 3 against 70: with a target of 50 the match is over."""
    assert act(client, match, 1, {"type": "knock", "discard": "5S"}).status_code == 200


def test_a_finished_match_answers_a_caught_up_ticket_with_204(client):
    match = to_knock(client, target=50)
    done = ticket(client, match, bearer(match["seats"][0]["token"]))
    knocked_to_the_end(client, match)
    answer = client.get(f"/v1/matches/{match['id']}/stream?ticket={done}&after=11")
    assert answer.status_code == 204


def test_the_end_of_a_match_ends_its_tickets(client):
    """Issue 16: ending a match invalidates its tickets (a behind client follows the public
    stream, which is all there is to see now), and no new ones are issued."""
    match = to_knock(client, target=50)
    issued = ticket(client, match, bearer(match["seats"][0]["token"]))
    knocked_to_the_end(client, match)
    behind = client.get(f"/v1/matches/{match['id']}/stream?ticket={issued}&after=5")
    assert (behind.status_code, behind.json["code"]) == (401, "invalid_ticket")
    late = client.post(f"/v1/matches/{match['id']}/stream-tickets",
                       headers=bearer(match["seats"][0]["token"]))
    assert (late.status_code, late.json["code"]) == (422, "match_over")
    public = first_events(client, f"/v1/matches/{match['id']}/stream?after=5", 6)
    assert public[-1]["type"] == "MatchCompleted"


def test_an_eventsource_reconnecting_with_its_used_ticket_after_the_end_gets_204(client):
    """EventSource reconnects with the URL it has, whose ticket was used: once the client
    has the last event, the answer is still 204, so it stops instead of retrying."""
    match = to_knock(client, target=50)
    used = ticket(client, match, bearer(match["seats"][0]["token"]))
    url = f"/v1/matches/{match['id']}/stream?ticket={used}"
    stream = client.get(url)
    knocked_to_the_end(client, match)
    received = []
    for chunk in stream.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.startswith("id:"):
            received.append(json.loads(text.split("data: ", 1)[1]))
        if text.startswith("event: end"):
            assert json.loads(text.split("data: ", 1)[1]) == {"reason": "match_over"}
            break
    stream.close()
    assert len(received) == 11 and received[-1]["type"] == "MatchCompleted"
    again = client.get(url, headers={"Last-Event-ID": "11"})
    assert again.status_code == 204
    behind = client.get(url, headers={"Last-Event-ID": "5"})
    assert (behind.status_code, behind.json["code"]) == (401, "invalid_ticket")


def test_the_feed_takes_a_ticket_too(client):
    club = bearer(new_organiser(client, "club")["key"])
    issued = client.post("/v1/feed/tickets", headers=club)
    assert issued.status_code == 201
    feed = client.get(f"/v1/feed?ticket={issued.json['ticket']}")
    assert feed.status_code == 200 and feed.mimetype == "text/event-stream"
    feed.close()
    again = client.get(f"/v1/feed?ticket={issued.json['ticket']}")
    assert (again.status_code, again.json["code"]) == (401, "invalid_ticket")
    assert client.post("/v1/feed/tickets").status_code == 401
    seat_token = bearer(to_knock(client)["seats"][0]["token"])
    assert client.post("/v1/feed/tickets", headers=seat_token).status_code == 403


def test_acting_still_needs_the_token(client):
    match = to_knock(client)
    issued = ticket(client, match, bearer(match["seats"][1]["token"]))
    answer = act(client, match, 1, {"type": "knock", "discard": "5S"},
                 Authorization=f"Bearer {issued}")
    assert answer.status_code == 401
