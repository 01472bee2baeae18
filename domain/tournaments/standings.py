"""Tournament standings: entrants ordered by match points, ties broken in a chosen order.

An entrant's points are the match points of every table they sat at plus the points of
their byes. Entrants level on points are ordered by each tie-break in turn, higher first:
the first tie-break orders each group level on points, the next orders each group still
level, and so on. Entrants level on points and on every tie-break share a rank (1, 2, 2,
4) and are listed in entry order. Withdrawn entrants stay in the table, flagged, with
what they scored. Values are compared to 9 decimal places, so that thirds from tables of
more than two seats add up alike in any order.

The tie-breaks (a tablemate's total is their points over the whole event, byes included):

- ``buchholz``: the sum, over every table the entrant sat at, of its tablemates' totals.
  A bye adds nothing (FIDE's "virtual opponent" for unplayed rounds is not used).
- ``sonneborn_berger``: the sum, over every table the entrant sat at, of the entrant's
  match points there times the mean of its tablemates' totals. At two seats that is the
  classic rule: a beaten opponent's total counts in full, a drawn one's half, a lost
  one's not at all. At a larger table the table's points weigh its tablemates' mean.
- ``head_to_head``: within a group level on points and every earlier tie-break, the match
  points an entrant scored against others of the group: at a two-seat table with one of
  them, its points there; at a larger table, for each of them among its tablemates, one
  share (1 / tablemates) if it finished ahead (more points), half a share if level.
  That is the part of its table points it won against them. 0 if they never met.
- ``game_points``: the sum of the game points of every table the entrant sat at.
- ``wins``: the tables where the entrant got full points (1.0); byes are not wins.

A forfeited table counts like a played one for points, ``played``, wins and the
opponent-based tie-breaks; only its game points are left out, since no game was played
to score them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from domain.tournaments.model import Bye, Result

BUCHHOLZ = "buchholz"
SONNEBORN_BERGER = "sonneborn_berger"
HEAD_TO_HEAD = "head_to_head"
GAME_POINTS = "game_points"
WINS = "wins"

TIE_BREAKS = (BUCHHOLZ, SONNEBORN_BERGER, HEAD_TO_HEAD, GAME_POINTS, WINS)
"""Every tie-break standings know, by name."""

DEFAULT_TIE_BREAKS = (BUCHHOLZ, SONNEBORN_BERGER, HEAD_TO_HEAD, GAME_POINTS)
"""The usual Swiss order: strength of opposition first, the meeting itself later."""

_PLACES = 9
"""Decimal places values are compared to."""


@dataclass(frozen=True)
class Standing:
    """One line of the standings: the entrant's rank (shared when level on everything),
    points, tables played (forfeits included), full-point wins, byes, the value of each
    tie-break asked for, in the order asked, and whether they withdrew."""

    rank: int
    entrant: int
    points: float
    played: int
    wins: int
    byes: int
    tie_breaks: Mapping[str, float]
    withdrawn: bool


def _value(value: float) -> float:
    return round(value, _PLACES) + 0.0


def totals(entrants: int, results: Sequence[Result], byes: Sequence[Bye]) -> list[float]:
    """Every entrant's points: their tables' match points plus their byes' points."""
    points = [0.0] * entrants
    for result in results:
        for entrant, scored in zip(result.seats, result.points, strict=True):
            points[entrant] += scored
    for bye in byes:
        points[bye.entrant] += bye.points
    return [_value(total) for total in points]


def _tables_of(entrants: int, results: Sequence[Result]) -> list[list[Result]]:
    tables: list[list[Result]] = [[] for _ in range(entrants)]
    for result in results:
        for entrant in result.seats:
            tables[entrant].append(result)
    return tables


def _buchholz(entrant: int, tables: Sequence[Result], total: Sequence[float]) -> float:
    """Strength of opposition: the tablemates' totals, table by table."""
    return sum(total[other] for result in tables for other in result.opponents(entrant))


