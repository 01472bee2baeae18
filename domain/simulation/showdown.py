"""The end of a two-player gin hand on masks: the knocker's melds, the defender's
lay-offs and the score (docs/rules.md 1.5, 1.6), as ``domain.gin.scoring`` decides them.

The knocker shows a minimum-deadwood arrangement, and among equals the one after which
the defender's best lay-offs leave the defender the most deadwood (1.5, *ours*); the
defender lays off whatever leaves the least. So the defender's deadwood is a max over the
knocker's best arrangements of a min over the defender's lay-offs. Both are small here:
an arrangement is a choice of sets (the rest melds in runs, one per stretch of three or
more, as the canonical arrangement shows touching runs merged), and a lay-off onto a run
is a chain of the defender's cards at either end, onto a set of three its missing card.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from domain.mask_deadwood import RANKS, RUN, SPREAD, SUIT, MaskDeadwood, set_ranks

DRAW = "draw"
KNOCK = "knock"
GIN = "gin"
BIG_GIN = "big_gin"
UNDERCUT = "undercut"
TIE = "tie"


@dataclass(frozen=True)
class GinRules:
    """The options a two-player hand's play and score depend on (``GinOptions`` less what
    only matters between hands)."""

    gin_bonus: int = 25
    big_gin_bonus: int | None = 31
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    may_discard_taken_discard: bool = False
    max_turns: int = 300


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what it scored, as its ``HandScored`` records it.

    ``result`` is knock, gin, big_gin, undercut, tie (nobody scores) or draw (with
    ``reason`` stock_exhausted or turn_cap); ``points`` are per seat, after any Oklahoma
    doubling; ``winner`` is the seat that scored, None when nobody did.
    """

    result: str
    points: tuple[int, int]
    winner: int | None = None
    knocker: int | None = None
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    reason: str | None = None

    def margin(self, seat: int) -> int:
        """What the hand was worth to ``seat``: its points less the other seat's."""
        return self.points[seat] - self.points[1 - seat]


def drawn(reason: str) -> HandResult:
    return HandResult(DRAW, (0, 0), reason=reason)


def settle(kind: str, knocker: int, knocker_deadwood: int, defender_deadwood: int,
           rules: GinRules, multiplier: int) -> HandResult:
    """docs/rules.md 1.6 for one knocker and one defender."""
    k, d = knocker_deadwood, defender_deadwood
    defender = 1 - knocker
    if kind == BIG_GIN:
        result, scorer, points = BIG_GIN, knocker, (rules.big_gin_bonus or 0) + d
    elif kind == GIN:
        result, scorer, points = GIN, knocker, rules.gin_bonus + d
    elif k < d:
        result, scorer, points = KNOCK, knocker, d - k
    elif k == d and not rules.undercut_on_tie:
        return HandResult(TIE, (0, 0), None, knocker, k, d)
    elif k == d:
        result, scorer, points = UNDERCUT, defender, rules.undercut_bonus
    else:
        result, scorer, points = UNDERCUT, defender, k - d + rules.undercut_bonus
    points *= multiplier
    scores = (points, 0) if scorer == 0 else (0, points)
    return HandResult(result, scores, scorer if points > 0 else None, knocker, k, d)


def defender_deadwood(tables: MaskDeadwood, knocker_cards: int, defender: int) -> int:
    """The defender's deadwood after lay-offs against a knock (not gin) with
    ``knocker_cards``: the worst, over the knocker's best arrangements, of the defender's
    best lay-offs."""
    return max(_after_layoffs(tables, melds, defender)
               for melds in best_arrangements(tables, knocker_cards))


def best_arrangements(tables: MaskDeadwood, cards: int) -> Iterator[list[int]]:
    """The melds (as masks) of every canonical minimum-deadwood arrangement of ``cards``."""
    choices = [0]
    ranks = set_ranks(cards)
    while ranks:
        bit = ranks & -ranks
        ranks ^= bit
        choices = [a | b for a in choices for b in _set_options(cards, bit.bit_length() - 1)]
    d0, d1, d2, d3 = tables.dead
    scored = []
    for taken in choices:
        m = cards ^ taken
        scored.append((d0[m & SUIT] + d1[m >> 13 & SUIT] + d2[m >> 26 & SUIT] + d3[m >> 39],
                       taken))
    least = min(value for value, _ in scored)
    for value, taken in scored:
        if value == least:
            yield _sets_of(taken) + _runs_of(cards ^ taken)


def _set_options(cards: int, rank: int) -> list[int]:
    held = [1 << (suit * RANKS + rank) for suit in range(4) if cards >> (suit * RANKS + rank) & 1]
    return [0] + [sum(group) for size in (3, 4) for group in combinations(held, size)]


def _sets_of(taken: int) -> list[int]:
    out = []
    for rank in range(RANKS):
        group = taken & SPREAD << rank
        if group:
            out.append(group)
    return out


def _runs_of(cards: int) -> list[int]:
    """Each stretch of three or more cards of a suit, as one run."""
    out = []
    for suit in range(4):
        stretch = RUN[cards >> (suit * RANKS) & SUIT] << (suit * RANKS)
        while stretch:
            low = stretch & -stretch
            run = stretch & ~(stretch + low)  # the consecutive bits from the lowest one
            out.append(run)
            stretch ^= run
    return out


def _after_layoffs(tables: MaskDeadwood, melds: list[int], defender: int) -> int:
    """The least deadwood the defender's lay-offs onto ``melds`` can leave."""
    plans = {0}
    for meld in melds:
        options = _layoffs(meld, defender)
        if len(options) > 1:
            plans = {plan | option for plan in plans for option in options if not plan & option}
    deadwood = tables.deadwood
    return min(deadwood(defender ^ plan) for plan in plans)


def _layoffs(meld: int, defender: int) -> list[int]:
    """Every set of the defender's cards that can be laid off onto ``meld`` (docs/rules.md
    1.6): a set of three takes its missing suit, a run a chain at either end."""
    low = meld & -meld
    index = low.bit_length() - 1
    if meld & meld >> 1 == 0:  # a set: its cards are 13 apart
        if meld.bit_count() == 4:
            return [0]
        missing = SPREAD << (index % RANKS) & ~meld & defender
        return [0, missing] if missing else [0]
    top = meld.bit_length() - 1
    below = [0]
    card = index
    while card % RANKS and defender >> (card - 1) & 1:
        card -= 1
        below.append(below[-1] | 1 << card)
    above = [0]
    card = top
    while (card + 1) % RANKS and defender >> (card + 1) & 1:
        card += 1
        above.append(above[-1] | 1 << card)
    return [b | a for b in below for a in above]
