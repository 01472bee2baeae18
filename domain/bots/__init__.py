"""Computer players: what a bot of each level plays for its seat.

A bot seat's move is an ordinary seat command (``variant.command(seat, action)``) that
the service sends on the bot's behalf; this package only chooses the action. ``choose``
is the one entry point the service calls: it sees the match's state, but a level decides
from the seat's information state alone (its own cards and what is public), so no bot can
use another seat's hidden cards.
"""

from __future__ import annotations

import random
from typing import Any

from domain.variant import Variant

LEVELS = ("random", "basic", "expert")
"""The bot levels, weakest first."""


def choose(level: str, variant: Variant, state: Any, seat: int, seed: bytes) -> dict[str, Any]:
    """The action the bot of ``level`` plays for ``seat`` now, one of
    ``variant.legal_actions(state, seat)``; the same for the same arguments (``seed`` is
    the bot's own randomness, never derived from the match's secret seed)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; one of {LEVELS}")
    legal = variant.legal_actions(state, seat)
    return dict(random.Random(seed).choice(legal))
