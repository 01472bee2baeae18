"""domain.steps, the clock's decision and the controls' ending: given a match, when its
step, deadline or control falls due, then exactly the events the log stores."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from typing import Any

import pytest

from domain import controls
from domain.bots.policies import uniform
from domain.chain import canonical_json
from domain.clocks import Clock, ClockSettings, decide_timeout
from domain.errors import RuleError
from domain.events import SEED_REVEALED, Event
from domain.evolving import replace, replay
from domain.fairness import (
    UNFOLDED_EVENTS,
    MatchSecrets,
    commitment,
    shuffled_deck,
)
from domain.gem import GEM
from domain.gem import state as gem_phases
from domain.gin import GIN
from domain.gin import state as gin_phases
from domain.gin.rules import Draw, Knock, PassUpcard
from domain.gin.state import GinState
from domain.rummy import RAMI, RUMMY
from domain.rummy import state as rummy_phases
from domain.steps import (
    BONUSES,
    SCORING,
    ScoreHand,
    StepSecrets,
    SystemStep,
    awaiting_step,
    decide_step,
    pending_step,
)
from domain.variant import Variant
from domain.viewer import Viewer
from tests.builders import act, gin_match, play

SECRETS = MatchSecrets(b"steps-test-seed", ("lucky 7", ""))
LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"
KNOCKER = "4D 4S 4H 9C TC JC QC KC 2H 5S"
SCORED_AND_DEALT = "f6e68d8f80a5b85c2c366319f7ed0839b469722f9fb84ddf7015d3699852ecc8"
"""sha256 of the canonical JSON of the scoring step's events below, as
``workers.jobs.job_events`` appended them before the steps moved into the domain."""


def dealt(variant: Variant, players: int = 2, **options: Any) -> Any:
    """A match of ``family`` just dealt from ``SECRETS``, dealer 0."""
    parsed = variant.parse_options({"first_dealer": 0, **options}, players)
    names = [f"P{seat}" for seat in range(players)]
    opening = variant.start_match(names, parsed, 0, SECRETS.deal(variant, parsed, 1))
    return replay(variant, opening)


def knocked(knocker: str = KNOCKER, draw: str = "AH", discard: str = "5S",
            defender: str = LOOSE, upcard: str = "3C", **options: Any) -> GinState:
    """Hand 1 of a gin match (dealer 0) that seat 1 has just ended by knocking."""
    state = gin_match([defender, knocker], upcard=upcard, stock=draw, **options)
    for command in (PassUpcard(1), PassUpcard(0), Draw(1, "stock"), Knock(1, discard)):
        state, _ = act(state, command)
    return state


def digest(events: list[Event]) -> str:
    return hashlib.sha256(canonical_json(
        [[e.type, dict(e.data), e.schema] for e in events]).encode()).hexdigest()


# --- pending_step --------------------------------------------------------------------------

PHASES = [
    (GIN, gin_phases, (gin_phases.UPCARD, gin_phases.DRAW, gin_phases.DISCARD)),
    (GEM, gem_phases, (gem_phases.UPCARD, gem_phases.DRAW, gem_phases.DISCARD)),
    (RUMMY, rummy_phases, (rummy_phases.DRAW, rummy_phases.PLAY)),
    (RAMI, rummy_phases, (rummy_phases.DRAW, rummy_phases.PLAY)),
]


@pytest.mark.parametrize("variant, phases, seat_phases", PHASES,
                         ids=[variant.name for variant, _, _ in PHASES])
class TestPendingStep:
    def test_a_seat_to_act_means_no_step(self, variant, phases, seat_phases):
        state = dealt(variant)
        assert state.phase in seat_phases and pending_step(variant, state) is None
        for phase in seat_phases:
            assert pending_step(variant, replace(state, phase=phase)) is None

    def test_an_ended_hand_waits_for_scoring(self, variant, phases, seat_phases):
        state = replace(dealt(variant), phase=phases.SCORING)
        assert pending_step(variant, state) == SystemStep(SCORING, 1)
        assert awaiting_step(state) == "scoring"

    def test_a_match_at_its_end_waits_for_its_bonuses(self, variant, phases, seat_phases):
        state = replace(dealt(variant), phase=phases.COMPLETING, hand_number=4)
        assert pending_step(variant, state) == SystemStep(BONUSES, 4)
        assert awaiting_step(state) == "bonuses"

    def test_a_due_deal_is_part_of_scoring_not_a_step(self, variant, phases, seat_phases):
        state = replace(dealt(variant), phase=phases.DEALING)
        assert pending_step(variant, state) is None and awaiting_step(state) == "deal"

    @pytest.mark.parametrize("final", [controls.COMPLETE, controls.ABORTED])
    def test_an_ended_match_waits_for_nothing(self, variant, phases, seat_phases, final):
        assert pending_step(variant, replace(dealt(variant), phase=final)) is None


# --- decide_step ---------------------------------------------------------------------------


class TestScoring:
    def test_it_scores_reveals_the_seed_then_deals_the_next_hand(self):
        state = knocked()
        events = decide_step(GIN, state, SystemStep(SCORING, 1), SECRETS)
        assert [e.type for e in events] == ["HandScored", "SeedRevealed", "HandDealt"]
        assert events[0] == GIN.decide(state, ScoreHand())[0]
        assert events[1] == SECRETS.hand_revealed(1)
        deal = events[2].data
        seed = SECRETS.hand_seed(2)
        assert deal["hand_number"] == 2 and deal["commitment"] == commitment(seed)
        assert deal["deck"] == list(shuffled_deck(GIN.deck(state.options), seed))
        assert deal["dealer"] == events[0].data["next_dealer"]

    def test_its_events_are_the_ones_the_log_always_stored(self):
        events = decide_step(GIN, knocked(), SystemStep(SCORING, 1), SECRETS)
        assert digest(events) == SCORED_AND_DEALT

    def test_a_step_already_taken_is_not_due_again(self):
        state = knocked()
        after = play(state, decide_step(GIN, state, SystemStep(SCORING, 1), SECRETS))
        assert after.hand_number == 2 and pending_step(GIN, after) is None
        for stale in (SystemStep(SCORING, 1), SystemStep(SCORING, 2), SystemStep(BONUSES, 2)):
            with pytest.raises(RuleError) as refused:
                decide_step(GIN, after, stale, SECRETS)
            assert refused.value.code == "step_not_due"

    @pytest.mark.parametrize("policy", ["alternate", "winner", "loser"])
    def test_a_tied_gin_hand_is_dealt_again_by_the_same_dealer(self, policy):
        # 5 against 5 with no undercut on a tie: nobody won hand 1, so dealer 0 deals hand 2
        state = knocked("7H 8H 9H 4D 4S 4H JC QC KC 5S", draw="AS", discard="AS",
                        defender="2C 3C 4C 9S 9D 9C 6D 7D 8D 5H", upcard="KD",
                        undercut_on_tie=False, next_dealer=policy)
        scored, _, deal = decide_step(GIN, state, SystemStep(SCORING, 1), SECRETS)
        assert scored.data["result"] == "tie"
        assert deal.type == "HandDealt" and deal.data["dealer"] == state.dealer == 0


class TestBonuses:
    def test_a_hand_that_reaches_the_target_leaves_the_bonuses_to_pay(self):
        state = knocked(target=1)
        events = decide_step(GIN, state, SystemStep(SCORING, 1), SECRETS)
        assert [e.type for e in events] == ["HandScored", "SeedRevealed"]
        assert pending_step(GIN, play(state, events)) == SystemStep(BONUSES, 1)

    def test_the_bonuses_reveal_the_match_seed_and_complete_the_match(self):
        state = knocked(target=1)
        state = play(state, decide_step(GIN, state, SystemStep(SCORING, 1), SECRETS))
        events = decide_step(GIN, state, SystemStep(BONUSES, 1), SECRETS)
        assert [e.type for e in events] == ["MatchSeedRevealed", "MatchCompleted"]
        assert events[0] == SECRETS.match_revealed()
        done = play(state, events)
        assert done.phase == "complete" and done.completion["winner"] == 1
        assert pending_step(GIN, done) is None


def test_match_secrets_are_step_secrets() -> None:
    secrets: StepSecrets = SECRETS
    options = GIN.parse_options({}, 2)
    assert secrets.deal(GIN, options, 3) == GIN.deal_for(options, SECRETS, 3)
    assert secrets.hand_revealed(3).data == {"hand_number": 3,
                                             "seed": SECRETS.hand_seed(3).hex()}


# --- decide_timeout ------------------------------------------------------------------------


def timed(on_timeout: str = "forfeit") -> Clock:
    """Seat 1's turn started at t=100 (version 4) with 10 seconds to play."""
    return Clock.start(ClockSettings(turn_seconds=10, on_timeout=on_timeout), 2).step(1, 100.0, 4)


