"""The expert's game for the knock tables the fast engine does not play: gem (2 and 3
players) and gin with 3-4 players, two decks or jokers. It runs on the family's own
rules: ``information.determinise`` deals, ``legal_actions``, ``decide`` and ``evolve``
play, and the family's ``ScoreHand`` scores an ended hand.

The domain is some twenty times slower than the fast engine, so the default policy is a
cheap greedy player (``quick``: take the top discard when it joins a meld, knock when
allowed, otherwise throw the dearest card outside the hand's best melds) and a playout
stops after ``HORIZON`` moves: an unfinished hand is scored by deadwood, each seat's
margin being the others' mean deadwood less its own (what a knock would win, roughly);
an ended one by its points. As in two-player gin (``fast_gin``) the other seats play the
default policy in the tree too, and the seat knocks whenever it may.

Candidates: the draws, the default policy's first (in three-player gem also the deepest
draws offered, at most ``DEEP_DRAWS`` of them), and at a discard big gin or the knock
when allowed, else the discards of cards outside the best melds, dearest first, then the
rest, at most ``DISCARDS_KEPT``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from domain.bots.expert.rewards import Reward
from domain.bots.information import InfoState, determinise
from domain.bots.policies import ENDERS, PASS, STOCK
from domain.cards import pip_value, sort_key
from domain.gem.rules import solver_for as gem_solver
from domain.gem.state import GemState
from domain.gin.rules import solver_for as gin_solver
from domain.knocking import DISCARD, DRAW, UPCARD
from domain.melds import MeldSolver
from domain.steps import ScoreHand
from domain.variant import Variant

Move = tuple[tuple[str, Any], ...]
"""An action object as a hashable, ordered key (``dict(move)`` is the action again)."""
HORIZON = 16
"""Moves a playout makes before the hand is scored by deadwood."""
DEEP_DRAWS = 2
DISCARDS_KEPT = 4
"""How many discards a node of the seat's searches."""
IN_PLAY = (UPCARD, DRAW, DISCARD)


def move_of(action: dict[str, Any]) -> Move:
    return tuple(sorted(action.items()))


class Knocking:
    """SO-ISMCTS's ``Game`` over a family's states, seen from ``info``'s seat."""

    def __init__(self, info: InfoState, reward: Reward, horizon: int | None = HORIZON) -> None:
        self.info = info
        self.variant: Variant = info.variant
        self.reward = reward
        self.horizon = horizon
        """Moves a playout makes before scoring by deadwood; None: to the hand's end."""

    def sample(self, rng: random.Random) -> Any:
        return determinise(self.info, rng)

    def to_move(self, state: Any) -> int:
        return int(state.turn)

    def candidates(self, state: Any) -> Sequence[Move]:
        if state.phase not in IN_PLAY:
            return ()
        if state.turn != self.info.seat:
            return (move_of(quick(self.variant, state)),)
        legal = self.variant.legal_actions(state, state.turn)
        if state.phase != DISCARD:
            draws = [action for action in legal if action.get("depth", 1) == 1]
            deep = [action for action in legal if action.get("depth", 1) > 1]
            first = quick(self.variant, state, legal)
            rest = [action for action in draws + deep[-DEEP_DRAWS:] if action != first]
            return [move_of(action) for action in [first, *rest]]
        found = ordered(state, legal, solver(state))
        if found[0]["type"] in ENDERS:
            return [move_of(found[0])]
        return [move_of(action) for action in found[:DISCARDS_KEPT]]

    def apply(self, state: Any, move: Move) -> Any:
        variant = self.variant
        for event in variant.decide(state, variant.command(state.turn, dict(move))):
            state = variant.evolve(state, event)
        return state

    def fork(self, state: Any) -> Any:
        return state  # frozen: every move makes a new one

    def outcome(self, state: Any, rng: random.Random) -> list[float]:
        """Each seat's margin once ``state`` is played out (see the module's docstring)."""
        variant, moves = self.variant, 0
        while state.phase in IN_PLAY and (self.horizon is None or moves < self.horizon):
            state = self.apply(state, move_of(quick(variant, state)))
            moves += 1
        if state.phase in IN_PLAY:
            return margins(deadwoods(state))
        (scored,) = variant.decide(state, ScoreHand())
        return margins(scored.data["points"], points=True)

    def playout(self, state: Any, rng: random.Random) -> list[float]:
        return [self.reward(margin) for margin in self.outcome(state, rng)]


def solver(state: Any) -> MeldSolver:
    return gem_solver(state) if isinstance(state, GemState) else gin_solver(state.options)


def deadwoods(state: Any) -> list[int]:
    melds = solver(state)
    return [melds.deadwood(hand) for hand in state.hands]


def margins(values: Sequence[int], points: bool = False) -> list[float]:
    """Each seat's margin over the mean of the others: of points scored, or of deadwood
    (less is better)."""
    total, others = sum(values), len(values) - 1
    sign = 1 if points else -1
    return [sign * (value - (total - value) / others) for value in values]


def ordered(state: Any, legal: list[dict[str, Any]], melds: MeldSolver) -> list[dict[str, Any]]:
    """A discard node's actions, best-looking first (see the module's docstring)."""
    hand = state.hands[state.turn]
    loose = set(hand) - set(melds.melded_cards(hand))

    def rank(action: dict[str, Any]) -> tuple[Any, ...]:
        kind = action["type"]
        card = action.get("card") or action.get("discard") or ""
        return (kind != "big_gin", kind != "knock", card not in loose,
                -pip_value(card) if card else 0, sort_key(card) if card else ())
    return sorted(legal, key=rank)


def quick(variant: Variant, state: Any, legal: list[dict[str, Any]] | None = None
          ) -> dict[str, Any]:
    """The default policy (see the module's docstring)."""
    if legal is None:
        legal = variant.legal_actions(state, state.turn)
    if state.phase != DISCARD:
        take = {"type": "draw", "source": "discard"}
        if take in legal:
            hand = state.hands[state.turn] + (state.discard_pile[-1],)
            if state.discard_pile[-1] in solver(state).melded_cards(hand):
                return take
        return dict(PASS if PASS in legal else STOCK)
    best = ordered(state, legal, solver(state))[0]
    if best["type"] == "discard":
        knock = {"type": "knock", "discard": best["card"]}
        if knock in legal:
            return knock
    return best
