"""The arena: for a fixed time, whoever finishes a match is paired again at once with the
waiting entrant nearest in arena score (lichess's arena tournaments).

Scoring. A finished table gives each seat arena points from its match points
(``domain.tournaments.model.table_points``): twice the match points, rounded to the
nearest half point (an exact quarter rounds up). So a two-seat table gives 2 for a win,
1 for a draw, 0 for a loss; a three-seat table 2, 1 and 0 by finishing place (1.5 or
0.5 each for a tie); a four-seat table 2, 1.5, 0.5 and 0. A win is the full match points:
the whole point at two seats, finishing first alone at a larger table. A forfeited table
counts by the points the forfeit gave, like any other.

The streak (lichess's rule). After two wins in a row an entrant is on fire: every table
it finishes while on fire scores double (a win 4, a draw 2, a loss 0), and the first
result that is not a win puts the fire out. Results count in the order they finished,
which is the order the caller gives them; their ``round`` is not read.

Standings. Arena points first; then more wins; then fewer tables played (the same points
from fewer games); then entry order. Nothing depends on opponents' ratings or results, so
a standing never moves because of a game its entrant did not play.

Waves. An arena has no rounds: the caller pairs the waiting entrants whenever a table
finishes (``pair_waiting``) and numbers those calls from 1; each table records the wave
it was paired in as its ``Result.round``.

Pairing. Among the waiting entrants, in this order of importance:

1. as many tables as possible;
2. no immediate rematch (a table that seats exactly the entrants of one of its members'
   last table). While anyone is playing, entrants whose only table would be a rematch
   keep waiting for someone to come free; when nobody is playing, waiting can bring
   nobody new, so the rematch is made rather than stop the arena (and only where no
   other way seats as many);
3. whoever waited longest sits first: when the waiting do not fill whole tables, the
   latest to start waiting keep waiting;
4. tablemates nearest in arena score;
5. tablemates next to each other in waiting order, which settles every tie left.

Two-seat tables are the best pairing by these rules, exactly, among pairs at most
``PAIRING_REACH`` (4) apart in score order. Larger tables take the longest-waiting
entrants that fill whole tables, sort them by arena score and cut them into tables in
that order; a table that would repeat a member's last table takes instead the next
entrant in score order that breaks the repeat (or the longest-waiting entrant left over);
when none does, the repeat is made if nobody is playing, and otherwise the table's top
scorer keeps waiting.

Seats. Seat 0 goes to whoever has held it least against a fair share (one game in ``n``
at ``n``-seat tables), the others in the same order; ties by waiting order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.tournaments.model import Result

WIN_POINTS = 2.0
"""Arena points for a win off fire: twice the match points of a won table."""

FIRE_AFTER = 2
"""Wins in a row that set an entrant on fire."""

MIN_TABLE, MAX_TABLE = 2, 6

PAIRING_REACH = 4
"""How many rungs apart, in score order, two waiting entrants may still be paired: room
to step past a rematch and a late waiter, and no further."""


@dataclass(frozen=True)
class ArenaScore:
    """An entrant's arena so far: its points, tables played and won, its current run of
    wins and whether that run has it on fire (its next table scores double)."""

    entrant: int
    points: float = 0.0
    played: int = 0
    wins: int = 0
    streak: int = 0
    on_fire: bool = False

    def after(self, match_points: float) -> ArenaScore:
        """The score once the entrant finishes a table with ``match_points``."""
        won = is_win(match_points)
        streak = self.streak + 1 if won else 0
        return ArenaScore(self.entrant, self.points + arena_points(match_points, self.on_fire),
                          self.played + 1, self.wins + won, streak, streak >= FIRE_AFTER)


def is_win(match_points: float) -> bool:
    """A win is the table's full match point: the only result that builds a streak."""
    return match_points >= 1.0


def arena_points(match_points: float, on_fire: bool = False) -> float:
    """Arena points of one finished table: twice its match points to the nearest half
    point (quarters up, in the entrant's favour), doubled while on fire."""
    points = math.floor(2 * WIN_POINTS * match_points + 0.5) / 2
    return 2 * points if on_fire else points


