"""Round robin: every entrant meets every other, on a schedule fixed by the entry count.

``rounds(entrants, table_size)`` is the whole schedule, the same every time it is asked
for, so a verifier rebuilds it from the entry count alone. Tables are numbered in order of
their lowest entrant number; entrants are seated seat 0 first.

Two-seat tables are Berger tables (the circle method in FIDE's round order). They
guarantee:

- every pair meets exactly once, in ``n - 1`` rounds for an even count; an odd count adds
  a phantom entrant, so ``n`` rounds in which each entrant has exactly one bye (the round
  it would have met the phantom);
- seat 0 alternates from each entrant's game to its next: strictly with an odd count;
  with an even count all but two entrants take the same seat twice running once. So
  nobody takes seat 0 more than ``ceil(rounds / 2)`` times;
- ``double=True`` plays the schedule twice, the second time with the seats swapped, so
  each pair meets twice, once with each entrant in seat 0.

Tables of 3 to 6 seats (rummy) are a covering found by a fixed-seed local search. They
guarantee:

- every round seats everyone at the tables of ``seating.table_sizes`` (``table_size``
  or one fewer seats whenever the count allows it); nobody has a bye;
- every pair meets at least once. The number of rounds is the least the search reaches:
  it starts at the bound no schedule beats (an entrant meets at most ``largest table - 1``
  others a round, and a round holds only so many pairs) and adds a round only when the
  search cannot cover every pair in fewer. Where a perfect design exists it often finds
  it (9 entrants at 3 seats in 4 rounds, 16 at 4 in 5, 25 at 5 in 6: every pair exactly
  once); most counts take a round or two more than the bound, some because no schedule
  does better (6 entrants at 3 seats need 4 rounds, not 3);
- pairs meet as evenly as the search manages within that count: the most meetings of any
  pair (the least is 1) is the lowest cap, counting up from what the average forces, under
  which the search still covers every pair. Some counts keep a pair together throughout:
  6 at 3 seats, where any 4 covering rounds do, and a few where the search finds no
  better in the fewest rounds (14, 15, 18 and 19 at 5 seats; 15, 16 and 19 at 6);
- seat 0 is spread by a flow over the whole schedule: the counts of entrants' seat-0
  tables differ by as little as these tables allow (by at most one whenever any choice
  of seat 0 per table does); the last seat is spread the same way, since
  ``double=True`` plays the schedule again with every table's seats reversed.

The search is bounded (``ITERATIONS`` moves per attempt): up to 30 entrants it answers in
2.5 s at most on a slow core, mostly well under one; a schedule is computed once per
process.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache

import networkx as nx

from domain.tournaments.model import Pairing, Table
from domain.tournaments.seating import table_sizes

ITERATIONS = 150_000
"""Moves the covering search tries before it gives up on a round count (or, once every
pair meets, on a lower most-meetings count)."""

TEMPERATURE = 0.2
"""The search's fixed annealing temperature: a move that loses one meeting is taken one
time in 150, enough to leave a local optimum without undoing progress."""


def rounds(entrants: int, table_size: int = 2, *, double: bool = False) -> tuple[Pairing, ...]:
    """Every round of a round robin of ``entrants`` at tables of ``table_size`` seats; see
    the module docstring for what the schedule guarantees."""
    if entrants < 0:
        raise ValueError("a round robin needs a count of entrants")
    table_sizes(entrants, table_size)
    if entrants < 2:
        return ()
    if table_size == 2:
        schedule = _berger(entrants)
    else:
        schedule = _rummy(entrants, table_size)
    if double:
        schedule = schedule + tuple(
            (tuple(tuple(reversed(seats)) for seats in tables), byes)
            for tables, byes in schedule)
    return tuple(Pairing(tuple(Table(number, seats) for number, seats in
                               enumerate(sorted(tables, key=min))), byes)
                 for tables, byes in schedule)


Schedule = tuple[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]], ...]
"""Rounds as (tables as seat tuples, byes)."""


# --- two seats: Berger tables ---------------------------------------------------------------

def _berger(entrants: int) -> Schedule:
    """Berger tables: entrant ``last`` stays put while the others turn round a circle by
    half its length each round; at the fixed table ``last`` alternates seats, at the
    others the entrant ahead on the circle takes seat 0. With an odd count ``last`` is a
    phantom and its tablemate has the bye."""
    last = entrants if entrants % 2 else entrants - 1
    circle = last
    step = (last + 1) // 2
    schedule = []
    for number in range(circle):
        turn = number * step % circle
        pairs = [(last, turn) if number % 2 else (turn, last)]
        pairs += [((turn + offset) % circle, (turn - offset) % circle)
                  for offset in range(1, (last + 1) // 2)]
        byes = tuple(entrant for pair in pairs if last in pair and entrants % 2
                     for entrant in pair if entrant != last)
        schedule.append((tuple(pair for pair in pairs if last not in pair or not entrants % 2),
                         byes))
    return tuple(schedule)


# --- larger tables: a covering search -------------------------------------------------------

@lru_cache(maxsize=64)
def _rummy(entrants: int, table_size: int) -> Schedule:
    sizes = table_sizes(entrants, table_size)
    groupings = _cover(entrants, sizes)
    first, last = _spread_seats(groupings, entrants)
    schedule = []
    for number, tables in enumerate(groupings):
        seated = []
        for index, table in enumerate(tables):
            head, tail = first[number][index], last[number][index]
            middle = sorted(entrant for entrant in table if entrant not in (head, tail))
            seated.append((head, *middle, tail))
        schedule.append((tuple(seated), ()))
    return tuple(schedule)


def lower_bound(entrants: int, sizes: Sequence[int]) -> int:
    """Rounds no covering beats: each entrant must meet ``entrants - 1`` others, at most
    ``largest table - 1`` a round, and all pairs must fit in the pairs a round seats."""
    pairs_per_round = sum(size * (size - 1) // 2 for size in sizes)
    return max(-(-(entrants - 1) // (max(sizes) - 1)),
               -(-(entrants * (entrants - 1) // 2) // pairs_per_round))


class _Covering:
    """Rounds of tables under a local search, with the meeting count of every pair and the
    number of pairs at each count kept up to date move by move."""

    def __init__(self, entrants: int, sizes: Sequence[int], rng: random.Random) -> None:
        self.entrants = entrants
        self.sizes = sizes
        self.rng = rng
        self.met = [[0] * entrants for _ in range(entrants)]
        self.tables: list[list[list[int]]] = []
        self.seat_of: list[list[int]] = []
        self.counts = [entrants * (entrants - 1) // 2]

    def add_round(self) -> None:
        """A round that seats together those who have met least, greedily."""
        met = self.met
        left = list(range(self.entrants))
        self.rng.shuffle(left)
        tables = []
        for size in self.sizes:
            table = [left.pop()]
            while len(table) < size:
                best = min(left, key=lambda entrant: sum(met[entrant][other] for other in table))
                left.remove(best)
                table.append(best)
            tables.append(table)
        self.tables.append(tables)
        self.counts.append(0)
        where = [0] * self.entrants
        for index, table in enumerate(tables):
            for position, entrant in enumerate(table):
                where[entrant] = index
                for other in table[position + 1:]:
                    self._shift(entrant, other, 1)
        self.seat_of.append(where)

    def _shift(self, entrant: int, other: int, by: int) -> None:
        count = self.met[entrant][other]
        self.counts[count] -= 1
        self.counts[count + by] += 1
        self.met[entrant][other] = self.met[other][entrant] = count + by

    @property
    def most(self) -> int:
        return max(count for count, pairs in enumerate(self.counts) if pairs)

    def snapshot(self) -> list[list[list[int]]]:
        return [[list(table) for table in tables] for tables in self.tables]

    def search(self, penalty: Sequence[float], budget: int) -> bool:
        """Anneal swaps of two entrants between tables of one round until no pair pays a
        ``penalty`` (indexed by meeting count); half the moves start from a pair that pays
        (bringing apart two who meet too often, or together two who never meet)."""
        met, tables, seat_of, rng = self.met, self.tables, self.seat_of, self.rng
        entrants, count_tables = self.entrants, len(self.sizes)
        cost = sum(penalty[met[a][b]] for a in range(entrants) for b in range(a + 1, entrants))
        for _ in range(budget):
            if cost <= 0:
                return True
            number = rng.randrange(len(tables))
            round_tables, where = tables[number], seat_of[number]
            if rng.random() < 0.5:
                entrant = rng.randrange(entrants)
                row = met[entrant]
                paying = [other for other in range(entrants)
                          if other != entrant and penalty[row[other]] > 0]
                if not paying:
                    continue
                other = paying[rng.randrange(len(paying))]
                first, second = where[entrant], where[other]
                if row[other] == 0:
                    if first == second:
                        continue
                    table = round_tables[first]
                    at_first = rng.randrange(len(table) - 1)
                    if table[at_first] == entrant:
                        at_first = len(table) - 1
                    at_second = round_tables[second].index(other)
                else:
                    if first != second:
                        continue
                    second = rng.randrange(count_tables - 1)
                    second += second >= first
                    at_first = round_tables[first].index(other)
                    at_second = rng.randrange(len(round_tables[second]))
            else:
                first = rng.randrange(count_tables)
                second = rng.randrange(count_tables - 1)
                second += second >= first
                at_first = rng.randrange(len(round_tables[first]))
                at_second = rng.randrange(len(round_tables[second]))
            delta = self._delta(penalty, round_tables[first], round_tables[second],
                                at_first, at_second)
            if delta <= 0 or rng.random() < math.exp(-delta / TEMPERATURE):
                self._swap(round_tables, where, first, second, at_first, at_second)
                cost += delta
        return cost <= 0

    def _delta(self, penalty: Sequence[float], table: list[int], other_table: list[int],
               at: int, other_at: int) -> float:
        mover, other_mover = table[at], other_table[other_at]
        row, other_row = self.met[mover], self.met[other_mover]
        delta = 0.0
        for entrant in table:
            if entrant != mover:
                delta += (penalty[row[entrant] - 1] - penalty[row[entrant]]
                          + penalty[other_row[entrant] + 1] - penalty[other_row[entrant]])
        for entrant in other_table:
            if entrant != other_mover:
                delta += (penalty[other_row[entrant] - 1] - penalty[other_row[entrant]]
                          + penalty[row[entrant] + 1] - penalty[row[entrant]])
        return delta

    def _swap(self, round_tables: list[list[int]], where: list[int], first: int, second: int,
              at: int, other_at: int) -> None:
        table, other_table = round_tables[first], round_tables[second]
        mover, other_mover = table[at], other_table[other_at]
        for entrant in table:
            if entrant != mover:
                self._shift(mover, entrant, -1)
                self._shift(other_mover, entrant, 1)
        for entrant in other_table:
            if entrant != other_mover:
                self._shift(other_mover, entrant, -1)
                self._shift(mover, entrant, 1)
        table[at], other_table[other_at] = other_mover, mover
        where[mover], where[other_mover] = second, first


def _cover(entrants: int, sizes: Sequence[int]) -> list[list[list[int]]]:
    """Rounds of tables in which every pair meets, as few as the search finds, then with the
    most meetings of any pair lowered as far as it goes."""
    covering = _Covering(entrants, sizes, random.Random(entrants * 100 + len(sizes)))
    if len(sizes) == 1:
        covering.add_round()
        return covering.snapshot()
    for _ in range(lower_bound(entrants, sizes)):
        covering.add_round()
    uncovered = [1.0] + [0.0] * 64
    while not covering.search(uncovered, ITERATIONS):
        covering.add_round()
    best = covering.snapshot()
    pairs = entrants * (entrants - 1) // 2
    floor = -(-len(best) * sum(size * (size - 1) // 2 for size in sizes) // pairs)
    for cap in range(floor, covering.most):
        penalty = [1.0] + [float(max(0, count - cap)) for count in range(1, 66)]
        if covering.search(penalty, ITERATIONS):
            return covering.snapshot()
    return best


# --- seats ----------------------------------------------------------------------------------

def _spread_seats(groupings: list[list[list[int]]],
                  entrants: int) -> tuple[list[list[int]], list[list[int]]]:
    """Who takes seat 0 and who the last seat at every table: each spread over the entrants
    as evenly as the tables allow, the last seat among those not in seat 0."""
    tables = [table for tables in groupings for table in tables]
    first = _spread([tuple(table) for table in tables], entrants)
    last = _spread([tuple(entrant for entrant in table if entrant != head)
                    for table, head in zip(tables, first, strict=True)], entrants)
    shaped_first, shaped_last, at = [], [], 0
    for round_tables in groupings:
        shaped_first.append(first[at:at + len(round_tables)])
        shaped_last.append(last[at:at + len(round_tables)])
        at += len(round_tables)
    return shaped_first, shaped_last


def _spread(tables: Sequence[tuple[int, ...]], entrants: int) -> list[int]:
    """One entrant per table such that the counts of entrants' choices span the narrowest
    range [low, low + spread] any choice allows (the highest low on a tie): a feasible
    flow from entrants (each sending between low and high) to tables (each taking one)."""
    total = len(tables)
    for spread in range(total + 1):
        for low in range(total // entrants, -1, -1):
            high = low + spread
            if high * entrants < total:
                break
            chosen = _choose(tables, entrants, low, high)
            if chosen is not None:
                return chosen
    raise AssertionError("some choice of one entrant per table always exists")


def _choose(tables: Sequence[tuple[int, ...]], entrants: int, low: int,
            high: int) -> list[int] | None:
    graph = nx.DiGraph()
    graph.add_node("entrants", demand=low * entrants - len(tables))
    for entrant in range(entrants):
        graph.add_node(entrant, demand=-low)
        graph.add_edge("entrants", entrant, capacity=high - low, weight=0)
    for index, table in enumerate(tables):
        graph.add_node(("table", index), demand=1)
        for entrant in table:
            graph.add_edge(entrant, ("table", index), capacity=1, weight=0)
    try:
        _, flow = nx.network_simplex(graph)
    except nx.NetworkXUnfeasible:
        return None
    return [next(entrant for entrant in table if flow[entrant][("table", index)])
            for index, table in enumerate(tables)]
