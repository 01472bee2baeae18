"""Computer players: what a bot of each level plays for its seat.

A bot seat's move is an ordinary seat command (``variant.command(seat, action)``) that
the service sends on the bot's behalf; this package only chooses the action. ``choose``
is the one entry point the service calls. It sees the match's state, but hands each
level only the seat's information state (``information.information_state``: its own
cards and what is public, every other card face down), so no level can use another
seat's hidden cards: they are not in what it is given.

- ``random`` (``policies.uniform``): any legal action, each as likely.
- ``basic`` (``basic``): a greedy game; gin and gem by deadwood, rummy and rami by
  opening early and shedding cards.
- ``expert`` (``expert``): searches over ``information.determinise``d deals:
  information-set Monte Carlo tree search in gin and gem, sampled plans in rummy and
  rami, within a budget counted in iterations (``budget_ms`` scales it).

``policies`` also holds the move policies that need no information state: the clock's
automatic move (``safe``) and the pickers of tests and benches (``keen``, ``eager``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from domain.bots import basic, expert
from domain.bots.information import InfoState, information_state
from domain.bots.policies import Action, uniform
from domain.variant import Variant

LEVELS = ("random", "basic", "expert")
"""The bot levels, weakest first."""

Level = Callable[[InfoState, random.Random], Action]


def _random(info: InfoState, rng: random.Random) -> Action:
    return uniform(rng, info.legal_actions())


PLAYERS: dict[str, Level] = {"random": _random, "basic": basic.play, "expert": expert.play}
"""Each level's policy: the seat's information state and the bot's randomness in, one of
the seat's legal actions out."""


def choose(level: str, variant: Variant, state: Any, seat: int, seed: bytes, *,
           budget_ms: int | None = None) -> dict[str, Any]:
    """The action the bot of ``level`` plays for ``seat`` now, one of
    ``variant.legal_actions(state, seat)``; the same for the same arguments (``seed`` is
    the bot's own randomness, never derived from the match's secret seed).

    ``budget_ms`` is the expert's budget (default ``expert.budget.DEFAULT_MS``, at most
    ``expert.budget.MAX_MS``), counted in iterations calibrated to that much CPU, so the
    answer never depends on the machine; the other levels need none."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; one of {LEVELS}")
    info = information_state(variant, state, seat)
    if level == "expert":
        return dict(expert.play(info, random.Random(seed), budget_ms=budget_ms))
    return dict(PLAYERS[level](info, random.Random(seed)))
