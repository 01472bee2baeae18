"""The ``basic`` level: a sound greedy game from the seat's information state alone.

Gin and gem (``knocking``) play by deadwood; rummy and rami (``rummy``) open, place and
shed. Neither looks ahead or samples deals: ``expert`` does.
"""

from __future__ import annotations

import random

from domain.bots.basic import knocking, rummy
from domain.bots.information import InfoState
from domain.bots.policies import Action
from domain.rummy.state import RummyState


def play(info: InfoState, rng: random.Random) -> Action:
    """The basic level's action for ``info``'s seat (``rng`` is unused: basic is greedy
    and deterministic, so the same information state always gets the same move)."""
    if isinstance(info.table, RummyState):
        return rummy.play(info)
    return knocking.play(info)
