"""Every level plays only legal moves, decides from what its seat knows alone, and the
``basic`` level beats ``random``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.bots import LEVELS, choose
from domain.variants import VARIANTS
from tests.domain.bots.support import TABLES, positions, twin
from tests.playouts import bots, new_match, steps


@pytest.mark.parametrize("name,players", TABLES)
@pytest.mark.parametrize("level", LEVELS)
def test_a_choice_does_not_depend_on_cards_the_seat_cannot_see(level, name, players):
    variant, rng = VARIANTS[name], random.Random(f"{level}{name}{players}")
    for number, state in enumerate(positions(name, players)):
        seat, seed = state.turn, f"bot {number}".encode()
        chosen = choose(level, variant, state, seat, seed)
        for _ in range(2):
            assert choose(level, variant, twin(state, seat, rng), seat, seed) == chosen


@pytest.mark.parametrize("name,players", TABLES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_choice_is_a_legal_action_of_the_seat(level, name, players):
    variant = VARIANTS[name]
    for number, state in enumerate(positions(name, players, 30)):
        seat = state.turn
        action = choose(level, variant, state, seat, number.to_bytes(2, "big"))
        assert action in variant.legal_actions(state, seat)
        assert variant.decide(state, variant.command(seat, action))


@pytest.mark.parametrize("name,players", TABLES)
def test_bots_of_every_level_play_a_hand_to_its_end(name, players):
    variant, rng = VARIANTS[name], random.Random(f"{name}{players}")
    levels = [LEVELS[(seat + 1) % len(LEVELS)] for seat in range(players)]
    start, _, secrets = new_match(rng, players, variant)
    for _, events in steps(rng, start, secrets, variant, policy=bots(*levels)):
        if any(event.type == "HandScored" for event in events):
            return
    pytest.fail("the hand did not end")


def hand_winners(name: str, hands: int, **options: Any) -> list[str]:
    """The level that won each of ``hands`` two-seat hands of ``basic`` against
    ``random`` (seats swapped every hand); "" when nobody won."""
    variant, winners = VARIANTS[name], []
    for number in range(hands):
        levels = ("basic", "random") if number % 2 == 0 else ("random", "basic")
        rng = random.Random(f"{name} hand {number}")
        start, _, secrets = new_match(rng, 2, variant, **options)
        for _, events in steps(rng, start, secrets, variant, policy=bots(*levels)):
            scored = [event.data for event in events if event.type == "HandScored"]
            if scored:
                winner = scored[0]["winner"]
                winners.append("" if winner is None else levels[winner])
                break
    return winners


def test_basic_beats_random_in_most_gin_hands():
    winners = hand_winners("gin", 20)
    assert winners.count("basic") >= 16, winners


def test_basic_beats_random_in_most_rummy_rounds():
    winners = hand_winners("rummy", 10)
    assert winners.count("basic") >= 8, winners
