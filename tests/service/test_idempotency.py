"""Retries of one Idempotency-Key get the first request's answer, however they race.

Clients retry when a response is lost; several retries may be in flight at once. Each
must get exactly what the first request got (status and body), and the action must
happen once.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.service.conftest import create
from tests.service.test_matches_api import DECK, act

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
    assert store.claim_idempotency(match["id"], "1:k", ttl_ms=300)  # then it died
    started = time.monotonic()
    answer = act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k"})
    assert answer.status_code == 200 and time.monotonic() - started >= 0.2
    assert types(client, match).count("UpcardPassed") == 1