class TestTimeout:
    def test_nothing_happens_before_the_deadline(self):
        assert decide_timeout(GIN, dealt(GIN), timed(), 4, SECRETS, now=109.99) is None

    def test_nothing_happens_when_no_turn_runs(self):
        idle = timed().step(None, 105.0, 5)
        assert decide_timeout(GIN, dealt(GIN), idle, 5, SECRETS, now=1e9) is None

    def test_at_the_deadline_the_seat_forfeits_after_the_reveals(self):
        state = dealt(GIN)
        decision = decide_timeout(GIN, state, timed(), 4, SECRETS, now=110.0)
        assert decision is not None
        assert [e.type for e in decision.events] == [
            "SeedRevealed", "MatchSeedRevealed", "SeatForfeited"]
        assert decision.events[0] == SECRETS.hand_revealed(1)
        assert decision.command == {"control": "forfeit", "seat": 1, "reason": "time ran out",
                                    "by": "clock"}
        assert decision.command_id == "clock:1:4:forfeit"
        assert play(state, decision.events[2:]).completion["winner"] == 0

    def test_auto_play_makes_a_safe_move_for_the_seat(self):
        state = dealt(GIN)
        decision = decide_timeout(GIN, state, timed("auto_play"), 6, SECRETS, now=111.0)
        assert decision is not None
        assert decision.command == {"seat": 1, "action": {"type": "pass"}, "auto": True}
        assert decision.command_id == "clock:1:4:6"
        assert decision.events == GIN.decide(state, PassUpcard(1))

    def test_auto_play_discards_the_best_discard(self):
        state = dealt(GIN)
        for command in (PassUpcard(1), PassUpcard(0), Draw(1, "stock")):
            state, _ = act(state, command)
        decision = decide_timeout(GIN, state, timed("auto_play"), 7, SECRETS, now=111.0)
        assert decision is not None
        action = decision.command["action"]
        assert action["type"] == "discard"
        assert action["card"] in GIN.view(state, Viewer.for_seat(1))["best_discard"]["cards"]

    def test_auto_play_without_a_safe_move_forfeits(self):
        stuck = dataclasses.replace(GIN, legal_actions=lambda state, seat: [])
        decision = decide_timeout(stuck, dealt(GIN), timed("auto_play"), 6, SECRETS, now=111.0)
        assert decision is not None and decision.command_id == "clock:1:4:forfeit"
        assert decision.events[-1].type == "SeatForfeited"


