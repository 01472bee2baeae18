"""What a match owes (``Match.owed``): given a match as the log leaves it, then what it
owes, one of each kind at most, and when each is due; and the same rule asked of events
before they are stored (``Ahead.owed``), as a follow-up does ahead of an append."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.aggregate import Recorded
from domain.bot_seats import BotSeat, seated
from domain.clocks import ClockSettings
from domain.controls import AbortMatch, ending_events
from domain.events import Event
from domain.fairness import Deal, MatchSecrets
from domain.gin import GIN
from domain.gin.rules import Draw, Knock, PassUpcard
from domain.match import OWED, BotTurn, DeadlineDue, Match, StepDue
from domain.steps import SCORING, SystemStep
from tests.builders import prepared_deck

LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"
KNOCKER = "4D 4S 4H 9C TC JC QC KC 2H 5S"
T0 = 1_000.0


def stored(match: Match, events: Sequence[Event], at: float) -> Match:
    """``match`` once ``events`` are stored at ``at``, as the repository folds them."""
    return match.apply([Recorded(event, match.version + number, at, f"h{number}")
                        for number, event in enumerate(events, 1)])


def opened(clock: dict[str, Any] | None = None,
           bots: dict[int, BotSeat] | None = None) -> Match:
    """A two-seat gin match just dealt at ``T0`` (seat 1 is offered the upcard), with a
    clock when ``clock`` is given and computer players in the seats ``bots`` gives."""
    options = GIN.parse_options({"first_dealer": 0}, 2)
    deck = prepared_deck([LOOSE, KNOCKER], "3C", "AH")
    events = GIN.start_match(["A", "B"], options, 0, Deal(deck, b"test", prepared=True))
    if clock is not None:
        events = [*events, ClockSettings.parse(clock).event()]
    return stored(Match.new(GIN), [*events, *seated(bots or {})], T0)


def decided(match: Match, command: object, at: float) -> Match:
    return stored(match, GIN.decide(match.state, command), at)


def test_every_kind_names_its_work_index_set():
    assert [kind.kind for kind in OWED] == ["steps", "clocks", "bots"]


def test_an_untimed_turn_owes_nothing():
    assert opened().owed() == ()


def test_a_running_clocked_turn_owes_its_deadline_due_then_and_not_before():
    match = opened({"turn_seconds": 30})
    (owed,) = match.owed()
    assert owed == DeadlineDue(seat=1, deadline=T0 + 30, turn_version=match.version)
    assert owed.due(T0) == owed.due(T0 + 60) == T0 + 30


def test_an_ended_hand_owes_its_step_due_at_once_and_no_deadline_meanwhile():
    match = opened({"turn_seconds": 30})
    for number, command in enumerate((PassUpcard(1), PassUpcard(0), Draw(1, "stock"),
                                      Knock(1, "5S")), 1):
        match = decided(match, command, T0 + number)
    (owed,) = match.owed()
    assert owed == StepDue(SystemStep(SCORING, 1))
    assert owed.due(T0 + 99) == T0 + 99


def test_events_ahead_owe_what_the_match_will_owe_once_they_are_stored():
    match, moves = opened({"turn_seconds": 30}), (PassUpcard(1), PassUpcard(0),
                                                  Draw(1, "stock"), Knock(1, "5S"))
    for number, command in enumerate(moves, 1):
        events = GIN.decide(match.state, command)
        ahead = match.ahead(events).owed(T0 + number)
        match = stored(match, events, T0 + number)
        assert ahead == match.owed()
    assert [owed.kind for owed in ahead] == ["steps"]


# --- computer players ------------------------------------------------------------------

BASIC = BotSeat("basic", think_ms=500)


def test_the_log_says_which_seats_are_bots():
    assert opened(bots={1: BASIC, 0: BotSeat("random")}).bots == {0: BotSeat("random"),
                                                                   1: BASIC}
    assert opened().bots == {}


def test_a_bot_on_turn_owes_its_move_its_think_time_after_the_last_event():
    match = opened(bots={1: BASIC})
    assert match.at == T0
    (owed,) = match.owed()
    assert owed == BotTurn(seat=1, level="basic", version=match.version, due_at=T0 + 0.5)
    assert owed.due(T0) == owed.due(T0 + 60) == T0 + 0.5  # a fixed time, not now + think


def test_a_person_on_turn_owes_nothing_though_a_bot_sits_at_the_table():
    match = opened(bots={0: BASIC})
    assert match.state.turn == 1 and match.owed() == ()


def test_the_bots_turn_comes_again_from_the_event_that_gave_it_the_turn():
    match = decided(opened(bots={0: BASIC}), PassUpcard(1), T0 + 7)
    (owed,) = match.owed()
    assert owed == BotTurn(0, "basic", match.version, T0 + 7.5)
    match = decided(match, PassUpcard(0), T0 + 8)  # the bot passed: the person's turn
    assert match.owed() == ()


def test_a_bot_owes_nothing_while_a_step_is_pending_or_once_the_match_is_over():
    match = opened(bots={0: BASIC})
    for number, command in enumerate((PassUpcard(1), PassUpcard(0), Draw(1, "stock"),
                                      Knock(1, "5S")), 1):
        match = decided(match, command, T0 + number)
    assert [type(owed) for owed in match.owed()] == [StepDue]
    aborted = stored(opened(bots={1: BASIC}), ending_events(
        GIN, opened().state, AbortMatch("closing"), MatchSecrets(b"test")), T0 + 1)
    assert aborted.is_over and aborted.owed() == ()


def test_a_clocked_bot_owes_both_its_move_and_its_deadline():
    match = opened({"turn_seconds": 30}, bots={1: BASIC})
    turn_started = match.version - 1  # the deal; the bots' seating came after it
    assert match.owed() == (DeadlineDue(1, T0 + 30, turn_started),
                            BotTurn(1, "basic", match.version, T0 + 0.5))


def test_events_ahead_owe_the_bots_turn_they_will_leave():
    match = opened(bots={0: BASIC})
    events = GIN.decide(match.state, PassUpcard(1))
    assert match.ahead(events).owed(T0 + 3) == stored(match, events, T0 + 3).owed()
    assert [owed.kind for owed in match.ahead(events).owed(T0 + 3)] == ["bots"]
