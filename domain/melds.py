"""The exact meld solver for gin and gem rummy (docs/rules.md 0, 1.2, 1.7 and 2.3).

Deadwood is asked for on every view and every score, so the solver is built around the
common case. A one-deck hand without jokers is a 52-bit mask (bit ``card_index``): a
card that lies in no 3-run, in no rank held three times and in no extra template the
hand holds is deadwood whatever the arrangement, and when no card is claimed twice,
every other card melds at once. Those facts answer most hands with a dozen integer
operations; the best discard is then the dearest loose card.

Everything else (a card claimed twice, two decks, jokers) goes to an exact depth-first
search on the lowest remaining card: it is either deadwood or the lowest card of a
meld. The search state is an int with a 2-bit count per card (bits ``2 * card_index``),
so a two-deck hand is just a multiset, and results are memoised on that state. Without
jokers, runs of 3 to 5 cards are enough (a longer run splits into such pieces); with
jokers a meld is chosen by its natural cards plus a number of jokers, with runs of any
length, because a run like 5-JK-7-JK-9 cannot split.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations, product
from typing import Any

from domain.cards import JOKER, card_at, parse_cards, pip_value, sort_cards
from domain.mask_deadwood import MaskDeadwood, mask_deadwood

_INFINITY = 1 << 60
MEMO_LIMIT = 1 << 20
"""Entries the exact search's shared memo keeps before it starts again (tens of MB)."""
"""More than any deadwood: the starting bound of a minimum."""

_CARDS = 52
_RANKS = 13
_SUIT_BITS = (1 << _RANKS) - 1
_JOKER_BIT = 1 << _CARDS

_BIT = {card_at(i): 1 << i for i in range(_CARDS)}
_BIT[JOKER] = _JOKER_BIT
_BIT_OF = _BIT.__getitem__
_INDEX = {card_at(i): i for i in range(_CARDS)}
_CODE_OF_BIT = {1 << i: card_at(i) for i in range(_CARDS)}

_RUN_STARTS = sum(1 << (suit * _RANKS + rank) for suit in range(4) for rank in range(_RANKS - 2))
_EVERY_SUIT = sum(1 << (suit * _RANKS) for suit in range(4))

