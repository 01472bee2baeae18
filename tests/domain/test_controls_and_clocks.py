"""domain.controls and domain.clocks: given events, when a control or time, then events."""

from __future__ import annotations

import pytest

from domain import controls
from domain.bots.policies import safe
from domain.clocks import Clock, ClockSettings
from domain.errors import OptionError, RuleError
from domain.events import MATCH_CREATED, RULES_EDITION
from domain.evolving import replay
from domain.steps import awaiting_step
from domain.variants import VARIANTS
from domain.viewer import Viewer


def test_a_forfeit_ranks_the_forfeiter_last_and_the_rest_by_score() -> None:
    high = controls.forfeit_result([50, 80, 20], seat=1, low_scores_win=False)
    assert high["ranking"] == [0, 2, 1] and high["winner"] == 0
    low = controls.forfeit_result([50, 80, 20], seat=1, low_scores_win=True)
    assert low["ranking"] == [2, 0, 1] and low["winner"] == 2
    tied = controls.forfeit_result([10, 10, 0], seat=2, low_scores_win=False)
    assert tied["winner"] is None and tied["winners"] == [0, 1]


def test_a_resignation_is_the_seats_own_forfeit_and_reads_back_from_the_log() -> None:
    resigned = controls.ForfeitSeat.resignation(1)
    assert (resigned.seat, resigned.reason, resigned.by) == (1, controls.RESIGNED, "seat")
    stored = controls.stored_command(resigned)
    assert stored == {"control": "forfeit", "seat": 1, "reason": "resigned", "by": "seat"}
    assert controls.command_of(stored) == resigned


def test_a_seat_cannot_void_a_match() -> None:
    """A player's way out is resigning (losing); only an organiser (or its clock) voids."""
    with pytest.raises(RuleError) as refused:
        controls.command_of({"control": "abort", "reason": "bored", "by": "seat"})
    assert refused.value.code == "invalid_command"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_folds_the_controls(name: str) -> None:
    variant = VARIANTS[name]
    created = MATCH_CREATED.event(variant=name, players=["A", "B"],
                                  options=variant.parse_options({}, 2).to_dict(),
                                  first_dealer=0, rules_edition=RULES_EDITION)
    state = replay(variant, [created])
    [forfeit] = controls.decide(state, controls.ForfeitSeat(1, "gone"), variant.low_scores_win)
    ended = variant.evolve(state, forfeit)
    assert ended.phase == "complete" and awaiting_step(ended) is None
    assert variant.view(ended, Viewer.for_seat(0))["ended"]["seat"] == 1
    assert variant.view(ended, Viewer.for_seat(0))["winner"] == 0
    [abort] = controls.decide(state, controls.AbortMatch("void"), False)
    assert variant.evolve(state, abort).phase == "aborted"
    with pytest.raises(RuleError) as over:
        controls.decide(ended, controls.AbortMatch("again"))
    assert over.value.code == "match_over"


def test_the_bank_pays_only_for_time_beyond_the_turn_limit() -> None:
    clock = Clock.start(ClockSettings(turn_seconds=10, bank_seconds=30), 2).step(1, 0.0, 4)
    assert clock.deadline == 40.0
    clock = clock.step(0, 25.0, 5)  # seat 1 took 25 s: 15 from its bank
    assert clock.banks == (30.0, 15.0) and clock.deadline == 65.0
    assert clock.step(0, 30.0, 6) is clock  # the same turn goes on
    assert clock.step(None, 100.0, 7).banks == (0.0, 15.0)


def test_clock_settings_are_checked() -> None:
    for bad in ({}, {"turn_seconds": 0}, {"turn_seconds": True}, {"bank_seconds": "1"},
                {"turn_seconds": 1, "on_timeout": "x"}, {"turn_seconds": 1, "y": 2}):
        with pytest.raises(OptionError):
            ClockSettings.parse(bad)


def test_auto_play_is_safe() -> None:
    assert safe([{"type": "draw", "source": "discard"}, {"type": "pass"}]) == {
        "type": "pass"}
    draws = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    assert safe(draws) == draws[0]
    discards = [{"type": "discard", "card": c} for c in ("2C", "AH", "JK", "KS")]
    knock = [{"type": "knock", "discard": "KS"}]
    assert safe(discards + knock, ["KS"]) == discards[3]
    assert safe(discards) == discards[1]  # the ace: 11 minus points in rummy
    assert safe(knock) is None
