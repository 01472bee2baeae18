"""What moves are worth in points: each of a few actions played out on the same sampled
deals, for the post-game analysis (``domain.bots.analysis``).

The search says which move is best; the analysis also asks how much worse another move
is, in the game's own points. So every action is played on each of ``samples``
determinisations of the seat's information state, the same deals and the same playout
randomness for all, and the seat's mean margin is taken:

- gin and gem: the hand played out to its end by the expert's default policy (the fast
  engine's greedy beginner, or ``knocking.quick`` with no horizon); the margin is the
  seat's hand points less the others' (their mean, with three or four players);
- rummy and rami: ``rummy.outcome``'s minus-points margin after the next seat's turn.

A knock is appraised by its discard: the arrangement a knocker submits only chooses
among equals (docs/rules.md 1.5).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.bots.expert import fast_gin, knocking, rummy
from domain.bots.expert.rewards import Reward
from domain.bots.information import InfoState
from domain.rummy.state import RummyState
from domain.simulation import moves

NEUTRAL = Reward(scale=1, win_weight=0)
"""Unused by appraisals (they read margins, not rewards); the games want one."""


@dataclass(frozen=True)
class Appraisal:
    """The mean margin each action led to, in points, over ``samples`` deals."""

    values: tuple[float, ...]
    samples: int


def appraise(info: InfoState, actions: Sequence[dict[str, Any]], rng: random.Random,
             samples: int) -> Appraisal:
    """Each of ``actions`` (legal for ``info``'s seat) played on the same ``samples``
    determinisations (see the module's docstring)."""
    if samples < 1:
        raise ValueError("an appraisal needs at least one sample")
    if isinstance(info.table, RummyState):
        return Appraisal(tuple(rummy.values(info, actions, rng, samples)), samples)
    if fast_gin.supports(info):
        fast = fast_gin.FastGin.of(info)
        return _played(fast, info.seat, [moves.move(action) for action in actions], rng,
                       samples)
    slow = knocking.Knocking(info, NEUTRAL, horizon=None)
    return _played(slow, info.seat, [knocking.move_of(_plain(action)) for action in actions],
                   rng, samples)


def _plain(action: dict[str, Any]) -> dict[str, Any]:
    """A knock without the arrangement it may submit."""
    return {key: value for key, value in action.items() if key != "melds"}


def _played(game: Any, seat: int, chosen: list[Any], rng: random.Random,
            samples: int) -> Appraisal:
    totals = [0.0] * len(chosen)
    for _ in range(samples):
        deal = game.sample(rng)
        seed = rng.getrandbits(32)
        for index, move in enumerate(chosen):
            state = game.apply(game.fork(deal), move)
            totals[index] += game.outcome(state, random.Random(seed))[seat]
    return Appraisal(tuple(total / samples for total in totals), samples)