def arena_scores(entrants: int, results: Sequence[Result]) -> tuple[ArenaScore, ...]:
    """Every entrant's arena score, by entrant number, from the results in the order
    their tables finished."""
    scores = _scores(results)
    return tuple(scores.get(entrant, ArenaScore(entrant)) for entrant in range(entrants))


def arena_standings(entrants: int, results: Sequence[Result]) -> tuple[ArenaScore, ...]:
    """The scores in standing order: arena points, then wins, then fewer tables played,
    then entry order."""
    return tuple(sorted(arena_scores(entrants, results),
                        key=lambda s: (-s.points, -s.wins, s.played, s.entrant)))


def pair_waiting(waiting: Sequence[int], results: Sequence[Result], table_size: int = 2,
                 *, playing: int = 0) -> tuple[tuple[int, ...], ...]:
    """The tables to open now for the ``waiting`` entrants (in the order they started
    waiting), each as its entrants in seat order, the table of the longest-waiting
    entrant first. ``playing`` is how many entrants are at tables now: while any are,
    nobody is paired into an immediate rematch. Whoever is left out keeps waiting."""
    if not MIN_TABLE <= table_size <= MAX_TABLE:
        raise ValueError(f"arena tables seat {MIN_TABLE} to {MAX_TABLE}, not {table_size}")
    if len(set(waiting)) != len(waiting):
        raise ValueError("an entrant waits once")
    scores, last = _scores(results), _last_tables(results)
    points = {entrant: scores.get(entrant, ArenaScore(entrant)).points for entrant in waiting}
    place = {entrant: index for index, entrant in enumerate(waiting)}
    rematch_allowed = playing == 0
    if table_size == 2:
        tables = _pairs(waiting, points, last, rematch_allowed)
    else:
        tables = _groups(waiting, points, last, table_size, rematch_allowed)
    balance = _seat_zero_balance(results)
    seated = (tuple(sorted(table, key=lambda e: (balance.get(e, Fraction(0)), place[e])))
              for table in tables)
    return tuple(sorted(seated, key=lambda table: min(place[e] for e in table)))


def _scores(results: Sequence[Result]) -> dict[int, ArenaScore]:
    scores: dict[int, ArenaScore] = {}
    for result in results:
        for entrant, match_points in zip(result.seats, result.points, strict=True):
            scores[entrant] = scores.get(entrant, ArenaScore(entrant)).after(match_points)
    return scores


def _last_tables(results: Sequence[Result]) -> dict[int, frozenset[int]]:
    """Each entrant's tablemates-and-self at its latest finished table."""
    return {entrant: frozenset(result.seats) for result in results for entrant in result.seats}


def _seat_zero_balance(results: Sequence[Result]) -> dict[int, Fraction]:
    """Times in seat 0 less the fair share of them, exactly, so equal balances tie."""
    balance: dict[int, Fraction] = {}
    for result in results:
        share = Fraction(1, len(result.seats))
        for seat, entrant in enumerate(result.seats):
            balance[entrant] = balance.get(entrant, Fraction(0)) + (seat == 0) - share
    return balance


def _is_rematch(table: Sequence[int], last: Mapping[int, frozenset[int]]) -> bool:
    """Whether the table seats exactly the entrants of one of its members' last table."""
    entrants = frozenset(table)
    return any(last.get(entrant) == entrants for entrant in table)


_Cost = tuple[int, ...]
"""A pairing's cost, compared level by level: entrants left waiting, rematches, the
waiting places of those seated (so the latest to wait are the ones left), distance in
score (half points), distance in waiting order."""

_FREE: _Cost = (0, 0, 0, 0, 0)
_KEEPS_WAITING: _Cost = (1, 0, 0, 0, 0)

_Open = tuple[int, ...]
"""Rungs of the ladder still open for a partner further down, in ladder order."""

