"""What a match owes (``Match.owed``) and the follow-up that sees to it after every write,
creation included; the subscribers after every write, each on its own."""

from __future__ import annotations

import logging
import threading

import pytest

from domain.match import DeadlineDue, Match, StepDue
from service.usecases.obligations import KINDS, OBLIGATIONS
from service.usecases.subscribers import Appended, Subscribers
from tests.usecases.conftest import ADMIN, OWING, new_match, owing, to_knock, token, wait_for


def test_a_knocked_hand_owes_its_scoring_step_and_the_index_holds_it(queued, clock):
    match = new_match(queued)
    to_knock(queued, match)
    queued.play.act(match["id"], token(match, 1), {"type": "knock", "discard": "5S"})
    owed = queued.repository.get(match["id"]).owed()
    assert [type(o) for o in owed] == [StepDue] and owed[0].step.name == "scoring"
    assert queued.index.claim(StepDue.kind, 1.0)[1] == [match["id"]]


def test_a_clocked_match_owes_its_first_deadline_from_its_creation(queued, clock):
    match = new_match(queued, clock={"turn_seconds": 30})
    (owed,) = queued.repository.get(match["id"]).owed()
    assert isinstance(owed, DeadlineDue)
    assert (owed.seat, owed.deadline) == (1, round(clock.now + 30, 3))
    clock.now += 31  # the reconciler's view: due now
    assert queued.index.claim(DeadlineDue.kind, 1.0)[1] == [match["id"]]


def test_an_untimed_turn_and_a_finished_match_owe_nothing(queued):
    match = new_match(queued)
    assert queued.repository.get(match["id"]).owed() == ()
    queued.play.abort(match["id"], ADMIN, {"reason": "closing"})
    assert queued.repository.get(match["id"]).owed() == ()


def test_embedded_mode_pays_the_step_on_its_timer_thread_after_the_action(embedded,
                                                                          monkeypatch):
    paid_on: list[str] = []
    pay = embedded.obligations.pay

    def noted(match_id: str, kind: str, now: float | None = None):
        paid_on.append(threading.current_thread().name)
        return pay(match_id, kind, now)

    monkeypatch.setattr(embedded.obligations, "pay", noted)
    match = new_match(embedded)
    to_knock(embedded, match)
    view = embedded.play.act(match["id"], token(match, 1), {"type": "knock",
                                                             "discard": "5S"})
    assert view["phase"] == "scoring"  # the knock's own version...
    loaded = wait_for(lambda: (m := embedded.repository.get(match["id"])).state.hand_number == 2
                      and m)
    assert loaded.state.hand_number == 2 and loaded.owed() == ()  # ...then scored and dealt
    assert paid_on == ["rummy-work"]  # never on the thread of the knock


@pytest.mark.parametrize("kind", KINDS)
def test_embedded_mode_pays_every_kind_on_its_one_timer_once_due(embedded, clock, kind):
    match_id = OWING[kind](embedded, clock)

    def paid() -> bool:
        owed = [o for o in owing(embedded, kind, match_id) if o.kind == kind]
        if OBLIGATIONS[kind].looks_again_s is not None:  # paid: its tables are open
            return all(not o.open for o in owed)
        return not [o for o in owed if o.due(clock.now) <= clock.now]

    assert wait_for(paid, timeout=3.0)  # a deadline's check comes within the timer's 1 s


def test_tests_pay_inline_before_the_action_answers(inline):
    match = new_match(inline)
    to_knock(inline, match)
    view = inline.play.act(match["id"], token(match, 1), {"type": "knock", "discard": "5S"})
    assert view["phase"] == "scoring"  # the knock's own version...
    loaded = inline.repository.get(match["id"])
    assert loaded.state.hand_number == 2 and loaded.owed() == ()  # ...then scored and dealt


def test_a_failing_subscriber_is_logged_and_the_others_still_run(queued, caplog):
    match = new_match(queued)
    heard: list[Appended[Match]] = []

    def broken(appended: Appended[Match]) -> None:
        raise RuntimeError("down")

    appended = Appended(match["id"], (), queued.repository.get(match["id"]))
    with caplog.at_level(logging.ERROR):
        Subscribers([broken, heard.append]).publish(appended)
    assert heard == [appended] and f"broken after a write to match {match['id']}" in caplog.text


def test_a_write_stands_when_the_organisers_notices_fail(queued, caplog, monkeypatch):
    def down(owner: str, messages: object) -> None:
        raise RuntimeError("feed down")

    monkeypatch.setattr(type(queued.streams.feed), "publish", staticmethod(down))
    match = new_match(queued)
    with caplog.at_level(logging.ERROR):
        queued.play.abort(match["id"], ADMIN, {"reason": "closing"})  # a lifecycle event
    assert "OrganiserNotices after a write to match" in caplog.text
    assert queued.repository.get(match["id"]).is_over
