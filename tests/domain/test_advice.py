"""The advice a seat view gives (``best_discard``) is always a legal move."""

from __future__ import annotations

import random

import pytest

from domain.cards import without
from domain.gem import GEM
from domain.gem.rules import solver_for as gem_solver
from domain.gin import GIN
from domain.gin.rules import solver_for as gin_solver
from domain.viewer import Viewer
from tests.playouts import new_match, steps

SOLVERS = {"gin": lambda state: gin_solver(state.options), "gem": gem_solver}



@pytest.mark.parametrize("variant,players", [(GIN, 2), (GIN, 3), (GEM, 2), (GEM, 3)],
                         ids=["gin-2", "gin-3", "gem-2", "gem-3"])
def test_a_view_advises_only_legal_discards_and_the_least_deadwood_they_leave(variant,
                                                                              players):
    """``best_discard`` is advice a client may follow blindly: never the card just taken
    from the pile (docs/rules.md 1.4) nor one that strands gem's deep card (2.6)."""
    rng = random.Random(11)
    start, _, seed = new_match(rng, players, variant, target=80)
    advised = 0
    for state, _ in steps(rng, start, seed, variant, max_events=3000):
        if state.phase != "discard":
            continue
        view = variant.view(state, Viewer.for_seat(state.turn))
        legal = {a["card"] for a in view["legal_actions"] if a["type"] == "discard"}
        solver = SOLVERS[variant.name](state)
        left = {card: solver.deadwood(without(state.hands[state.turn], card)) for card in legal}
        advice = view["best_discard"]
        assert advice["deadwood"] == min(left.values())
        assert set(advice["cards"]) == {c for c in legal if left[c] == advice["deadwood"]}
        advised += 1
    assert advised > 50