# The same masks with one 2-bit count field per card.
_LOW2 = sum(1 << (2 * i) for i in range(_CARDS))
_HIGH2 = _LOW2 << 1
_ALL2 = _LOW2 | _HIGH2
_JOKER_SHIFT = 2 * _CARDS + 8
_COUNT = {card_at(i): 1 << (2 * i) for i in range(_CARDS)}
_COUNT[JOKER] = 1 << _JOKER_SHIFT
_COUNT_OF = _COUNT.__getitem__
_SUIT2_BITS = (1 << (2 * _RANKS)) - 1
_RUN_STARTS2 = sum(1 << (2 * i) for i in range(_CARDS) if _RUN_STARTS >> i & 1)
_EVERY_SUIT2 = sum(1 << (2 * suit * _RANKS) for suit in range(4))
_KEEP_LOW2 = [
    sum(1 << (2 * i) for i in range(_CARDS) if i % _RANKS + distance < _RANKS)
    for distance in range(_RANKS)
]
"""Per distance k: the cards that have a card k ranks above them in their own suit."""
_ROW2 = [sum(1 << (2 * k) for k in range(1, top + 1)) for top in range(_RANKS)]
"""Per reach r: offsets 1..r of a card's row, to look up the cards above it in its suit."""
_SAME_RANK_ABOVE = [
    tuple(1 << (2 * (other * _RANKS + i % _RANKS)) for other in range(i // _RANKS + 1, 4))
    for i in range(_CARDS)
]


def _lowest(state: int) -> int:
    """Card index of the lowest card in a count state."""
    return ((state & -state).bit_length() - 1) >> 1


def _indices(state: int) -> list[int]:
    """Card indices of a count state, one entry per copy, ascending."""
    out = []
    while state:
        i = _lowest(state)
        count = state >> (2 * i) & 3
        out.extend([i] * count)
        state -= count << (2 * i)
    return out


def _present(state: int) -> int:
    """The low bit of every non-empty count field: which cards the state holds."""
    return (state | state >> 1) & _LOW2


@dataclass(frozen=True)
class Meld:
    """One meld as shown on the table: physical cards and the card each stands for."""

    kind: str
    cards: tuple[str, ...]
    represents: tuple[str, ...]
    tag: str | None = None

    def to_dict(self) -> dict:
        out: dict = {
            "kind": self.kind,
            "cards": list(self.cards),
            "represents": list(self.represents),
        }
        if self.tag is not None:
            out["tag"] = self.tag
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Meld:
        """A meld as ``to_dict`` wrote it (a knock's shown melds, read back to score)."""
        return cls(data["kind"], tuple(data["cards"]), tuple(data["represents"]),
                   data.get("tag"))


@dataclass(frozen=True)
class Arrangement:
    """Melds plus the unmatched cards; ``deadwood`` is the value of the unmatched ones."""

    deadwood: int
    melds: tuple[Meld, ...]
    unmatched: tuple[str, ...]


def meld_key(meld: Meld) -> tuple:
    """Deterministic order of melds: by the cards they stand for, then kind and tag."""
    return (
        tuple(_INDEX[card] for card in meld.represents),
        meld.kind,
        meld.tag or "",
        tuple(_INDEX.get(card, _CARDS) for card in meld.cards),
    )


def _canonical(melds: Sequence[Meld]) -> bool:
    """False when two runs of one suit touch (3-4-5H and 6-7-8H): shown as one 3..8H run.

    Splitting a run never lowers deadwood and never opens a lay-off, so the split
    readings are dropped from ``all_best`` in favour of the merged one.
    """
    ends: set[tuple[int, int]] = set()
    for meld in melds:
        if meld.kind == "run":
            low, high = _INDEX[meld.represents[0]], _INDEX[meld.represents[-1]]
            ends.add((low, high))
    if len(ends) < 2:
        return True
    highs = {high for _, high in ends}
    return not any(low - 1 in highs and low % _RANKS for low, _ in ends)


class _Search:
    """Memo tables of one exact search, and the templates it may use."""

    __slots__ = ("joker", "local", "options", "plain")

    def __init__(self, local: Sequence[Sequence[int]]) -> None:
        self.local = local
        self.plain: dict[int, int] = {}
        self.joker: dict[int, int] = {}
        self.options: dict[tuple[int, int, int], list[tuple[int, int, str | int]]] = {}


class MeldSolver:
    """Minimum deadwood and meld arrangements of a hand; see the module docstring."""

    def __init__(
        self,
        *,
        values: Callable[[str], int] = pip_value,
        joker_value: int = 15,
        extra_templates: Iterable[tuple[str, tuple[str, ...], str | None]] = (),
    ) -> None:
        self._val = [values(card_at(i)) for i in range(_CARDS)]
        if min(self._val) < 0 or joker_value < 0:
            raise ValueError("card values must not be negative")
        self._joker_value = joker_value
        self._positive = min(self._val) > 0
        self._value_tables = self._build_value_tables()
        self._value_classes = self._build_value_classes()
        self._extra = self._build_extra(extra_templates)
        self._plain = not self._extra
        self.masks: MaskDeadwood | None = mask_deadwood(tuple(self._val)) if self._plain else None
        """The tables that answer one-deck, joker-free hands as masks (no extra templates)."""
        self._extra_by_min: list[list[int]] = [[] for _ in range(_CARDS)]
        self._extra_by_cards: dict[tuple[str, ...], list[int]] = {}
        for number, (_, cards, _, state) in enumerate(self._extra):
            self._extra_by_min[_lowest(state)].append(number)
            self._extra_by_cards.setdefault(tuple(sort_cards(cards)), []).append(number)
        self._extra_groups = self._group_extra()
        self._mask_groups = [
            (_mask_of(pool), smallest, masks, frozenset(masks))
            for pool, smallest, templates in self._extra_groups
            for masks in [tuple(_mask_of(t) for t in templates)]
        ]
        self._templates = self._build_templates()
        self._reach = self._build_reach()
        self._mask_templates = [tuple(map(_mask_of, templates)) for templates in self._templates]
        self._solve = lru_cache(maxsize=1 << 14)(self._solve_state)
        self._discard = lru_cache(maxsize=1 << 14)(self._discard_state)
        self._all_best = lru_cache(maxsize=1 << 12)(self._all_best_state)
        self._melded_deadwood = lru_cache(maxsize=1 << 15)(self._melded_search)
        self._memo: dict[int, int] = {}
        self._mask_best_discard = lru_cache(maxsize=1 << 15)(self._mask_discard_of)

    # -- construction -------------------------------------------------------------------

    def _build_value_tables(self) -> list[list[int]]:
        """Value of every subset of one suit, so a mask's value is four list look-ups."""
        tables: list[list[int]] = []
        for suit in range(4):
            values = self._val[suit * _RANKS : (suit + 1) * _RANKS]
            if tables and values == self._val[:_RANKS]:
                tables.append(tables[0])
                continue
            table = [0] * (1 << _RANKS)
            for x in range(1, 1 << _RANKS):
                low = x & -x
                table[x] = table[x ^ low] + values[low.bit_length() - 1]
            tables.append(table)
        return tables

    def _build_value_classes(self) -> list[tuple[int, int]]:
        """(value, mask of the cards worth it), highest first: finds the best discard."""
        classes: dict[int, int] = {}
        for i, value in enumerate(self._val):
            classes[value] = classes.get(value, 0) | 1 << i
        return sorted(classes.items(), reverse=True)

    @staticmethod
    def _build_extra(
        templates: Iterable[tuple[str, tuple[str, ...], str | None]],
    ) -> list[tuple[str, tuple[str, ...], str | None, int]]:
        out = []
        for kind, cards, tag in templates:
            codes = parse_cards(cards)
            if not codes or JOKER in codes or len(set(codes)) != len(codes):
                raise ValueError(f"a meld template needs distinct natural cards: {cards!r}")
            out.append((kind, codes, tag, sum(1 << (2 * _INDEX[c]) for c in codes)))
        return out

    def _group_extra(self) -> list[tuple[int, int, tuple[int, ...]]]:
        """Extra templates by (kind, tag), with the union of their cards and the smallest
        size: a hand with fewer of a group's cards than that skips the whole group (a
        gem stash needs four cards of one gem, which few hands hold)."""
        groups: dict[tuple[str, str | None], list[int]] = {}
        for kind, _, tag, state in self._extra:
            groups.setdefault((kind, tag), []).append(state)
        out = []
        for states in groups.values():
            pool = 0
            for state in states:
                pool |= state
            out.append((pool, min(state.bit_count() for state in states), tuple(states)))
        return out

    def _build_reach(self) -> list[int]:
        """Per card i, both count bits of every card a meld with lowest card i may use:
        its rank in higher suits, its suit above it, the cards of its extra templates."""
        reach = []
        for i in range(_CARDS):
            cards = [other for other in range(i + 1, _CARDS) if other % _RANKS == i % _RANKS]
            cards += range(i + 1, i + _RANKS - i % _RANKS)
            for _, _, _, state in self._extra:
                if _lowest(state) == i:
                    cards += _indices(state)
            reach.append(sum(3 << (2 * other) for other in set(cards)))
        return reach

    def _build_templates(self) -> list[tuple[int, ...]]:
        """Per lowest card: count states of its sets, runs of 3-5 and extra templates.

        Runs longer than 5 are unions of these pieces, so with no joker the search
        never needs them; the longer runs are restored when arrangements are shown.
        """
        by_low: list[list[int]] = [[] for _ in range(_CARDS)]
        for rank in range(_RANKS):
            for size in (3, 4):
                for suits in combinations(range(4), size):
                    cards = [suit * _RANKS + rank for suit in suits]
                    by_low[cards[0]].append(sum(1 << (2 * i) for i in cards))
        for suit in range(4):
            for start in range(_RANKS - 2):
                for length in (3, 4, 5):
                    if start + length <= _RANKS:
                        first = suit * _RANKS + start
                        by_low[first].append(sum(1 << (2 * (first + k)) for k in range(length)))
        for _, _, _, state in self._extra:
            by_low[_lowest(state)].append(state)
        return [tuple(templates) for templates in by_low]

    # -- public API ---------------------------------------------------------------------

    def cache_clear(self) -> None:
        """Forget cached hands (benchmarks measure cold solves)."""
        self._solve.cache_clear()
        self._discard.cache_clear()
        self._all_best.cache_clear()
        self._melded_deadwood.cache_clear()
        self._memo.clear()
        self._mask_best_discard.cache_clear()

    def _claims(self, mask: int) -> tuple[int, int]:
        """(cards some meld could use, cards more than one meld wants) of a one-deck hand."""
        melded, conflict = _meldable(mask)
        if self._mask_groups:
            melded, conflict = self._meldable_extra(mask, melded, conflict)
        return melded, conflict

    def deadwood(self, hand: Sequence[str]) -> int:
        """Minimum deadwood of ``hand`` over every set of disjoint melds."""
        try:
            mask = sum(map(_BIT_OF, hand))
        except KeyError:
            return self.deadwood(parse_cards(hand))
        if mask < _JOKER_BIT and mask.bit_count() == len(hand):
            if self.masks is not None:
                return self.masks.deadwood(mask)
            melded, conflict = self._claims(mask)
            if not conflict:
                return self._mask_value(mask ^ melded)
            return self._mask_value(mask ^ melded) + self._melded_deadwood(melded)
        return self._solve(*self._state(hand))

    def discard_deadwood(self, hand: Sequence[str]) -> int:
        """Minimum deadwood after discarding one card: ``best_discard`` without the cards
        (what a knock check needs)."""
        if self.masks is not None:
            try:
                mask = sum(map(_BIT_OF, hand))
            except KeyError:
                return self.discard_deadwood(parse_cards(hand))
            if mask < _JOKER_BIT and mask.bit_count() == len(hand) and hand:
                return self.masks.discard_deadwood(mask)
        return self.best_discard(hand)[0]

    def best(self, hand: Sequence[str]) -> Arrangement:
        """One minimum-deadwood arrangement: the first of ``all_best``."""
        return self.all_best(hand)[0]

    def all_best(self, hand: Sequence[str]) -> tuple[Arrangement, ...]:
        """Every distinct minimum-deadwood arrangement, canonical, in a fixed order.

        Canonical: touching runs of one suit are shown merged; each joker reading (6H or
        9H in 7H 8H JK, which suit in a set) is its own arrangement, because it changes
        what the defender may lay off.
        """
        try:
            mask = sum(map(_BIT_OF, hand))
        except KeyError:
            return self.all_best(parse_cards(hand))
        if mask < _JOKER_BIT and self._plain and self._positive and mask.bit_count() == len(hand):
            melded, conflict = _meldable(mask)
            if not conflict:
                return (self._unique_arrangement(mask, melded),)
        return self._all_best(*self._state(hand))

    def _unique_arrangement(self, mask: int, melded: int) -> Arrangement:
        """The only best arrangement when no card is claimed twice (values positive):
        every rank held three or four times is one set, every stretch of run cards one
        run. A run card's rank is held at most twice, or it would be claimed twice."""
        melds = []
        loose = mask ^ melded
        while melded:
            low = melded & -melded
            i = low.bit_length() - 1
            same_rank = _EVERY_SUIT << (i % _RANKS) & mask
            if same_rank.bit_count() >= 3:
                group, kind = same_rank, "set"
            else:
                group, kind = low, "run"
                while i % _RANKS < _RANKS - 1 and melded >> (i + 1) & 1:
                    i += 1
                    group |= 1 << i
            cards = _codes(group)
            melds.append(Meld(kind, cards, cards))
            melded ^= group
        melds.sort(key=meld_key)
        return Arrangement(self._mask_value(loose), tuple(melds), _codes(loose))

    def best_discard(self, hand: Sequence[str]) -> tuple[int, tuple[str, ...]]:
        """Minimum deadwood after discarding one card, and every card that reaches it."""
        if not hand:
            raise ValueError("an empty hand has no discard")
        try:
            mask = sum(map(_BIT_OF, hand))
        except KeyError:
            return self.best_discard(parse_cards(hand))
        if mask < _JOKER_BIT and mask.bit_count() == len(hand):
            if self.masks is not None:
                deadwood, cards = self.masks.best_discards(mask)
                return deadwood, _codes(cards)
            return self._mask_best_discard(mask)
        return self._discard(*self._state(hand))

    def _mask_discard_of(self, mask: int) -> tuple[int, tuple[str, ...]]:
        """``best_discard`` of a one-deck, joker-free hand the mask tables do not cover
        (extra templates, as gem's), kept per mask like ``_melded_search``."""
        melded, conflict = self._claims(mask)
        loose = mask ^ melded
        top, top_cards = 0, 0
        if loose:
            for top, top_cards in self._value_classes:  # noqa: B007 - kept after break
                if loose & top_cards:
                    top_cards &= loose
                    break
        if not conflict and top:
            return self._mask_value(loose) - top, _codes(top_cards)
        return self._mask_discard(self._mask_value(loose), top, top_cards, melded)

    def melded_cards(self, hand: Sequence[str]) -> tuple[str, ...]:
        """The cards of a one-deck, joker-free hand that lie in some meld of that hand.

        Gem Rummy's deep draw (docs/rules.md 2.6) asks whether a card can belong to a meld in
        some arrangement: one meld holding it is enough, the rest of the hand may stay
        deadwood, so this is the union of the melds the hand holds, with no search.
        """
        codes = parse_cards(hand)
        mask = sum(map(_BIT_OF, codes))
        if mask >= _JOKER_BIT or mask.bit_count() != len(codes):
            raise ValueError("melded_cards needs a one-deck hand without jokers")
        return _codes(self._claims(mask)[0])

    def meld_options(self, cards: Sequence[str]) -> tuple[Meld, ...]:
        """Every reading of exactly these cards as one meld; () when they are none."""
        codes = parse_cards(cards)
        jokers = codes.count(JOKER)
        naturals = sorted(_INDEX[c] for c in codes if c != JOKER)
        n = len(naturals)
        if n <= jokers:
            return ()
        state = sum(1 << (2 * i) for i in naturals)
        ranks = {i % _RANKS for i in naturals}
        suits = {i // _RANKS for i in naturals}
        out: list[Meld] = []
        distinct = len(set(naturals)) == n
        if distinct and len(ranks) == 1 and 3 <= n + jokers <= 4:
            out.extend(self._readings("set", state, jokers))
        gaps = naturals[-1] - naturals[0] + 1 - n
        if distinct and len(suits) == 1 and 3 <= n + jokers <= _RANKS and gaps <= jokers:
            out.extend(self._readings("run", state, jokers))
        if not jokers:
            for number in self._extra_by_cards.get(tuple(sort_cards(codes)), ()):
                out.extend(self._readings(number, state, 0))
        return tuple(sorted(set(out), key=meld_key))

    def arrangement_of(
        self, hand: Sequence[str], groups: Sequence[Sequence[str]]
    ) -> tuple[Arrangement, ...]:
        """Every reading of a submitted arrangement; () unless each group is a meld and
        the groups are disjoint parts of the hand."""
        left = Counter(parse_cards(hand))
        options = []
        for group in groups:
            codes = parse_cards(group)
            for card in codes:
                left[card] -= 1
                if left[card] < 0:
                    return ()
            readings = self.meld_options(codes)
            if not readings:
                return ()
            options.append(readings)
        unmatched = sort_cards(left.elements())
        value = self._cards_value(unmatched)
        found = {tuple(sorted(combo, key=meld_key)): None for combo in product(*options)}
        return tuple(Arrangement(value, melds, unmatched) for melds in found)

    # -- hand states ---------------------------------------------------------------------

    @staticmethod
    def _state(hand: Sequence[str]) -> tuple[int, int]:
        """(count state of the natural cards, number of jokers)."""
        try:
            total = sum(map(_COUNT_OF, hand))
        except KeyError:
            return MeldSolver._state(parse_cards(hand))
        jokers = total >> _JOKER_SHIFT
        state = total & _ALL2
        if (state & _LOW2).bit_count() + 2 * (state & _HIGH2).bit_count() != len(hand) - jokers:
            raise ValueError("at most three copies of a card fit the solver")
        return state, jokers

    def _mask_value(self, mask: int) -> int:
        tables = self._value_tables
        return (
            tables[0][mask & _SUIT_BITS]
            + tables[1][mask >> 13 & _SUIT_BITS]
            + tables[2][mask >> 26 & _SUIT_BITS]
            + tables[3][mask >> 39]
        )

    def _state_value(self, state: int) -> int:
        return sum(self._val[i] for i in _indices(state))

    def _cards_value(self, cards: Iterable[str]) -> int:
        return sum(self._joker_value if c == JOKER else self._val[_INDEX[c]] for c in cards)

    def _split(self, state: int, jokers: int = 0) -> tuple[int, int, _Search]:
        """Set apart the cards that fit no meld of the hand: they are always deadwood.

        Without jokers a card melds only in a 3-run or a rank held three times; with
        ``jokers`` a natural card needs a partner in its meld: another card of its rank,
        or one of its suit at most ``jokers + 1`` ranks away (a gap holds one joker per
        missing card). Returns (the count state of the loose cards, of the rest, a
        search whose templates are only those the hand contains).
        """
        present = _present(state)
        clubs, diamonds = present & _SUIT2_BITS, present >> 26 & _SUIT2_BITS
        hearts, spades = present >> 52 & _SUIT2_BITS, present >> 78
        if jokers:
            ranks = (clubs | diamonds) & (hearts | spades) | clubs & diamonds | hearts & spades
            melded = ranks * _EVERY_SUIT2 & present
            for distance in range(1, min(jokers + 1, _RANKS - 1) + 1):
                keep = _KEEP_LOW2[distance]
                shift = 2 * distance
                melded |= present >> shift & keep & present
                melded |= (present & keep) << shift & present
        else:
            starts = present & present >> 2 & present >> 4 & _RUN_STARTS2
            three = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
            melded = starts | starts << 2 | starts << 4 | (three * _EVERY_SUIT2 & present)
        if not self._extra:
            part = state & melded * 3
            return state - part, part, _Search(self._templates)
        local: list[tuple[int, ...]] = [()] * _CARDS
        for pool, smallest, templates in self._extra_groups:
            if (present & pool).bit_count() >= smallest:
                for template in templates:
                    if present & template == template:
                        melded |= template
        for i in _indices(melded):
            local[i] = tuple(t for t in self._templates[i] if present & t == t)
        part = state & melded * 3
        return state - part, part, _Search(local)

    # -- exact search -------------------------------------------------------------------

    def _meldable_extra(self, mask: int, melded: int, conflict: bool) -> tuple[int, bool]:
        """``_meldable`` with the extra templates: a group (kind, tag) whose templates in
        the hand add up to one template and touch nothing else melds whole; any other
        overlap is a conflict for the exact search."""
        for pool, smallest, templates, whole in self._mask_groups:
            if (mask & pool).bit_count() >= smallest:
                union = 0
                for template in templates:
                    if mask & template == template:
                        union |= template
                if union:
                    conflict = conflict or bool(union & melded) or union not in whole
                    melded |= union
        return melded, conflict

    def _shared_memo(self) -> dict[int, int]:
        """The exact search's memo, shared by every search of this solver: a mask's least
        deadwood never changes, and hands met in a game share most of their subsets.
        Cleared when it grows past ``MEMO_LIMIT`` entries."""
        if len(self._memo) > MEMO_LIMIT:
            self._memo.clear()
        return self._memo

    def _melded_search(self, melded: int) -> int:
        """The least deadwood among cards that claim melds in conflict: searched once per
        mask, since a search over sampled deals asks about the same hands again and again
        (and extra templates, as gem's, make each search costly)."""
        return self._mask_search(melded, self._shared_memo())

    def _mask_search(self, mask: int, memo: dict[int, int]) -> int:
        """``_dfs`` for a one-deck mask of built-in melds: the fast path's exact fallback."""
        if not mask:
            return 0
        best = memo.get(mask)
        if best is not None:
            return best
        low = mask & -mask
        i = low.bit_length() - 1
        best = self._val[i] + self._mask_search(mask ^ low, memo)
        if best:
            for template in self._mask_templates[i]:
                if mask & template == template:
                    best = min(best, self._mask_search(mask ^ template, memo))
        memo[mask] = best
        return best

    def _mask_discard(
        self, loose_value: int, top: int, top_cards: int, melded: int
    ) -> tuple[int, tuple[str, ...]]:
        """``_discard_split`` for a one-deck mask (cards as masks, ``melded`` searched)."""
        memo = self._shared_memo()
        base = self._mask_search(melded, memo)
        best, cards = (loose_value - top + base, top_cards) if top_cards else (_INFINITY, 0)
        left = melded
        while left:
            low = left & -left
            left ^= low
            if loose_value + base - self._val[low.bit_length() - 1] <= best:
                value = loose_value + self._mask_search(melded ^ low, memo)
                if value < best:
                    best, cards = value, low
                elif value == best:
                    cards |= low
        return best, _codes(cards)

    def _dfs(self, state: int, search: _Search) -> int:
        """Minimum deadwood of a joker-free state: the lowest card is deadwood or the
        lowest card of one of its templates."""
        if not state:
            return 0
        memo = search.plain
        best = memo.get(state)
        if best is not None:
            return best
        i = _lowest(state)
        best = self._val[i] + self._dfs(state - (1 << (2 * i)), search)
        templates = search.local[i]
        if templates and best:
            present = _present(state)
            for template in templates:
                if present & template == template:
                    best = min(best, self._dfs(state - template, search))
        memo[state] = best
        return best

    def _jdfs(self, state: int, jokers: int, search: _Search) -> int:
        """Minimum deadwood with ``jokers`` jokers still free (exact, any run length)."""
        if not jokers:
            return self._dfs(state, search)
        if not state:
            return jokers * self._joker_value
        key = state << 9 | jokers
        memo = search.joker
        best = memo.get(key)
        if best is not None:
            return best
        i = _lowest(state)
        best = self._val[i] + self._jdfs(state - (1 << (2 * i)), jokers, search)
        for template, used, _ in self._cached_options(state, i, jokers, search):
            best = min(best, self._jdfs(state - template, jokers - used, search))
        memo[key] = best
        return best

    def _cached_options(
        self, state: int, i: int, jokers: int, search: _Search
    ) -> list[tuple[int, int, str | int]]:
        """``_options``, remembered for the search by the only cards they depend on."""
        key = (i, jokers, state & self._reach[i])
        options = search.options.get(key)
        if options is None:
            options = search.options[key] = self._options(state, i, jokers)
        return options

    def _options(self, state: int, i: int, jokers: int) -> list[tuple[int, int, str | int]]:
        """Every meld whose lowest natural card is ``i``: (naturals, jokers used, kind).

        Sets take at most one joker; a run is any subset of the suit above ``i`` whose
        gaps the jokers fill, with spare jokers at its ends, and always more natural
        cards than jokers. A joker may stand for a card the hand also holds.
        """
        present = _present(state)
        bit = 1 << (2 * i)
        out: list[tuple[int, int, str | int]] = []
        others = [other for other in _SAME_RANK_ABOVE[i] if present & other]
        if others:
            if jokers:
                out.extend((bit + other, 1, "set") for other in others)
            for first, second in combinations(others, 2):
                out.append((bit + first + second, 0, "set"))
                if jokers:
                    out.append((bit + first + second, 1, "set"))
            if len(others) == 3:
                out.append((bit + sum(others), 0, "set"))
        rank = i % _RANKS
        row = present >> (2 * i) & _ROW2[_RANKS - 1 - rank]
        ahead = []
        while row:
            low = row & -row
            ahead.append((low.bit_length() - 1) >> 1)
            row ^= low
        if not ahead or ahead[0] > jokers + 1:
            return self._extra_options(present, i, out)
        stack = [(0, bit, 1, 0, 0)]
        while stack:
            last, template, n, gaps, start = stack.pop()
            for position in range(start, len(ahead)):
                offset = ahead[position]
                grown_gaps = gaps + offset - last - 1
                if grown_gaps > jokers:
                    break
                grown = template + (bit << (2 * offset))
                most = min(n, jokers, grown_gaps + _RANKS - 1 - offset)
                for used in range(max(grown_gaps, 2 - n), most + 1):
                    out.append((grown, used, "run"))
                stack.append((offset, grown, n + 1, grown_gaps, position + 1))
        return self._extra_options(present, i, out)

    def _extra_options(
        self, present: int, i: int, out: list[tuple[int, int, str | int]]
    ) -> list[tuple[int, int, str | int]]:
        """Add the extra templates (natural, no joker) whose lowest card is ``i``."""
        for number in self._extra_by_min[i]:
            template = self._extra[number][3]
            if present & template == template:
                out.append((template, 0, number))
        return out

    def _solve_state(self, state: int, jokers: int) -> int:
        loose, part, search = self._split(state, jokers)
        return self._state_value(loose) + self._jdfs(part, jokers, search)

    def _discard_state(self, state: int, jokers: int) -> tuple[int, tuple[str, ...]]:
        loose, part, search = self._split(state, jokers)
        values = [(self._val[i], i) for i in _indices(loose)]
        top = max(values)[0] if values else 0
        top_cards = tuple(card_at(i) for value, i in values if value == top)
        loose_value = sum(value for value, _ in values)
        return self._discard_split(loose_value, top, top_cards, part, jokers, search)

    def _discard_split(
        self,
        loose_value: int,
        top: int,
        top_cards: tuple[str, ...],
        part: int,
        jokers: int,
        search: _Search,
    ) -> tuple[int, tuple[str, ...]]:
        """Best discard of a hand split as in ``_split``.

        Of the loose cards only the dearest (worth ``top``) can be best. Discarding a
        card worth v from the rest leaves at least ``base - v`` (put it back as deadwood
        and you have an arrangement of the whole hand), so most of those cards are ruled
        out without a search; the others share one memo, which is cheaper than a search
        with a "discard still to make" flag and a second pass to collect the cards.
        """
        base = self._jdfs(part, jokers, search)
        best, cards = _INFINITY, []
        if top_cards:
            best, cards = loose_value - top + base, list(top_cards)
        if jokers and loose_value + base - self._joker_value <= best:
            value = loose_value + self._jdfs(part, jokers - 1, search)
            if value < best:
                best, cards = value, []
            if value == best:
                cards.append(JOKER)
        left = part
        while left:
            i = _lowest(left)
            left &= ~(3 << (2 * i))
            if loose_value + base - self._val[i] <= best:
                value = loose_value + self._jdfs(part - (1 << (2 * i)), jokers, search)
                if value < best:
                    best, cards = value, []
                if value == best:
                    cards.append(card_at(i))
        return best, sort_cards(set(cards))

    # -- arrangements -------------------------------------------------------------------

    def _all_best_state(self, state: int, jokers: int) -> tuple[Arrangement, ...]:
        loose, part, search = self._split(state, jokers)
        best = self._jdfs(part, jokers, search)
        loose_cards = [card_at(i) for i in _indices(loose)]
        deadwood = best + self._state_value(loose)
        found: dict[tuple[tuple[Meld, ...], tuple[str, ...]], None] = {}
        for path in self._paths(part, jokers, search, {}):
            dead = loose_cards + [card_at(step[1]) for step in path if step[0] == "dead"]
            chosen = [step for step in path if step[0] != "dead"]
            left = jokers - sum(step[2] for step in chosen)
            unmatched = sort_cards(dead + [JOKER] * left)
            readings = [self._readings(step[0], step[1], step[2]) for step in chosen]
            for combo in product(*readings):
                if _canonical(combo):
                    found[tuple(sorted(combo, key=meld_key)), unmatched] = None
        ordered = sorted(found, key=lambda item: (tuple(map(meld_key, item[0])), item[1]))
        return tuple(Arrangement(deadwood, melds, unmatched) for melds, unmatched in ordered)

    def _paths(
        self, state: int, jokers: int, search: _Search, memo: dict[tuple[int, int], list]
    ) -> list[tuple]:
        """Every optimal sequence of choices (runs of any length) from this state."""
        if not state:
            return [()]
        key = (state, jokers)
        if key in memo:
            return memo[key]
        target = self._jdfs(state, jokers, search)
        i = _lowest(state)
        rest = state - (1 << (2 * i))
        out: list[tuple] = []
        if self._val[i] + self._jdfs(rest, jokers, search) == target:
            out.extend((("dead", i),) + tail for tail in self._paths(rest, jokers, search, memo))
        for template, used, kind in self._options(state, i, jokers):
            after = self._jdfs(state - template, jokers - used, search)
            if after == target:
                tails = self._paths(state - template, jokers - used, search, memo)
                out.extend(((kind, template, used),) + tail for tail in tails)
        memo[key] = out
        return out

    def _readings(self, kind: str | int, state: int, jokers: int) -> list[Meld]:
        """Every way to show natural cards ``state`` plus ``jokers`` jokers as a meld."""
        naturals = _indices(state)
        if isinstance(kind, int):
            name, cards, tag, _ = self._extra[kind]
            return [Meld(name, cards, cards, tag)]
        if kind == "set":
            rank = naturals[0] % _RANKS
            held = {i // _RANKS for i in naturals}
            missing = [suit for suit in range(4) if suit not in held]
            out = []
            for wild in combinations(missing, jokers):
                suits = sorted(held | set(wild))
                represents = tuple(card_at(suit * _RANKS + rank) for suit in suits)
                cards = tuple(JOKER if suit in wild else rep
                              for suit, rep in zip(suits, represents, strict=True))
                out.append(Meld("set", cards, represents))
            return out
        suit = naturals[0] // _RANKS
        low, high = naturals[0] % _RANKS, naturals[-1] % _RANKS
        spare = jokers - (high - low + 1 - len(naturals))
        held = set(naturals)
        out = []
        for below in range(max(0, spare - (_RANKS - 1 - high)), min(spare, low) + 1):
            ranks = range(low - below, high + spare - below + 1)
            indices = [suit * _RANKS + r for r in ranks]
            represents = tuple(card_at(i) for i in indices)
            cards = tuple(card_at(i) if i in held else JOKER for i in indices)
            out.append(Meld("run", cards, represents))
        return out


def _meldable(mask: int) -> tuple[int, bool]:
    """Cards of a one-deck mask that fit some set or run, and whether one fits both."""
    starts = mask & mask >> 1 & mask >> 2 & _RUN_STARTS
    clubs, diamonds = mask & _SUIT_BITS, mask >> 13 & _SUIT_BITS
    hearts, spades = mask >> 26 & _SUIT_BITS, mask >> 39
    three = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
    if not three:
        return (starts | starts << 1 | starts << 2, False) if starts else (0, False)
    sets = three * _EVERY_SUIT & mask
    if not starts:
        return sets, False
    runs = starts | starts << 1 | starts << 2
    return sets | runs, bool(sets & runs)


def _mask_of(state: int) -> int:
    """The one-deck mask (bit ``card_index``) of the cards a count state holds."""
    return sum(1 << i for i in set(_indices(state)))


def _codes(mask: int) -> tuple[str, ...]:
    """Card codes of a 52-bit mask in display order (suit, then rank)."""
    out = []
    code_of = _CODE_OF_BIT
    while mask:
        low = mask & -mask
        out.append(code_of[low])
        mask ^= low
    return tuple(out)


def pool_templates(
    kind: str, pool: Iterable[str], tag: str | None, smallest: int
) -> tuple[tuple[str, tuple[str, ...], str | None], ...]:
    """Every group of at least ``smallest`` cards of ``pool`` as an extra template.

    A template is one exact meld, so a kind like a gem stash (four or more of the seven
    cards that share a gem) is given as all its groups: 64 templates per gem.
    """
    cards = parse_cards(pool)
    return tuple(
        (kind, group, tag)
        for size in range(smallest, len(cards) + 1)
        for group in combinations(cards, size)
    )


def gin_solver(jokers: bool = False, joker_value: int = 15) -> MeldSolver:
    """The shared gin solver (pip values), one per joker value so its caches are shared.

    Every solver understands jokers; ``jokers`` only says whether ``joker_value``
    matters, so all joker-free games use the same solver.
    """
    return _gin_solver(joker_value if jokers else 15)


@cache
def _gin_solver(joker_value: int) -> MeldSolver:
    return MeldSolver(values=pip_value, joker_value=joker_value)
