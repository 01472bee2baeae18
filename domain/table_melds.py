"""Melds laid face up on a table, with declared jokers (docs/rules.md 3.2 and 3.5).

A table meld is a ``domain.melds.Meld``: its physical ``cards`` (``JK`` for a joker) and,
card by card, the card each stands for (``represents``). A joker's card is declared when
it is placed and never changes, so every question about a table meld (may this card be
laid off, which joker may be exchanged) is answered from ``represents`` alone.

The rules checked here are the ones of a meld, not of a turn: a set is 3 or 4 cards of
one rank in different suits; a run is 3 or more consecutive cards of one suit, the ace
low (A-2-3) or high (Q-K-A) but never both; fewer jokers than natural cards; never two
jokers side by side in a run. Lay-offs and exchanges are valid exactly when the meld they
leave is valid, so they reuse ``declared``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations, pairwise

from domain.cards import JOKER, RANKS, SUITS, rank_of, suit_of
from domain.melds import Meld

ACE_HIGH = len(RANKS)
"""The position of an ace above the king (Q-K-A); an ace below the two is position 0."""


class MeldError(ValueError):
    """A meld the rules do not allow; ``code`` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def declared(cards: Sequence[str], represents: Sequence[str] | None = None) -> Meld:
    """The meld ``cards`` make, each joker standing for its entry in ``represents``.

    Cards may come in any order; the meld comes back in table order (a set by suit, a
    run from its low end). ``represents`` may be left out when there is no joker.
    """
    cards = tuple(cards)
    if represents is None:
        if JOKER in cards:
            raise MeldError("joker_not_declared", "say which card each joker stands for")
        represents = cards
    represents = tuple(represents)
    _check_pairs(cards, represents)
    kind, order = _shape(represents)
    pairs = sorted(zip(order, cards, represents, strict=True))
    meld = Meld(kind, tuple(c for _, c, _ in pairs), tuple(r for _, _, r in pairs))
    if kind == "run" and any(a == b == JOKER for a, b in pairwise(meld.cards)):
        raise MeldError("adjacent_jokers", "two jokers may not lie side by side in a run")
    return meld


def _check_pairs(cards: tuple[str, ...], represents: tuple[str, ...]) -> None:
    if len(cards) != len(represents):
        raise MeldError("invalid_meld", "cards and represents must have the same length")
    if len(cards) < 3:
        raise MeldError("meld_too_short", "a meld has at least three cards")
    for card, stands_for in zip(cards, represents, strict=True):
        if stands_for == JOKER:
            raise MeldError("joker_not_declared", "a joker must stand for a natural card")
        if card != JOKER and card != stands_for:
            raise MeldError("invalid_meld", f"{card} can only stand for itself")
    jokers = cards.count(JOKER)
    if jokers >= len(cards) - jokers:
        raise MeldError("too_many_jokers", "a meld needs fewer jokers than natural cards")


def _shape(represents: tuple[str, ...]) -> tuple[str, list[int]]:
    """("set" or "run", the table position of each card), or a ``MeldError``."""
    ranks = [rank_of(card) for card in represents]
    suits = [suit_of(card) for card in represents]
    if len(set(ranks)) == 1:
        if len(represents) <= len(SUITS) and len(set(suits)) == len(suits):
            return "set", suits
        raise MeldError("invalid_meld", "a set is 3 or 4 cards of one rank, all suits different")
    if len(set(suits)) == 1:
        for positions in (ranks, [ACE_HIGH if r == 0 else r for r in ranks]):
            if sorted(positions) == list(range(min(positions), min(positions) + len(positions))):
                return "run", positions
    raise MeldError("invalid_meld", "not a set or a run (K-A-2 does not wrap)")


def is_valid(cards: Sequence[str], represents: Sequence[str] | None = None) -> bool:
    try:
        declared(cards, represents)
    except MeldError:
        return False
    return True


def positions(meld: Meld) -> list[int]:
    """Run positions of a run's cards: 0 for a low ace up to ``ACE_HIGH`` for a high one."""
    low = rank_of(meld.represents[0])  # a high ace is always last, never first
    return [low + i for i in range(len(meld.represents))]


def ace_is_high(meld: Meld) -> bool:
    """Whether a run's ace (if any) sits above the king (Q-K-A)."""
    return meld.kind == "run" and rank_of(meld.represents[-1]) == 0


def laid_off(meld: Meld, card: str, represents: str | None = None) -> Meld | None:
    """``meld`` with ``card`` laid off onto it, or None when it cannot go there.

    A joker needs ``represents``; a natural card stands for itself.
    """
    stands_for = represents if card == JOKER else card
    if stands_for is None or (card != JOKER and represents not in (None, card)):
        return None
    if not _may_extend(meld, stands_for):
        return None
    try:
        return declared(meld.cards + (card,), meld.represents + (stands_for,))
    except MeldError:
        return None


