"""The expert searches over deals its seat cannot tell from the real one, within a budget
counted in playouts, and plays the race a gin hand is."""

from __future__ import annotations

import random

import pytest

from domain.bots import choose
from domain.bots.expert import budget, fast_gin, tree
from domain.bots.information import determinise, information_state
from domain.gin import GIN
from domain.knocking import Draw
from domain.simulation import GinHand, moves
from tests.builders import act, gin_match
from tests.domain.bots.support import positions

MELDED = "4D 4S 4H 9C TC JC QC KC 2H 5S"
"""Three fours and a run of clubs: deadwood 2H and 5S."""
LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"


def taken_upcard():
    """Seat 1 has taken the upcard 3C: it may knock with 5S (deadwood 2H + 3C = 5)."""
    state = gin_match([LOOSE, MELDED], upcard="3C", stock="AH 6C 8D 2S 7S")
    state, _ = act(state, Draw(1, "discard"))
    return state


def test_a_fast_deal_is_the_determinisation_of_the_same_seed():
    for state in positions("gin", 2)[:6]:
        info = information_state(GIN, state, state.turn)
        game = fast_gin.FastGin.of(info)
        for seed in range(3):
            fast = game.sample(random.Random(seed))
            dealt = GinHand.from_state(determinise(info, random.Random(seed)))
            assert (fast.hands, fast.stock[fast.top:], fast.pile) == \
                (dealt.hands, dealt.stock[dealt.top:], dealt.pile)


def test_the_expert_knocks_as_soon_as_it_may_with_the_least_deadwood():
    state = taken_upcard()
    assert choose("expert", GIN, state, 1, b"seed") == {"type": "knock", "discard": "5S"}


def test_the_expert_takes_the_upcard_that_lets_it_knock():
    state = gin_match([LOOSE, MELDED], upcard="3C", stock="AH 6C 8D 2S 7S")
    assert choose("expert", GIN, state, 1, b"seed") == {"type": "draw", "source": "discard"}


def test_the_search_compares_every_root_move_on_the_same_deals():
    state = positions("gin", 2)[2]
    info = information_state(GIN, state, state.turn)
    game = fast_gin.FastGin.of(info)
    choice = tree.search(game, random.Random(1), 60)
    assert set(choice.means) == set(game.candidates(game.sample(random.Random(2))))
    assert choice.rounds == 60 // len(choice.means)
    assert choice.move == max(choice.means, key=lambda move: choice.means[move])
    assert moves.action(choice.move) in info.legal_actions()


def test_the_budget_counts_playouts_in_proportion_to_milliseconds():
    assert budget.scaled(200, None) == 200
    assert budget.scaled(200, budget.DEFAULT_MS * 4) == 800
    assert budget.scaled(200, budget.MAX_MS) == 8000
    assert budget.scaled(200, 1) == 4


@pytest.mark.parametrize("budget_ms", [0, -5, budget.MAX_MS + 1, 2.5, True])
def test_a_budget_out_of_range_is_refused(budget_ms):
    state = taken_upcard()
    with pytest.raises(ValueError, match="budget_ms"):
        choose("expert", GIN, state, 1, b"seed", budget_ms=budget_ms)


def test_a_larger_budget_repeats_too():
    state = positions("gin", 2)[4]
    first = choose("expert", GIN, state, state.turn, b"s", budget_ms=200)
    assert choose("expert", GIN, state, state.turn, b"s", budget_ms=200) == first
