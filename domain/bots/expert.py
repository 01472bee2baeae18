"""The ``expert`` level: for now it plays the ``basic`` game.

Its place is information-set Monte Carlo tree search (Cowling, Powley and White, 2012)
over deals sampled with ``domain.bots.information.determinise``, within a per-move
budget; it will replace ``play`` here, with the same signature, and like every level it
is handed the seat's ``InfoState`` only.
"""

from __future__ import annotations

import random

from domain.bots import basic
from domain.bots.information import InfoState
from domain.bots.policies import Action


def play(info: InfoState, rng: random.Random) -> Action:
    """The expert's action for ``info``'s seat: today ``basic``'s."""
    return basic.play(info, rng)
