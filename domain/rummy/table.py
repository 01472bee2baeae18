"""Rummy's arithmetic of melds and the table: values, the opening, what a seat may place.

Values (docs/rules.md 3.1, 3.4, 3.6): an ace counts 11 in a set, in Q-K-A and in hand, 1 in
A-2-3; a joker counts as the card it stands for on the table and 20 in hand.

A placement (lay-off, joker exchange, new meld) is only allowed when the turn can still
end afterwards *(ours, from docs/rules.md 3.3 and 3.5)*: a card stays in hand for the discard,
and every freed joker can still be placed. Without that a seat could reach a position
with no legal move at all; refusing the move that leads there is what keeps every game
finite and every view's ``legal_actions`` non-empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from domain.cards import JOKER, rank_of, sort_cards
from domain.melds import Meld
from domain.table_melds import (
    ace_is_high,
    exchanged,
    hand_melds,
    joker_readings,
    laid_off,
    without_cards,
)

JOKER_IN_HAND = 20
ACE_IN_HAND = 11


def card_value(card: str, high_ace: bool = True) -> int:
    """A natural card's value: faces and tens 10, pips their number, the ace 11 or 1."""
    rank = rank_of(card)
    if rank == 0:
        return ACE_IN_HAND if high_ace else 1
    return min(rank + 1, 10)


def minus_points(hand: Sequence[str]) -> int:
    """What the cards left in a hand cost at the end of a round (docs/rules.md 3.6)."""
    return sum(JOKER_IN_HAND if card == JOKER else card_value(card) for card in hand)


def meld_value(meld: Meld) -> int:
    """A meld's opening value: the cards it stands for, the ace 1 only in A-2-3."""
    high = meld.kind == "set" or ace_is_high(meld)
    return sum(card_value(card, high) for card in meld.represents)


# --- the best opening ------------------------------------------------------------------------


@dataclass(frozen=True)
class Opening:
    """The highest-valued new melds a hand could lay down at once, keeping a card."""

    value: int
    melds: tuple[Meld, ...]


def best_opening(hand: Sequence[str]) -> Opening:
    """Exact: the most valuable disjoint melds of ``hand`` that leave a card to discard."""
    return _best_opening(tuple(sort_cards(hand)))


@lru_cache(maxsize=4096)
def _best_opening(hand: tuple[str, ...]) -> Opening:
    candidates = hand_melds(hand)
    memo: dict[tuple[tuple[str, ...], bool], tuple[int, tuple[Meld, ...]]] = {}
    value, melds = _pack(hand, False, candidates, memo)
    return Opening(max(value, 0), melds if value > 0 else ())


def _pack(left: tuple[str, ...], kept: bool, candidates: tuple[Meld, ...],
          memo: dict) -> tuple[int, tuple[Meld, ...]]:
    """Best (value, melds) from ``left``: its first natural card is kept or lies in a meld.

    ``kept`` says a card already stays in hand; a packing that keeps none is worth -1.
    """
    key = (left, kept)
    if key in memo:
        return memo[key]
    naturals = [card for card in left if card != JOKER]
    if not naturals:
        best: tuple[int, tuple[Meld, ...]] = (0, ()) if kept or left else (-1, ())
        memo[key] = best
        return best
    first = naturals[0]
    rest = without_cards(left, [first]) or ()
    value, melds = _pack(rest, True, candidates, memo)
    best = (value, melds)
    for meld in candidates:
        if first not in meld.cards:
            continue
        after = without_cards(left, meld.cards)
        if after is None:
            continue
        value, melds = _pack(after, kept, candidates, memo)
        if value >= 0 and value + meld_value(meld) > best[0]:
            best = (value + meld_value(meld), (meld, *melds))
    memo[key] = best
    return best


# --- placements ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """One placement and the position it leaves (table as melds by id, hand, jokers owed)."""

    action: dict
    table: tuple[tuple[int, Meld], ...]
    hand: tuple[str, ...]
    owed: int


Table = tuple[tuple[int, Meld], ...]


