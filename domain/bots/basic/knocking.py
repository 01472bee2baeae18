"""``basic`` in gin and gem: take what lowers deadwood, throw what leaves the least, knock
early (docs/rules.md 1.3-1.5, 2.2-2.6).

- Drawing: take the upcard or a discard (in three-player gem, down to any depth offered)
  when the least deadwood a legal discard then leaves is below the hand's deadwood now;
  else draw from the stock, or pass the upcard.
- Discarding: big gin when the hand allows it; else the discard leaving the least
  deadwood, and among equals the card an opponent is least likely to want (near fewer
  of the cards they were seen to take) and, then, the one with fewer unseen cards that
  would meld with it. Knock with that discard whenever the rules allow early in the
  hand, later only with little deadwood (``LATE_KNOCK``); gin whenever it is there.

Everything is read from the information state: the taken cards are public, so taking
them is played out on the seat's own table (``decide`` and ``evolve`` of a draw from
the discard pile read no hidden card).
"""

from __future__ import annotations

from typing import Any

from domain.bots.information import InfoState
from domain.bots.policies import PASS, STOCK, Action
from domain.cards import JOKER, rank_of, sort_key, suit_of, without
from domain.gem.rules import solver_for as gem_solver
from domain.gem.state import GemState
from domain.gin.rules import solver_for as gin_solver
from domain.knocking import DISCARD
from domain.melds import MeldSolver

BIG_GIN = {"type": "big_gin"}
EARLY_DISCARDS = 12
"""Discards into a hand (all seats') during which any knock the rules allow is made."""
LATE_KNOCK = 5
"""The most deadwood knocked with after that: by then the others' hands have improved
and an undercut grows likelier. Measured between basic bots over 1,000 two-player gin
hands: fewer hands won than by always knocking (452 to 547), more hand points (9,089 to
8,271)."""
_NEVER = 1 << 30


def play(info: InfoState) -> Action:
    legal = info.legal_actions()
    if not legal:
        raise ValueError(f"seat {info.seat} has nothing to play")
    if info.phase == DISCARD:
        return _discard(info, legal)
    return _draw(info, legal)


def solver(info: InfoState) -> MeldSolver:
    """The hand's meld solver (gem's changes with the dice: Queen's Diamonds)."""
    table = info.table
    return gem_solver(table) if isinstance(table, GemState) else gin_solver(table.options)


# --- drawing ---------------------------------------------------------------------------


def _draw(info: InfoState, legal: list[dict[str, Any]]) -> Action:
    best, chosen = solver(info).deadwood(info.hand), None
    for action in legal:
        if action["type"] == "draw" and action["source"] == "discard":
            after = deadwood_after_taking(info, action)
            if after < best:
                best, chosen = after, action
    if chosen is not None:
        return dict(chosen)
    for quiet in (STOCK, PASS):
        if quiet in legal:
            return dict(quiet)
    return dict(legal[0])


def deadwood_after_taking(info: InfoState, action: dict[str, Any]) -> int:
    """The least deadwood a legal discard leaves once the seat has taken from the discard
    pile as ``action`` says (the family's own advice, on the seat's own table)."""
    variant, table = info.variant, info.table
    for event in variant.decide(table, variant.command(info.seat, action)):
        table = variant.evolve(table, event)
    advice = variant.best_discard(table, info.seat)
    return int(advice["deadwood"]) if advice else _NEVER


# --- discarding ------------------------------------------------------------------------


def _discard(info: InfoState, legal: list[dict[str, Any]]) -> Action:
    if BIG_GIN in legal:
        return dict(BIG_GIN)
    melds = solver(info)
    left = {action["card"]: melds.deadwood(without(info.hand, action["card"]))
            for action in legal if action["type"] == "discard"}
    least = min(left.values())
    card = min((card for card, deadwood in left.items() if deadwood == least),
               key=lambda card: (wanted_by_others(info, card), outs(info, card), sort_key(card)))
    knock = {"type": "knock", "discard": card}
    if knock in legal and (least <= LATE_KNOCK or info.table.turns < EARLY_DISCARDS):
        return knock
    return {"type": "discard", "card": card}


def near(card: str, other: str) -> bool:
    """Whether two cards could be part of one set or run (same rank, or one suit within
    two ranks); a joker is near nothing, it fits everywhere alike."""
    if JOKER in (card, other) or card == other:
        return False
    if rank_of(card) == rank_of(other):
        return True
    return suit_of(card) == suit_of(other) and abs(rank_of(card) - rank_of(other)) <= 2


def wanted_by_others(info: InfoState, card: str) -> int:
    """How many of the cards the opponents were seen to take lie near ``card``."""
    return sum(near(card, taken) for seat in info.opponents() for taken in info.known(seat))


def outs(info: InfoState, card: str) -> int:
    """How many unseen cards lie near ``card``: its chances to meld later."""
    return sum(near(card, other) for other in info.unseen)
