"""A bot's choice is always a legal action for its seat, the same for the same seed."""

from __future__ import annotations

import random

import pytest

from domain.bots import LEVELS, choose
from domain.variants import VARIANTS
from tests.playouts import new_match


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_bot_plays_a_legal_action_and_the_same_one_for_the_same_seed(level, name):
    variant = VARIANTS[name]
    state, _, _ = new_match(random.Random(7), 2, variant)
    seat = state.turn
    action = choose(level, variant, state, seat, b"seed")
    assert action in variant.legal_actions(state, seat)
    assert choose(level, variant, state, seat, b"seed") == action


def test_an_unknown_level_is_refused():
    state, _, _ = new_match(random.Random(7))
    with pytest.raises(ValueError, match="unknown bot level"):
        choose("grandmaster", VARIANTS["gin"], state, state.turn, b"seed")