def _may_extend(meld: Meld, stands_for: str) -> bool:
    """Whether a card standing for ``stands_for`` could extend ``meld`` at all: the set's
    rank in a suit it lacks, or the run's suit just below or above its ends.

    A cheap necessary condition: asking for a lay-off of every card in hand onto every
    meld on the table is the common question (legal actions, computer players), and
    almost every answer is no. ``declared`` still decides the ones that pass.
    """
    if meld.kind == "set":
        return (stands_for[0] == meld.represents[0][0]
                and all(stands_for[1] != held[1] for held in meld.represents))
    if stands_for[1] != meld.represents[0][1]:
        return False
    low = rank_of(meld.represents[0])
    high = low + len(meld.represents) - 1
    rank = rank_of(stands_for)
    return rank in (low - 1, high + 1) or (rank == 0 and high + 1 == ACE_HIGH)


def joker_readings(meld: Meld) -> tuple[str, ...]:
    """Every card a joker laid off onto ``meld`` could stand for, in table order."""
    if meld.kind == "set":
        rank = meld.represents[0][0]
        held = {card[1] for card in meld.represents}
        options = [rank + suit for suit in SUITS if suit not in held]
    else:
        suit = meld.represents[0][1]
        spots = positions(meld)
        options = [_run_card(p, suit) for p in (spots[0] - 1, spots[-1] + 1)
                   if 0 <= p <= ACE_HIGH]
    return tuple(r for r in options if laid_off(meld, JOKER, r) is not None)


def _run_card(position: int, suit: str) -> str:
    return RANKS[position % ACE_HIGH] + suit


def exchanged(meld: Meld, card: str) -> Meld | None:
    """``meld`` with the joker standing for ``card`` replaced by ``card``, or None.

    docs/rules.md 3.5: from a run any joker, from a set only when it has four cards.
    """
    if card == JOKER or (meld.kind == "set" and len(meld.cards) < len(SUITS)):
        return None
    for i, (held, stands_for) in enumerate(zip(meld.cards, meld.represents, strict=True)):
        if held == JOKER and stands_for == card:
            return Meld(meld.kind, meld.cards[:i] + (card,) + meld.cards[i + 1 :],
                        meld.represents, meld.tag)
    return None


def without_cards(hand: Sequence[str], cards: Iterable[str]) -> tuple[str, ...] | None:
    """``hand`` less one copy of each of ``cards`` (a multiset), or None if it lacks one."""
    left = list(hand)
    for card in cards:
        if card not in left:
            return None
        left.remove(card)
    return tuple(left)


# --- melds a hand could lay down --------------------------------------------------------------


def hand_melds(hand: Sequence[str]) -> tuple[Meld, ...]:
    """Every distinct meld that can be made from ``hand`` (a multiset, jokers declared).

    Sets of 3 or 4 and every run (any stretch of one suit whose gaps the hand's jokers
    fill, never two side by side, fewer jokers than naturals). This is the list a seat
    picks new melds from; any disjoint choice of them may be laid down together.
    """
    return _hand_melds(tuple(sorted(hand)))


@lru_cache(maxsize=4096)
def _hand_melds(hand: tuple[str, ...]) -> tuple[Meld, ...]:
    """``hand_melds`` of a sorted hand: the same hand is asked about at every view and
    every placement a computer player weighs, and melds are immutable."""
    counts = Counter(hand)
    jokers = counts.pop(JOKER, 0)
    naturals = set(counts)
    melds = list(_sets(naturals, jokers)) + list(_runs(naturals, jokers))
    return tuple(sorted(melds, key=_meld_order))


def _meld_order(meld: Meld) -> tuple:
    first = meld.represents[0]
    return (meld.kind != "set", suit_of(first) if meld.kind == "run" else 0,
            positions(meld)[0] if meld.kind == "run" else rank_of(first),
            len(meld.cards), meld.cards, meld.represents)


def _sets(naturals: set[str], jokers: int) -> Iterable[Meld]:
    for rank in RANKS:
        held = [suit for suit in SUITS if rank + suit in naturals]
        for size in range(2, len(held) + 1):
            for suits in combinations(held, size):
                missing = [suit for suit in SUITS if suit not in suits]
                for wild in range(max(0, 3 - size), min(jokers, size - 1, len(missing)) + 1):
                    for declared_suits in combinations(missing, wild):
                        every = sorted(suits + declared_suits, key=SUITS.index)
                        yield Meld("set",
                                   tuple(JOKER if s in declared_suits else rank + s for s in every),
                                   tuple(rank + s for s in every))


def _runs(naturals: set[str], jokers: int) -> Iterable[Meld]:
    for suit in SUITS:
        held = {p for p in range(ACE_HIGH + 1) if _run_card(p, suit) in naturals}
        if len(held) < 2:  # a run needs more naturals than jokers, so two at least
            continue
        for low in range(ACE_HIGH - 1):
            gaps: list[int] = []
            for high in range(low, min(low + len(RANKS), ACE_HIGH + 1)):
                if high not in held:
                    gaps.append(high)
                if len(gaps) > jokers:  # a longer span only has more gaps
                    break
                span = range(low, high + 1)
                count = len(span) - len(gaps)
                if (len(span) < 3 or len(gaps) >= count
                        or any(b - a == 1 for a, b in pairwise(gaps))):
                    continue
                yield Meld("run", tuple(JOKER if p in gaps else _run_card(p, suit) for p in span),
                           tuple(_run_card(p, suit) for p in span))
