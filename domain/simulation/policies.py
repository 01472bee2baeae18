"""Playout policies: who plays both seats of a ``GinHand`` when a search plays it out.

A policy picks the move of the seat on turn from ``hand.legal()``. ``uniform`` and
``knocker`` are random players (``GinHand.playout`` runs them with most of a turn
inlined); ``greedy`` plays like a beginner, so its hands end as real ones do.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import TYPE_CHECKING

from domain.gin.state import DISCARD, UPCARD
from domain.mask_deadwood import pip_deadwood
from domain.simulation import moves

if TYPE_CHECKING:
    from domain.simulation.gin import GinHand

_TABLES = pip_deadwood()
_DEADWOOD = _TABLES.deadwood
_DISCARD_DEADWOOD = _TABLES.discard_deadwood

Policy = Callable[["GinHand", Random], int]
"""Picks the move of the seat on turn (one of ``hand.legal()``)."""


def uniform(hand: GinHand, rng: Random) -> int:
    """Any legal move, each as likely."""
    legal = hand.legal()
    return legal[int(rng.random() * len(legal))]


def knocker(hand: GinHand, rng: Random) -> int:
    """Knock (or go big gin) whenever allowed, any other legal move at random otherwise:
    random play that ends hands the way players do, with a knock."""
    legal = hand.legal()
    if hand.phase == DISCARD and legal[-1] >= moves.KNOCK:
        enders = [move for move in legal if move >= moves.KNOCK]
        return enders[int(rng.random() * len(enders))]
    return legal[int(rng.random() * len(legal))]


def greedy(hand: GinHand, rng: Random) -> int:
    """A beginner: take the discard when it lowers the deadwood, discard a card that
    leaves the least (one of them at random), knock or go gin as soon as allowed, big gin
    first. Playouts with it end the way real hands do, mostly with a knock."""
    cards = hand.hands[hand.turn]
    if hand.phase == DISCARD:
        legal = hand.legal()
        if legal[-1] == moves.BIG_GIN:
            return moves.BIG_GIN
        if legal[-1] >= moves.KNOCK:
            knocks = [move for move in legal if move >= moves.KNOCK]
            left = [_DEADWOOD(cards ^ 1 << (move - moves.KNOCK)) for move in knocks]
            least = min(left)
            return rng.choice([move for move, value in zip(knocks, left, strict=True)
                               if value == least])
        _, best = _TABLES.best_discards(cards)
        good = [move for move in legal if best >> move & 1]
        if not good:  # the only best discard is the card just taken
            left = [_DEADWOOD(cards ^ 1 << move) for move in legal]
            good = [move for move, value in zip(legal, left, strict=True) if value == min(left)]
        return good[int(rng.random() * len(good))]
    legal = hand.legal()
    if moves.DRAW_DISCARD in legal and \
            _DISCARD_DEADWOOD(cards | 1 << hand.pile[-1]) < _DEADWOOD(cards):
        return moves.DRAW_DISCARD
    return moves.PASS if hand.phase == UPCARD else moves.DRAW_STOCK
