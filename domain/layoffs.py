"""Defender lay-offs onto the knocker's melds (docs/rules.md 1.6, 1.8 and 2.5).

What may be laid where depends on the meld's kind, so ``extensions`` dispatches through a
registry: sets and runs are built in, Queen's Diamonds never grows, and gem rummy adds
stashes with ``register_extension("stash", stash_extender(gems_of))`` (a stash's tag
names its gem). ``best_layoffs`` is exact: it walks every legal sequence of lay-offs
(so chains such as 6H then 5H onto 7H-8H-9H, and every joker reading, are tried) and
scores what is left with the meld solver, which is free to break the defender's own
melds. Greedy choices go wrong: a card can fit two melds, or a joker two ends.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from domain.cards import JOKER, RANKS, SUITS, parse_card, parse_cards, rank_of, sort_cards
from domain.melds import Meld, MeldSolver, meld_key

Extender = Callable[[Meld, str], tuple[Meld, ...]]
"""Every meld obtained by laying one card (a canonical code) onto a meld; () if none."""


@dataclass(frozen=True)
class LayoffResult:
    """The defender's best outcome against the knocker's table melds."""

    deadwood: int
    melds: tuple[Meld, ...]
    layoffs: tuple[tuple[str, int], ...]
    table: tuple[Meld, ...]
    unmatched: tuple[str, ...]


def _counts(meld: Meld) -> tuple[int, int]:
    """(natural cards, jokers) of a meld."""
    jokers = meld.cards.count(JOKER)
    return len(meld.cards) - jokers, jokers


def _extend_set(meld: Meld, card: str) -> tuple[Meld, ...]:
    """A set takes the card of a suit it lacks; a joker may stand for any such suit."""
    if len(meld.represents) >= len(SUITS):
        return ()
    rank = meld.represents[0][0]
    held = {rep[1] for rep in meld.represents}
    if card == JOKER:
        naturals, jokers = _counts(meld)
        if naturals <= jokers + 1:
            return ()
        return tuple(_set_with(meld, JOKER, rank + suit) for suit in SUITS if suit not in held)
    if card[0] != rank or card[1] in held:
        return ()
    return (_set_with(meld, card, card),)


def _set_with(meld: Meld, card: str, represents: str) -> Meld:
    pairs = sorted(
        zip((*meld.represents, represents), (*meld.cards, card), strict=True),
        key=lambda pair: SUITS.index(pair[0][1]),
    )
    return Meld("set", tuple(c for _, c in pairs), tuple(r for r, _ in pairs), meld.tag)


def _extend_run(meld: Meld, card: str) -> tuple[Meld, ...]:
    """A run grows at either end, by the next card of its suit or by a joker."""
    suit = meld.represents[0][1]
    low, high = rank_of(meld.represents[0]), rank_of(meld.represents[-1])
    below = RANKS[low - 1] + suit if low > 0 else None
    above = RANKS[high + 1] + suit if high < len(RANKS) - 1 else None
    if card == JOKER:
        naturals, jokers = _counts(meld)
        if naturals <= jokers + 1:
            return ()
        out = []
        if below:
            out.append(Meld("run", (JOKER, *meld.cards), (below, *meld.represents), meld.tag))
        if above:
            out.append(Meld("run", (*meld.cards, JOKER), (*meld.represents, above), meld.tag))
        return tuple(out)
    if card == below:
        return (Meld("run", (card, *meld.cards), (card, *meld.represents), meld.tag),)
    if card == above:
        return (Meld("run", (*meld.cards, card), (*meld.represents, card), meld.tag),)
    return ()


def _never(meld: Meld, card: str) -> tuple[Meld, ...]:
    """Queen's Diamonds (gem rummy) takes no lay-offs."""
    return ()


def stash_extender(gems: Callable[[str], tuple[str, ...]]) -> Extender:
    """Lay-offs onto a gem stash: any natural card carrying the stash's gem (its tag).

    ``gems`` gives a card's gems (a king has two); the gem module registers the result
    under "stash", so this module needs no gem table of its own.
    """

    def extend(meld: Meld, card: str) -> tuple[Meld, ...]:
        if card == JOKER or card in meld.cards or meld.tag not in gems(card):
            return ()
        cards = sort_cards((*meld.cards, card))
        return (Meld(meld.kind, cards, cards, meld.tag),)

    return extend


EXTENDERS: dict[str, Extender] = {"set": _extend_set, "run": _extend_run, "queens_diamonds": _never}
"""The lay-off rule of each meld kind; see ``register_extension``."""


def register_extension(kind: str, extender: Extender) -> None:
    """Install (or replace) the lay-off rule of a meld kind, e.g. gem rummy's "stash"."""
    EXTENDERS[kind] = extender


def extensions(
    meld: Meld, card: str, registry: Mapping[str, Extender] | None = None
) -> tuple[Meld, ...]:
    """Every meld obtained by laying ``card`` onto ``meld``; () if it cannot go there.

    Several results when a joker can go to either end or stand for either missing
    suit. ``registry`` overrides the module's ``EXTENDERS`` (tests, other variants).
    """
    rules = EXTENDERS if registry is None else registry
    return _extender(rules, meld.kind)(meld, parse_card(card))


