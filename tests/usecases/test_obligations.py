"""The table of obligations: each kind of owed work, its due time, its mark ahead and the
command that pays it; and ``Obligations.pay``, which runs that command through the one
command runner until the match owes nothing more of the kind that is due."""

from __future__ import annotations

import pytest

from domain.match import OWED, BotTurn, DeadlineDue, StepDue
from domain.steps import SCORING, SystemStep
from domain.tournaments.tournament import RatingsDue, TournamentDue
from service.usecases.commands import PlayBot, RunStep, TimeOut
from service.usecases.obligations import KINDS, OBLIGATIONS
from tests.usecases.conftest import OWING, new_match


def test_the_table_has_one_row_for_each_kind_of_owed_work_in_the_domains_order():
    assert [row.owed for row in OBLIGATIONS.values()] == [*OWED, TournamentDue, RatingsDue]
    assert KINDS == ("steps", "clocks", "bots", "tournaments", "ratings")  # index keys
    assert sorted(OWING) == sorted(KINDS)  # the tests' examples cover every kind


def test_each_kind_is_marked_ahead_as_its_row_says():
    assert OBLIGATIONS["steps"].mark_ahead_s == 1.0
    assert OBLIGATIONS["clocks"].mark_ahead_s == 5.0
    assert OBLIGATIONS["bots"].mark_ahead_s == 1.0


def test_a_step_is_paid_by_running_it():
    owed = StepDue(SystemStep(SCORING, 1))
    assert OBLIGATIONS[owed.kind].command(owed, 1000.0) == RunStep()


def test_a_deadline_is_paid_by_the_clocks_move_for_its_turn_at_that_time():
    owed = DeadlineDue(seat=1, deadline=990.0, turn_version=7)
    assert OBLIGATIONS[owed.kind].command(owed, 1000.0) == TimeOut(7, 1000.0)


def test_a_bots_turn_is_paid_by_the_bots_move_for_its_seat_at_that_version():
    owed = BotTurn(seat=1, level="basic", version=7, due_at=990.0)
    assert OBLIGATIONS[owed.kind].command(owed, 1000.0) == PlayBot(1, 7)


@pytest.mark.parametrize("kind", KINDS)
def test_paying_a_due_kind_leaves_nothing_of_it_due_and_paying_again_appends_nothing(
        queued, clock, kind):
    match_id = OWING[kind](queued, clock)
    paid = queued.obligations.pay(match_id, kind)
    assert paid.appended  # paid through the runner: stored events
    next_due = paid.next_due(kind, clock.now)
    if OBLIGATIONS[kind].looks_again_s is None:
        assert next_due is None or next_due > clock.now
    else:  # a tournament waits on its matches: still due, looked at again later
        assert next_due == clock.now
    assert queued.obligations.pay(match_id, kind).appended == ()


def test_a_deadline_not_yet_come_is_left_owed(queued, clock):
    match = new_match(queued, clock={"turn_seconds": 30})
    paid = queued.obligations.pay(match["id"], "clocks")
    assert paid.appended == () and paid.next_due("clocks", clock.now) == clock.now + 30


def test_the_clock_plays_a_turn_out_and_stops_at_the_next_turns_deadline(queued, clock):
    match_id = OWING["clocks"](queued, clock)
    paid = queued.obligations.pay(match_id, "clocks")
    assert [e.command_id.split(":")[0] for e in paid.appended] == ["clock"]  # seat 1 passed
    assert paid.aggregate.owed() == (DeadlineDue(0, clock.now + 30, paid.aggregate.version),)