# --- ending_events -------------------------------------------------------------------------


class TestEndingEvents:
    def test_a_forfeit_mid_hand_reveals_the_hand_and_the_match_seed_first(self):
        state = dealt(RUMMY, players=3)
        events = controls.ending_events(RUMMY, state, controls.ForfeitSeat(2, "gone"), SECRETS)
        assert events[:2] == [SECRETS.hand_revealed(1), SECRETS.match_revealed()]
        assert events[2].type == "SeatForfeited" and len(events) == 3

    def test_an_abort_of_an_ended_unscored_hand_still_reveals_it(self):
        state = knocked()
        assert state.phase == "scoring"
        events = controls.ending_events(GIN, state, controls.AbortMatch("void"), SECRETS)
        assert [e.type for e in events] == ["SeedRevealed", "MatchSeedRevealed", "MatchAborted"]

    def test_a_scored_hand_is_not_revealed_twice(self):
        state = knocked()
        scored = GIN.evolve(state, GIN.decide(state, ScoreHand())[0])
        assert scored.phase == "dealing" and controls.hand_seed_revealed(scored)
        events = controls.ending_events(GIN, scored, controls.AbortMatch("void"), SECRETS)
        assert [e.type for e in events] == ["MatchSeedRevealed", "MatchAborted"]

    def test_an_ended_match_cannot_be_ended_again(self):
        state = replace(knocked(), phase="completing")
        with pytest.raises(RuleError) as refused:
            controls.ending_events(GIN, state, controls.AbortMatch("void"), SECRETS)
        assert refused.value.code == "match_over"


def playout(variant: Variant, seed: int, **options: Any) -> list[tuple[Any, set[int]]]:
    """Every state of a random match between appends, with the hands the log revealed."""
    rng = random.Random(seed)
    state, revealed, seen = dealt(variant, **options), set(), []
    while state.phase != "complete":
        seen.append((state, set(revealed)))
        step = pending_step(variant, state)
        if step is not None:
            events = decide_step(variant, state, step, SECRETS)
        else:
            action = uniform(rng, variant.legal_actions(state, state.turn))
            events = variant.decide(state, variant.command(state.turn, action))
        revealed |= {e.data["hand_number"] for e in events if e.type == SEED_REVEALED.name}
        state = fold(variant, state, events)
    return seen


def fold(variant: Variant, state: Any, events: list[Event]) -> Any:
    for event in events:
        if event.type not in UNFOLDED_EVENTS:
            state = variant.evolve(state, event)
    return state


@pytest.mark.parametrize("variant, options", [
    (GIN, {"target": 40}), (GEM, {"target": 40}), (RUMMY, {"rounds": 2})],
    ids=["gin", "gem", "rummy"])
def test_the_phase_says_whether_the_log_revealed_the_hand(variant, options):
    seen = playout(variant, 11, **options)
    controllable = [(s, r) for s, r in seen if s.phase not in controls.OVER_PHASES]
    assert len({s.hand_number for s, _ in controllable}) >= 2
    for state, revealed in controllable:
        assert controls.hand_seed_revealed(state) == (state.hand_number in revealed)