def _replaced(table: Table, meld_id: int, meld: Meld) -> Table:
    return tuple((i, meld if i == meld_id else m) for i, m in table)


def lay_offs(table: Table, hand: tuple[str, ...], owed: int) -> Iterator[Placement]:
    """Every lay-off of a card of ``hand`` onto a table meld, in table then hand order."""
    for meld_id, meld in table:
        for card in sort_cards(set(hand)):
            rest = without_cards(hand, [card]) or ()
            if card == JOKER:
                for stands_for in joker_readings(meld):
                    grown = laid_off(meld, JOKER, stands_for)
                    if grown is not None:
                        yield Placement({"type": "lay_off", "meld": meld_id, "card": JOKER,
                                         "represents": stands_for},
                                        _replaced(table, meld_id, grown), rest, max(0, owed - 1))
            else:
                grown = laid_off(meld, card)
                if grown is not None:
                    yield Placement({"type": "lay_off", "meld": meld_id, "card": card},
                                    _replaced(table, meld_id, grown), rest, owed)


def exchanges(table: Table, hand: tuple[str, ...], owed: int) -> Iterator[Placement]:
    """Every joker exchange ``hand`` allows (docs/rules.md 3.5)."""
    for meld_id, meld in table:
        for stands_for in sort_cards({r for c, r in zip(meld.cards, meld.represents,
                                                        strict=True) if c == JOKER}):
            if stands_for not in hand:
                continue
            freed = exchanged(meld, stands_for)
            if freed is not None:
                rest = (without_cards(hand, [stands_for]) or ()) + (JOKER,)
                yield Placement({"type": "exchange_joker", "meld": meld_id, "card": stands_for},
                                _replaced(table, meld_id, freed), rest, owed + 1)


def new_melds(table: Table, hand: tuple[str, ...], owed: int,
              next_id: int) -> Iterator[Placement]:
    """Every single new meld ``hand`` could lay down."""
    for meld in hand_melds(hand):
        rest = without_cards(hand, meld.cards) or ()
        action = {"type": "lay_down", "melds": [meld_action(meld)]}
        yield Placement(action, table + ((next_id, meld),), rest,
                        max(0, owed - meld.cards.count(JOKER)))


def meld_action(meld: Meld) -> dict:
    """A new meld as an action sends it: ``represents`` only when it holds a joker."""
    out: dict = {"cards": list(meld.cards)}
    if JOKER in meld.cards:
        out["represents"] = list(meld.represents)
    return out


def can_end_turn(table: Table, hand: tuple[str, ...], owed: int) -> bool:
    """Whether the turn can still end: a card is left to discard, and the jokers freed
    this turn can be placed one after another, each keeping a card in hand."""
    if not hand:
        return False
    if owed == 0:
        return True
    if JOKER not in hand:
        return False
    next_id = max((i for i, _ in table), default=0) + 1
    joker_moves = [p for p in lay_offs(table, hand, owed) if p.action["card"] == JOKER]
    joker_moves += [p for p in new_melds(table, hand, owed, next_id) if p.owed < owed]
    return any(can_end_turn(p.table, p.hand, p.owed) for p in joker_moves)


def placements(table: Table, hand: tuple[str, ...], owed: int,
               next_id: int) -> Iterator[Placement]:
    """Every single placement an opened seat may make now: lay-offs, exchanges, new melds."""
    for placement in (*lay_offs(table, hand, owed), *exchanges(table, hand, owed),
                      *new_melds(table, hand, owed, next_id)):
        if can_end_turn(placement.table, placement.hand, placement.owed):
            yield placement


def can_go_out(table: Table, hand: tuple[str, ...], owed: int = 0) -> bool:
    """Whether an opened seat holding ``hand`` can place all but one card this turn and
    discard that one (the last-card rule, docs/rules.md 3.3). Only asked of two-card hands."""
    if len(hand) == 1 and owed == 0:
        return True
    next_id = max((i for i, _ in table), default=0) + 1
    return any(can_go_out(p.table, p.hand, p.owed)
               for p in placements(table, hand, owed, next_id) if len(p.hand) < len(hand)
               or p.action["type"] == "exchange_joker")