def _sonneborn_berger(entrant: int, tables: Sequence[Result], total: Sequence[float]) -> float:
    """Strength of what the entrant beat: each table's points times its tablemates' mean
    total."""
    weighed = 0.0
    for result in tables:
        others = result.opponents(entrant)
        if others:
            weighed += result.points_of(entrant) * sum(total[o] for o in others) / len(others)
    return weighed


def _against(entrant: int, result: Result, group: frozenset[int]) -> float:
    """The part of the entrant's points at a table won against tablemates in ``group``."""
    others = result.opponents(entrant)
    rivals = [other for other in others if other in group]
    if not rivals:
        return 0.0
    if len(others) == 1:
        return result.points_of(entrant)
    mine = result.points_of(entrant)
    return sum(1.0 if mine > result.points_of(rival) else
               0.5 if mine == result.points_of(rival) else 0.0
               for rival in rivals) / len(others)


def _head_to_head(entrant: int, tables: Sequence[Result], group: frozenset[int]) -> float:
    """The points the entrant scored against the others it is level with."""
    return sum(_against(entrant, result, group) for result in tables)


def _game_points(tables: Sequence[Result], entrant: int) -> float:
    return sum(result.game_points[result.seats.index(entrant)]
               for result in tables if not result.forfeit)


def _wins(tables: Sequence[Result], entrant: int) -> int:
    return sum(1 for result in tables if result.points_of(entrant) >= 1.0)


def standings(entrants: int, results: Sequence[Result], byes: Sequence[Bye],
              tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS,
              withdrawn: frozenset[int] = frozenset()) -> tuple[Standing, ...]:
    """The standings after ``results`` and ``byes``, best first: by points, then by each
    of ``tie_breaks`` in turn (names from ``TIE_BREAKS``)."""
    unknown = [name for name in tie_breaks if name not in TIE_BREAKS]
    if unknown:
        raise ValueError(f"unknown tie-breaks {unknown}; known: {TIE_BREAKS}")
    total = totals(entrants, results, byes)
    tables = _tables_of(entrants, results)
    byes_of: dict[int, int] = defaultdict(int)
    for bye in byes:
        byes_of[bye.entrant] += 1
    fixed: dict[str, Callable[[int], float]] = {
        BUCHHOLZ: lambda e: _buchholz(e, tables[e], total),
        SONNEBORN_BERGER: lambda e: _sonneborn_berger(e, tables[e], total),
        GAME_POINTS: lambda e: _game_points(tables[e], e),
        WINS: lambda e: _wins(tables[e], e),
    }
    values: dict[int, dict[str, float]] = {e: {} for e in range(entrants)}
    groups = _split(list(range(entrants)), lambda e: total[e])
    for name in tie_breaks:
        refined: list[list[int]] = []
        for group in groups:
            members = frozenset(group)
            scored = {entrant: _value(_head_to_head(entrant, tables[entrant], members)
                                      if name == HEAD_TO_HEAD else fixed[name](entrant))
                      for entrant in group}
            for entrant, value in scored.items():
                values[entrant][name] = value
            refined += _split(group, scored.__getitem__)
        groups = refined
    lines: list[Standing] = []
    for group in groups:
        rank = len(lines) + 1
        lines += (Standing(rank, entrant, total[entrant], len(tables[entrant]),
                           _wins(tables[entrant], entrant), byes_of[entrant],
                           MappingProxyType({name: values[entrant][name] for name in tie_breaks}),
                           entrant in withdrawn)
                  for entrant in sorted(group))
    return tuple(lines)


def _split(group: Sequence[int], key: Callable[[int], float]) -> list[list[int]]:
    """A group ordered by ``key``, higher first, cut where the key changes."""
    cut: list[list[int]] = []
    for entrant in sorted(group, key=lambda e: (-key(e), e)):
        if cut and key(cut[-1][0]) == key(entrant):
            cut[-1].append(entrant)
        else:
            cut.append([entrant])
    return cut
