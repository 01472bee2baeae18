"""A rematch in the domain: who answers what, what each answer appends, where the players
sit next, and a log that the verifier holds to it."""

from __future__ import annotations

import pytest

from domain.bot_seats import BotSeat
from domain.errors import RuleError
from domain.events import REMATCH_ACCEPTED, REMATCH_OFFERED, REMATCH_STARTED
from domain.rematch import (
    ACCEPT,
    DECLINE,
    Answer,
    Rematch,
    answer_of,
    decide,
    next_seat,
    previous_seat,
)

PLAYERS = ("Ann", "Bob", "Cy")


def answered(*answers: Answer, phase: str = "complete",
             bots: dict[int, BotSeat] | None = None) -> tuple[Rematch, list[str]]:
    """The rematch after ``answers``, and the types of every event they appended."""
    rematch, types = Rematch(), []
    for answer in answers:
        for event in decide(rematch, answer, phase, PLAYERS, bots or {}, "next"):
            rematch = rematch.after(event)
            types.append(event.type)
    return rematch, types


def test_players_move_on_one_seat_keeping_their_clockwise_order():
    assert [next_seat(seat, 2) for seat in range(2)] == [1, 0]
    assert [next_seat(seat, 3) for seat in range(3)] == [2, 0, 1]
    assert all(previous_seat(next_seat(seat, n), n) == seat
               for n in range(2, 7) for seat in range(n))


def test_the_first_answer_offers_and_the_last_acceptance_starts_it():
    rematch, types = answered(Answer(1, ACCEPT), Answer(0, ACCEPT))
    assert (rematch.status, rematch.offered_by, rematch.awaited(3)) == ("offered", 1, [2])
    assert types == ["RematchOffered", "RematchAccepted"]
    rematch, types = answered(Answer(1, ACCEPT), Answer(0, ACCEPT), Answer(2, ACCEPT))
    assert (rematch.status, rematch.match_id, rematch.awaited(3)) == ("started", "next", [])
    assert types[-1] == "RematchStarted" and rematch.events == 4


def test_computer_players_accept_with_the_offer():
    bots = {0: BotSeat("basic"), 2: BotSeat("expert", 300)}
    events = decide(Rematch(), Answer(1, ACCEPT), "complete", PLAYERS, bots, "next")
    assert events == [REMATCH_OFFERED.event(seat=1),
                      REMATCH_ACCEPTED.event(seat=0, bot="basic"),
                      REMATCH_ACCEPTED.event(seat=2, bot="expert"),
                      REMATCH_STARTED.event(match_id="next", seats=[2, 0, 1])]


def test_saying_yes_again_appends_nothing():
    rematch, _ = answered(Answer(0, ACCEPT))
    assert decide(rematch, Answer(0, ACCEPT), "complete", PLAYERS, {}, "other") == []
    started, _ = answered(*(Answer(seat, ACCEPT) for seat in range(3)))
    assert decide(started, Answer(1, ACCEPT), "complete", PLAYERS, {}, "other") == []


def test_a_decline_ends_it_for_good_but_not_once_it_started():
    declined, types = answered(Answer(0, ACCEPT), Answer(2, DECLINE))
    assert (declined.status, declined.declined_by, declined.awaited(3)) == ("declined", 2, [])
    assert decide(declined, Answer(2, DECLINE), "complete", PLAYERS, {}, "next") == []
    with pytest.raises(RuleError) as refused:
        decide(declined, Answer(1, ACCEPT), "complete", PLAYERS, {}, "next")
    assert refused.value.code == "rematch_declined"
    started, _ = answered(*(Answer(seat, ACCEPT) for seat in range(3)))
    with pytest.raises(RuleError) as refused:
        decide(started, Answer(1, DECLINE), "complete", PLAYERS, {}, "next")
    assert refused.value.code == "rematch_started"


@pytest.mark.parametrize("phase, code", [("playing", "match_not_finished"),
                                         ("completing", "match_not_finished"),
                                         ("aborted", "no_rematch")])
def test_only_a_match_that_ended_with_a_result_has_a_rematch(phase, code):
    with pytest.raises(RuleError) as refused:
        decide(Rematch(), Answer(0, ACCEPT), phase, PLAYERS, {}, "next")
    assert refused.value.code == code


def test_a_stored_answer_reads_back_and_a_malformed_one_is_refused():
    assert answer_of(Answer(2, DECLINE).stored()) == Answer(2, DECLINE)
    for wrong in ({"rematch": "maybe", "seat": 0}, {"rematch": ACCEPT, "seat": True},
                  {"rematch": ACCEPT}):
        with pytest.raises(RuleError):
            answer_of(wrong)
