"""Gin moves as small ints, and the action objects of the rules they stand for.

A search keeps moves in lists and dictionaries by the thousand, so a move is an int:
``DISCARD + card`` and ``KNOCK + card`` for a card's index (``domain.cards.card_index``),
and one int each for the draws, the pass and big gin. ``action`` turns a move into the
action object ``domain.gin.rules.legal_actions`` lists (and a bot sends), ``move`` the
other way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.cards import card_index, standard_deck

CARDS = 52
DISCARD = 0
"""``DISCARD + card``: discard that card."""
KNOCK = DISCARD + CARDS
"""``KNOCK + card``: knock (or go gin) discarding that card."""
DRAW_STOCK = KNOCK + CARDS
DRAW_DISCARD = DRAW_STOCK + 1
"""Take the top of the discard pile (also: take the first upcard when it is offered)."""
PASS = DRAW_DISCARD + 1
"""Pass the first upcard."""
BIG_GIN = PASS + 1
MOVES = BIG_GIN + 1
"""How many distinct moves there are (every move is below this)."""

CODES = standard_deck()
"""Card codes by index."""


def action(move: int) -> dict[str, Any]:
    """The action object of a move, as the rules list it."""
    if move < KNOCK:
        return {"type": "discard", "card": CODES[move - DISCARD]}
    if move < DRAW_STOCK:
        return {"type": "knock", "discard": CODES[move - KNOCK]}
    if move == DRAW_STOCK:
        return {"type": "draw", "source": "stock"}
    if move == DRAW_DISCARD:
        return {"type": "draw", "source": "discard"}
    if move == PASS:
        return {"type": "pass"}
    if move == BIG_GIN:
        return {"type": "big_gin"}
    raise ValueError(f"not a gin move: {move!r}")


def move(action: Mapping[str, Any]) -> int:
    """The move of an action object (a knock's submitted melds are not a move's)."""
    kind = action.get("type")
    if kind == "discard":
        return DISCARD + card_index(action["card"])
    if kind == "knock":
        return KNOCK + card_index(action["discard"])
    if kind == "draw":
        return DRAW_DISCARD if action.get("source") == "discard" else DRAW_STOCK
    if kind == "pass":
        return PASS
    if kind == "big_gin":
        return BIG_GIN
    raise ValueError(f"not a gin action: {dict(action)!r}")