def _shape(meld: Meld) -> tuple:
    """What a table meld offers to later lay-offs: the cards it stands for and how many
    jokers it holds, not where they sit (7H JK 9H TH and 7H 8H JK TH take the same
    cards). Tables of the same shape are searched once."""
    return (meld.kind, meld.tag, meld.represents, meld.cards.count(JOKER))


def _extender(rules: Mapping[str, Extender], kind: str) -> Extender:
    extender = rules.get(kind)
    if extender is None:
        raise ValueError(f"no lay-off rule for meld kind {kind!r}")
    return extender


def best_layoffs(
    solver: MeldSolver,
    hand: Sequence[str],
    table: Sequence[Meld],
    registry: Mapping[str, Extender] | None = None,
) -> LayoffResult:
    """The defender's lay-offs and arrangement that leave the least deadwood (exact).

    Every table reachable by legal lay-offs is visited once, breadth first (the cards
    left in hand plus the table's shape is a state; orders that reach the same state
    are the same choice), and the cards left are scored by the solver, which breaks up
    the defender's melds whenever that pays. Ties go to fewer lay-offs, then to the
    laid cards and the table in display order, so the result is deterministic.
    """
    rules = EXTENDERS if registry is None else registry
    extenders = [_extender(rules, meld.kind) for meld in table]
    start = sort_cards(parse_cards(hand))
    melds = tuple(table)
    shapes = tuple(map(_shape, melds))
    seen = {(start, shapes)}
    no_layoffs: tuple[tuple[str, int], ...] = ()
    queue = deque([(start, melds, shapes, no_layoffs)])
    deadwood: dict[tuple[str, ...], int] = {}
    best = (start, melds, no_layoffs)
    best_head: tuple[int, int] | None = None
    while queue:
        left, melds, shapes, laid = queue.popleft()
        if left not in deadwood:
            deadwood[left] = solver.deadwood(left)
        head = (deadwood[left], len(laid))
        if (
            best_head is None
            or head < best_head
            or (head == best_head and _tie_key(melds, laid) < _tie_key(best[1], best[2]))
        ):
            best_head, best = head, (left, melds, laid)
        if best_head == (0, len(laid)):
            continue  # breadth first: nothing later can beat no deadwood in fewer lay-offs
        for position, card in enumerate(left):
            if position and left[position - 1] == card:
                continue
            for index, meld in enumerate(melds):
                for grown in extenders[index](meld, card):
                    after = (*shapes[:index], _shape(grown), *shapes[index + 1 :])
                    rest = left[:position] + left[position + 1 :]
                    if (rest, after) not in seen:
                        seen.add((rest, after))
                        grown_melds = (*melds[:index], grown, *melds[index + 1 :])
                        queue.append((rest, grown_melds, after, (*laid, (card, index))))
    left, melds, laid = best
    shown = solver.best(left)
    return LayoffResult(shown.deadwood, shown.melds, laid, melds, shown.unmatched)


def _tie_key(melds: tuple[Meld, ...], laid: tuple[tuple[str, int], ...]) -> tuple:
    return sort_cards(card for card, _ in laid), tuple(map(meld_key, melds))


def lay_off_in_turns(
    solver: MeldSolver,
    hands: Sequence[tuple[int, Sequence[str]]],
    table: Sequence[Meld],
    registry: Mapping[str, Extender] | None = None,
) -> tuple[tuple[Meld, ...], dict[int, tuple[tuple[str, int], ...]]]:
    """Lay-offs of several defenders, one card per go, round and round until all pass.

    docs/rules.md 1.8 and 2.6: ``hands`` are (seat, cards) in playing order, clockwise from
    the knocker; each seat's go may use what earlier goes laid. A go lays the first card
    of the seat's best remaining plan *(ours: the rules leave the order open; this keeps
    each seat's own optimum)*. Returns the grown table and each seat's (card, meld) list.
    """
    rules = EXTENDERS if registry is None else registry
    grown = list(table)
    left = {seat: tuple(cards) for seat, cards in hands}
    laid: dict[int, list[tuple[str, int]]] = {seat: [] for seat, _ in hands}
    moved = True
    while moved:
        moved = False
        for seat, _ in hands:
            plan = best_layoffs(solver, left[seat], grown, rules)
            if not plan.layoffs:
                continue
            card, index = plan.layoffs[0]
            options = extensions(grown[index], card, rules)
            goal = set(plan.table[index].represents)
            grown[index] = ([m for m in options if set(m.represents) <= goal] or list(options))[0]
            position = left[seat].index(card)
            left[seat] = left[seat][:position] + left[seat][position + 1 :]
            laid[seat].append((card, index))
            moved = True
    return tuple(grown), {seat: tuple(cards) for seat, cards in laid.items()}
