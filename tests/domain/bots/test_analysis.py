"""The post-game analysis weighs every decision of a finished match against the expert's,
in the game's points, the same way every time, and never a match still in play."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain.bots import choose
from domain.bots.analysis import (
    BLUNDER,
    FINE,
    INACCURACY,
    KNOCKING_THRESHOLDS,
    MISTAKE,
    MatchNotOver,
    analyse,
    label,
)
from domain.fairness import Deal, MatchSecrets
from domain.gin import GIN
from domain.variant import Variant
from domain.variants import VARIANTS
from tests.builders import prepared_deck
from tests.playouts import new_match, steps

MELDED = "4D 4S 4H 9C TC JC QC KC 2H 5S"
LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"
QUICK = {"budget_ms": 10, "samples": 80}


def finish(variant: Variant, state: Any, log: list, secrets: MatchSecrets,
           first_moves: list[dict[str, Any]], level: str = "basic") -> list:
    """``log`` after ``first_moves`` (by whoever is on turn) and then ``level`` bots for
    every seat until the match is over."""
    scripted = list(first_moves)

    def policy(rng: random.Random, variant: Variant, state: Any, seat: int) -> dict[str, Any]:
        if scripted:
            return scripted.pop(0)
        return choose(level, variant, state, seat, rng.randbytes(8), budget_ms=10)

    for _, events in steps(random.Random(5), state, secrets, variant, policy=policy):
        log.extend(events)
    return log


def one_hand_match(first_moves: list[dict[str, Any]]) -> list:
    """A gin match to 1 point (its first won hand ends it) dealt MELDED to seat 1, which is
    offered the upcard 3C first, then the first moves, then basic bots."""
    options = GIN.parse_options({"target": 1}, 2)
    deck = prepared_deck([LOOSE, MELDED], "3C", "AH 6C 8D 2S 7S")
    log = list(GIN.start_match(["Ann", "Bob"], options, 0, Deal(deck, b"p", prepared=True)))
    state = GIN.initial_state()
    for event in log:
        state = GIN.evolve(state, event)
    return finish(GIN, state, log, MatchSecrets(b"s" * 16), first_moves)


def test_labels_follow_the_thresholds():
    inaccuracy, mistake, blunder = KNOCKING_THRESHOLDS
    assert label(0.0, KNOCKING_THRESHOLDS) == FINE
    assert label(inaccuracy - 0.01, KNOCKING_THRESHOLDS) == FINE
    assert label(inaccuracy, KNOCKING_THRESHOLDS) == INACCURACY
    assert label(mistake, KNOCKING_THRESHOLDS) == MISTAKE
    assert label(blunder - 0.01, KNOCKING_THRESHOLDS) == MISTAKE
    assert label(blunder, KNOCKING_THRESHOLDS) == BLUNDER


def test_throwing_a_card_of_a_made_meld_when_deadwood_was_there_is_a_mistake_or_worse():
    log = one_hand_match([{"type": "draw", "source": "discard"},
                          {"type": "discard", "card": "4D"}])
    decisions = analyse(GIN, log, **QUICK)
    broken = next(d for d in decisions if d.played == {"type": "discard", "card": "4D"})
    assert broken.seat == 1 and broken.expert == {"type": "knock", "discard": "5S"}
    assert broken.label in (MISTAKE, BLUNDER), broken
    assert broken.samples == QUICK["samples"]
    for decision in decisions:
        assert decision.label == label(decision.cost, KNOCKING_THRESHOLDS)


def test_the_experts_own_moves_cost_about_nothing():
    variant = VARIANTS["gin"]
    state, log, secrets = new_match(random.Random(11), 2, variant, target=1)
    log = finish(variant, state, log, secrets, [], level="expert")
    decisions = analyse(variant, log, budget_ms=10, samples=200)
    assert decisions
    assert sum(d.cost for d in decisions) / len(decisions) < KNOCKING_THRESHOLDS[0]
    assert all(d.label != BLUNDER for d in decisions)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_an_analysis_repeats_for_a_seed_and_its_records_are_json(name):
    variant = VARIANTS[name]
    options = {"rounds": 1} if name in ("rummy", "rami") else {"target": 1}
    state, log, secrets = new_match(random.Random(4), 2, variant, **options)
    log = finish(variant, state, log, secrets, [], level="basic")
    first = analyse(variant, log, budget_ms=5, samples=4)
    assert first == analyse(variant, log, budget_ms=5, samples=4)
    assert first and {d.seat for d in first} == {0, 1}
    for decision in first:
        assert json.loads(json.dumps(decision.to_dict())) == decision.to_dict()
        assert decision.played != decision.expert or decision.cost == 0.0


def test_a_match_in_play_is_refused():
    state, log, _ = new_match(random.Random(2), 2, GIN)
    with pytest.raises(MatchNotOver, match="not over"):
        analyse(GIN, log)