_Step = tuple[_Cost, _Open, int | None]
"""The least cost found to reach some open rungs, the rungs open the step before, and the
rung the step's entrant was paired with, if any."""


def _pairs(waiting: Sequence[int], points: Mapping[int, float],
           last: Mapping[int, frozenset[int]],
           rematch_allowed: bool) -> list[tuple[int, ...]]:
    """Two-seat tables of least cost (``_Cost``) over the waiting entrants in score order,
    the ladder; a rematch is no pair at all while it is not allowed."""
    place = {entrant: index for index, entrant in enumerate(waiting)}
    halves = {entrant: round(2 * points[entrant]) for entrant in waiting}
    ladder = sorted(waiting, key=lambda e: (-halves[e], place[e]))

    def pair_cost(first: int, second: int) -> _Cost | None:
        rematch = _is_rematch((first, second), last)
        if rematch and not rematch_allowed:
            return None
        return (0, int(rematch), place[first] + place[second],
                abs(halves[first] - halves[second]), abs(place[first] - place[second]))

    return [(ladder[first], ladder[second]) for first, second in _walk(ladder, pair_cost)]


def _walk(ladder: Sequence[int],
          pair_cost: Callable[[int, int], _Cost | None]) -> list[tuple[int, int]]:
    """The least-cost pairing of the ladder, as pairs of rungs, found exactly by walking
    it once: each entrant either keeps waiting, or is paired with an open entrant above
    it, or stays open for one below. Pairs are at most ``PAIRING_REACH`` rungs apart, so
    only a few rungs are ever open and a wave of hundreds takes a blink."""
    steps: list[dict[_Open, _Step]] = []
    frontier: dict[_Open, _Cost] = {(): _FREE}
    for rung, entrant in enumerate(ladder):
        step: dict[_Open, _Step] = {}
        for before, cost in frontier.items():
            moves: list[tuple[_Open, _Cost, int | None]] = [
                ((*before, rung), cost, None), (before, _plus(cost, _KEEPS_WAITING), None)]
            for open_rung in before:
                paired = pair_cost(ladder[open_rung], entrant)
                if paired is not None:
                    moves.append((tuple(o for o in before if o != open_rung),
                                  _plus(cost, paired), open_rung))
            for after, total, met in moves:
                in_reach = not after or after[0] > rung - PAIRING_REACH
                if in_reach and (after not in step or total < step[after][0]):
                    step[after] = (total, before, met)
        steps.append(step)
        frontier = {after: total for after, (total, _, _) in step.items()}
    pairs: list[tuple[int, int]] = []
    opened: _Open = ()
    for rung in reversed(range(len(ladder))):
        _, opened, met = steps[rung][opened]
        if met is not None:
            pairs.append((met, rung))
    return pairs


def _plus(first: _Cost, second: _Cost) -> _Cost:
    return tuple(a + b for a, b in zip(first, second, strict=True))


def _groups(waiting: Sequence[int], points: Mapping[int, float],
            last: Mapping[int, frozenset[int]], size: int,
            rematch_allowed: bool) -> list[tuple[int, ...]]:
    """Tables of three or more: the longest-waiting entrants that fill whole tables,
    highest arena score first, cut in order; the latest to wait stand by to break a
    rematch or fill a place left by someone who must keep waiting."""
    filling = len(waiting) // size * size
    place = {entrant: index for index, entrant in enumerate(waiting)}
    candidates = [*sorted(waiting[:filling], key=lambda e: (-points[e], place[e])),
                  *waiting[filling:]]
    tables: list[tuple[int, ...]] = []
    while len(candidates) >= size:
        head = candidates[:size - 1]
        closing = next((entrant for entrant in candidates[size - 1:]
                        if not _is_rematch((*head, entrant), last)), None)
        if closing is None and rematch_allowed:
            closing = candidates[size - 1]
        if closing is None:
            candidates.pop(0)
            continue
        tables.append((*head, closing))
        candidates = [entrant for entrant in candidates[size - 1:] if entrant != closing]
    return tables
