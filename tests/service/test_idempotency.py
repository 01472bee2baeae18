"""Retries of one Idempotency-Key get the first request's answer, however they race.

Clients retry when a response is lost; several retries may be in flight at once. Each
must get exactly what the first request got (status and body), and the action must
happen once.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.service.conftest import ADMIN_AUTH, bearer, create
from tests.service.test_matches_api import DECK, act
from tests.service.test_seats_api import claim, open_match

RETRIES = 20


def race(app, match: dict[str, Any], seat: int, action: dict[str, Any],
         key: str) -> list[tuple[int, Any]]:
    """``RETRIES`` copies of one request sent at once, each on its own client."""
    answers: list[tuple[int, Any]] = []
    start = threading.Barrier(RETRIES)

    def send() -> None:
        client = app.test_client()
        start.wait()
        response = act(client, match, seat, action, **{"Idempotency-Key": key})
        answers.append((response.status_code, response.json))

    threads = [threading.Thread(target=send) for _ in range(RETRIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def types(client, match) -> list[str]:
    return [e["type"] for e in client.get(f"/v1/matches/{match['id']}/events").json["events"]]


def test_concurrent_retries_all_get_the_first_answer(app, client):
    match = create(client, DECK)
    answers = race(app, match, 1, {"type": "pass"}, "k1")
    assert len(answers) == RETRIES
    assert [answer for answer in answers if answer != answers[0]] == []
    assert answers[0][0] == 200 and answers[0][1]["version"] == 4
    assert types(client, match).count("UpcardPassed") == 1


def test_a_refusal_is_the_answer_to_every_retry_too(app, client):
    match = create(client, DECK)
    answers = race(app, match, 0, {"type": "pass"}, "early")  # seat 1 passes first
    assert {status for status, _ in answers} == {422}
    assert all(answer == answers[0] for answer in answers)
    assert answers[0][1]["code"] == "not_your_turn"
    assert act(client, match, 1, {"type": "pass"}).status_code == 200
    # now seat 0 may pass, but a retry of the refused request still gets its refusal
    again = act(client, match, 0, {"type": "pass"}, **{"Idempotency-Key": "early"})
    assert (again.status_code, again.json) == answers[0]
    assert types(client, match).count("UpcardPassed") == 1


def test_the_same_key_for_another_action_is_refused(client):
    match = create(client, DECK)
    assert act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k"}).status_code == 200
    other = act(client, match, 1, {"type": "draw", "source": "stock"},
                **{"Idempotency-Key": "k"})
    assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")


def test_keys_belong_to_their_seat(client):
    match = create(client, DECK)
    assert act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k"}).status_code == 200
    theirs = act(client, match, 0, {"type": "pass"}, **{"Idempotency-Key": "k"})
    assert theirs.status_code == 200 and theirs.json["version"] == 5


def test_a_retry_goes_ahead_once_the_claim_of_a_request_that_died_lapses(app, client):
    match = create(client, DECK)
    store = app.extensions["rummy"].store
    claimed = time.monotonic()
    assert store.claim_idempotency(match["id"], "1:k", ttl_ms=300)  # then it died
    answer = act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k"})
    assert answer.status_code == 200 and time.monotonic() - claimed >= 0.3
    assert types(client, match).count("UpcardPassed") == 1


class TestControls:
    """Resigning, forfeiting, aborting, leaving a seat and calling a match off take an
    ``Idempotency-Key`` as actions do: a retry (its answer was lost) gets the first answer,
    status and body, where it got 422 ``match_over`` or 401; another request with the same
    key is refused."""

    @staticmethod
    def twice(client, url: str, headers: dict, body: dict | None = None,
              key: str = "k1") -> tuple:
        sent = {**headers, "Idempotency-Key": key}
        first = client.post(url, json=body, headers=sent)
        again = client.post(url, json=body, headers=sent)
        return first, again

    @staticmethod
    def same(first, again) -> bool:
        return (first.status_code, first.json) == (again.status_code, again.json)

    def test_a_retried_resignation_gets_the_first_answer(self, client):
        match = create(client, DECK)
        url = f"/v1/matches/{match['id']}/resign"
        bob = bearer(match["seats"][1]["token"])
        first, again = self.twice(client, url, bob, {"reason": "gone"})
        assert first.status_code == 200 and self.same(first, again)
        assert types(client, match).count("SeatForfeited") == 1
        other = client.post(url, json={"reason": "other"},
                            headers={**bob, "Idempotency-Key": "k1"})
        assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")

    def test_a_retried_abort_and_forfeit_get_the_first_answer(self, client):
        aborted, forfeited = create(client, DECK), create(client, DECK)
        first, again = self.twice(client, f"/v1/matches/{aborted['id']}/abort", ADMIN_AUTH,
                                  {"reason": "storm"})
        assert first.status_code == 200 and self.same(first, again)
        assert types(client, aborted).count("MatchAborted") == 1
        first, again = self.twice(client, f"/v1/matches/{forfeited['id']}/forfeit",
                                  ADMIN_AUTH, {"seat": 0, "reason": "late"})
        assert first.status_code == 200 and self.same(first, again)
        assert types(client, forfeited).count("SeatForfeited") == 1

    def test_a_retried_call_off_gets_the_first_answer(self, client):
        match = open_match(client)
        url = f"/v1/matches/{match['id']}/abort"
        creator = bearer(match["creator_token"])
        first, again = self.twice(client, url, creator, {"reason": "nobody came"})
        assert first.status_code == 200 and self.same(first, again)
        other = client.post(url, json={"reason": "else"},
                            headers={**creator, "Idempotency-Key": "k1"})
        assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")
        plain = client.post(url, json={"reason": "nobody came"}, headers=creator)
        assert (plain.status_code, plain.json["code"]) == (422, "match_over")

    def test_a_retried_leave_gets_the_first_answer_though_its_token_is_gone(self, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = bearer(claim(client, match, 1).json["token"])
        url = f"/v1/matches/{match['id']}/seats"
        first, again = self.twice(client, f"{url}/1/leave", bob)
        assert first.json == {"id": match["id"], "seat": 1, "open_seats": 2}
        assert self.same(first, again)
        other = client.post(f"{url}/2/leave", headers={**bob, "Idempotency-Key": "k1"})
        assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")
        for headers in ({**bob, "Idempotency-Key": "k2"}, bob,
                        {**bearer("made-up"), "Idempotency-Key": "k1"},
                        {**bearer("made-up"), "Idempotency-Key": "k" * 201}):
            gone = client.post(f"{url}/1/leave", headers=headers)
            assert (gone.status_code, gone.json["code"]) == (401, "invalid_token")

    def test_concurrent_retries_of_a_leave_all_get_the_first_answer(self, app, client):
        match = open_match(client, players=[{"name": "Ann"}, {"open": True}, {"open": True}])
        bob = bearer(claim(client, match, 1).json["token"])
        url = f"/v1/matches/{match['id']}/seats/1/leave"
        answers: list = []
        start = threading.Barrier(RETRIES)

        def send() -> None:
            own = app.test_client()
            start.wait()
            response = own.post(url, headers={**bob, "Idempotency-Key": "race"})
            answers.append((response.status_code, response.json))

        threads = [threading.Thread(target=send) for _ in range(RETRIES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(answers) == RETRIES
        first = (200, {"id": match["id"], "seat": 1, "open_seats": 2})
        assert [answer for answer in answers if answer != first] == []

    def test_the_spec_names_the_header_on_each(self, client):
        paths = client.get("/openapi.json").json["paths"]
        for path in ("/v1/matches/{match_id}/resign", "/v1/matches/{match_id}/abort",
                     "/v1/matches/{match_id}/forfeit",
                     "/v1/matches/{match_id}/seats/{seat}/leave"):
            names = [p["name"] for p in paths[path]["post"].get("parameters", [])]
            assert "Idempotency-Key" in names, path
