"""Deadwood of one-deck, joker-free hands held as 52-bit masks (docs/rules.md 0, 1.2).

A hand is an int with bit ``card_index`` set for each card it holds (suit-major, so each
suit is 13 bits). Runs never compete with each other: in a hand with no sets, a card melds
exactly when it lies in a stretch of three or more of its suit, so the deadwood of a suit
is one table look-up (``dead``) and of a hand four. Sets are what make a hand hard, and a
hand holds few ranks three or four times. So the exact minimum is taken over the ways to
use those ranks (no set, or any three or all four of their cards), each scored by the four
look-ups; a rank none of whose cards could be in a run is always melded whole.

The best discard of an eleven-card hand is the same minimum with one more table per suit
(``gain``: the best change one card's removal makes to that suit's deadwood), because the
discarded card is either out of every set or the choice of sets already left it out.
The meld solver (``domain.melds``) answers its one-deck, joker-free hands here, and the
fast simulation (``domain.simulation``) plays on these masks directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

SUIT = (1 << 13) - 1
"""One suit of a mask: ``mask >> 13 * suit & SUIT``."""
RANKS = 13
_INFINITY = 1 << 30


def run_cards(pattern: int) -> int:
    """The cards of one suit's 13-bit pattern that lie in a stretch of three or more."""
    starts = pattern & pattern >> 1 & pattern >> 2
    return starts | starts << 1 | starts << 2


RUN = [run_cards(pattern) for pattern in range(1 << RANKS)]
"""``run_cards`` of every suit pattern."""


SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""A rank pattern times ``SPREAD`` is the mask of that rank in every suit."""
_SUITS_AT = {sum(1 << (13 * suit) for suit in range(4) if pattern >> suit & 1): pattern
             for pattern in range(16)}


def set_ranks(mask: int) -> int:
    """The ranks (13-bit pattern) a hand holds three or four times."""
    c, d, h, s = mask & SUIT, mask >> 13 & SUIT, mask >> 26 & SUIT, mask >> 39
    return c & d & (h | s) | h & s & (c | d)


def _sets(rank: int, suits: tuple[int, ...]) -> int:
    return sum(1 << (suit * RANKS + rank) for suit in suits)


def _options(rank: int, held: int, in_runs: int) -> tuple[int, ...]:
    """The ways worth trying to use a rank held in ``held`` (4-bit suit patterns) some of
    whose cards (``in_runs``) also fit a run: the mask of the cards its set takes, 0 for
    none. A set of three that leaves out a card no run could use is never better than
    the set of four, so it is not tried."""
    suits = tuple(suit for suit in range(4) if held >> suit & 1)
    out = [0, _sets(rank, suits)]
    if len(suits) == 4:
        out += [_sets(rank, tuple(other for other in suits if other != suit))
                for suit in suits if in_runs >> suit & 1]
    return tuple(out)


_OPTIONS = tuple(tuple(tuple(_options(rank, held, in_runs & held) for in_runs in range(16))
                       for held in range(16)) for rank in range(RANKS))
"""``_options`` by (rank, suits held, suits whose card fits a run)."""


def set_choices(mask: int, runs: int, ranks: int) -> tuple[int, ...] | list[int]:
    """Every way worth trying to take sets from ``ranks`` (a 13-bit pattern) of a hand
    whose cards in ``runs`` fit a run: the mask of the cards the sets hold."""
    bit = ranks & -ranks
    ranks ^= bit
    rank = bit.bit_length() - 1
    choices: tuple[int, ...] | list[int] = \
        _OPTIONS[rank][_SUITS_AT[mask >> rank & SPREAD]][_SUITS_AT[runs >> rank & SPREAD]]
    while ranks:
        bit = ranks & -ranks
        ranks ^= bit
        rank = bit.bit_length() - 1
        options = _OPTIONS[rank][_SUITS_AT[mask >> rank & SPREAD]][_SUITS_AT[runs >> rank & SPREAD]]
        choices = [a | b for a in choices for b in options]
    return choices


class MaskDeadwood:
    """Deadwood tables for one set of card values (52 of them, by card index)."""

    def __init__(self, values: Sequence[int]) -> None:
        if len(values) != 4 * RANKS or min(values) < 0:
            raise ValueError("52 card values, none negative")
        self.values = tuple(values)
        tables: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}
        for suit in range(4):
            row = tuple(values[suit * RANKS:(suit + 1) * RANKS])
            if row not in tables:
                tables[row] = _suit_tables(row)
        rows = [tuple(values[suit * RANKS:(suit + 1) * RANKS]) for suit in range(4)]
        self.dead = tuple(tables[row][0] for row in rows)
        """Per suit: the deadwood of every 13-bit pattern when only runs meld."""
        self.gain = tuple(tables[row][1] for row in rows)
        """Per suit: the least change to ``dead`` that removing one card makes (very
        large for an empty pattern, which has no card to remove)."""
        self._breaking = [[self._break_cost(rank, held) for held in range(16)]
                          for rank in range(RANKS)]
        """Per rank and suits held: what discarding from a set of them costs."""

    def _break_cost(self, rank: int, held: int) -> int:
        """A set of four loses a card and stays a set; a set of three broken up for its
        dearest card leaves the other two as deadwood."""
        values = [self.values[suit * RANKS + rank] for suit in range(4) if held >> suit & 1]
        if len(values) != 3:
            return 0
        return sum(values) - max(values)

    def deadwood(self, mask: int) -> int:
        """Minimum deadwood of a hand over every set of disjoint melds."""
        d0, d1, d2, d3 = self.dead
        c, d, h, s = mask & SUIT, mask >> 13 & SUIT, mask >> 26 & SUIT, mask >> 39
        three = c & d & (h | s) | h & s & (c | d)
        if not three:
            return d0[c] + d1[d] + d2[h] + d3[s]
        c, d, h, s = RUN[c], RUN[d], RUN[h], RUN[s]
        conflict = three & (c | d | h | s)
        if three != conflict:
            mask &= ~((three ^ conflict) * SPREAD)
            if not conflict:
                return d0[mask & SUIT] + d1[mask >> 13 & SUIT] + d2[mask >> 26 & SUIT] \
                    + d3[mask >> 39]
        best = _INFINITY
        for taken in set_choices(mask, c | d << 13 | h << 26 | s << 39, conflict):
            m = mask ^ taken
            value = d0[m & SUIT] + d1[m >> 13 & SUIT] + d2[m >> 26 & SUIT] + d3[m >> 39]
            if value < best:
                best = value
        return best

    def discard_deadwood(self, mask: int) -> int:
        """Minimum deadwood left after discarding one card (an empty hand: very large).

        A rank held three or four times none of whose cards fits a run is melded whole,
        and offers its own discard: one card of a set of four (which costs nothing), or
        the whole set of three broken up (it leaves the other two as deadwood), which is
        worth it only when every other discard breaks a run.
        """
        d0, d1, d2, d3 = self.dead
        g0, g1, g2, g3 = self.gain
        c, d, h, s = mask & SUIT, mask >> 13 & SUIT, mask >> 26 & SUIT, mask >> 39
        three = c & d & (h | s) | h & s & (c | d)
        if not three:
            # min() is a call: four comparisons are three times cheaper
            least, other = g0[c], g1[d]
            if other < least:
                least = other
            other = g2[h]
            if other < least:
                least = other
            other = g3[s]
            if other < least:
                least = other
            return d0[c] + d1[d] + d2[h] + d3[s] + least
        c, d, h, s = RUN[c], RUN[d], RUN[h], RUN[s]
        conflict = three & (c | d | h | s)
        floor = _INFINITY
        whole = three ^ conflict
        if whole:
            breaking = self._breaking
            left = whole
            while left:
                bit = left & -left
                left ^= bit
                rank = bit.bit_length() - 1
                cost = breaking[rank][_SUITS_AT[mask >> rank & SPREAD]]
                if cost < floor:
                    floor = cost
            mask &= ~(whole * SPREAD)
        choices: tuple[int, ...] | list[int] = (0,)
        if conflict:
            choices = set_choices(mask, c | d << 13 | h << 26 | s << 39, conflict)
        best = _INFINITY
        for taken in choices:
            m = mask ^ taken
            c, d, h, s = m & SUIT, m >> 13 & SUIT, m >> 26 & SUIT, m >> 39
            least, other = g0[c], g1[d]
            if other < least:
                least = other
            other = g2[h]
            if other < least:
                least = other
            other = g3[s]
            if other < least:
                least = other
            if floor < least:
                least = floor
            value = d0[c] + d1[d] + d2[h] + d3[s] + least
            if value < best:
                best = value
        return best

    def discards_within(self, mask: int, limit: int) -> int:
        """The cards whose discard leaves deadwood at most ``limit`` (a mask).

        Discarding a card worth v leaves at least the hand's deadwood less v, so only
        cards dear enough are searched.
        """
        whole = self.deadwood(mask)
        values = self.values
        out = 0
        left = mask
        while left:
            low = left & -left
            left ^= low
            if whole - values[low.bit_length() - 1] <= limit \
                    and self.deadwood(mask ^ low) <= limit:
                out |= low
        return out

    def best_discards(self, mask: int) -> tuple[int, int]:
        """(minimum deadwood after one discard, the mask of every card that reaches it)."""
        best = self.discard_deadwood(mask)
        whole = self.deadwood(mask)
        values = self.values
        cards = 0
        left = mask
        while left:
            low = left & -left
            left ^= low
            if whole - values[low.bit_length() - 1] <= best \
                    and self.deadwood(mask ^ low) == best:
                cards |= low
        return best, cards


def _suit_tables(values: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """(dead, gain) of one suit whose 13 ranks are worth ``values``."""
    size = 1 << RANKS
    worth = [0] * size
    for pattern in range(1, size):
        low = pattern & -pattern
        worth[pattern] = worth[pattern ^ low] + values[low.bit_length() - 1]
    dead = [worth[pattern & ~RUN[pattern]] for pattern in range(size)]
    gain = [_INFINITY] * size
    for pattern in range(1, size):
        here = dead[pattern]
        best = _INFINITY
        left = pattern
        while left:
            low = left & -left
            left ^= low
            change = dead[pattern ^ low] - here
            if change < best:
                best = change
        gain[pattern] = best
    return dead, gain


@cache
def mask_deadwood(values: tuple[int, ...]) -> MaskDeadwood:
    """The tables for ``values``, built once per distinct set of values."""
    return MaskDeadwood(values)


def pip_deadwood() -> MaskDeadwood:
    """The tables for gin's and gem's values (ace 1, pips, ten and faces 10)."""
    return mask_deadwood(tuple(min(rank + 1, 10) for _ in range(4) for rank in range(RANKS)))
