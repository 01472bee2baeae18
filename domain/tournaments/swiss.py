"""Swiss pairing: each round pairs the entrants still playing by their scores so far.

An entrant's score is its match points from every table it finished plus its byes; the
ranking is by score, highest first, then by entrant number (the seeding). A score group
is the entrants on one score. Every pairing is a pure function of the entrants still
playing, the results and the byes so far, so a verifier can pair each round again from a
tournament's log and compare.

Two-seat tables (``pair(..., table_size=2)``), in strict priority:

1. Everyone still playing is placed once. With an odd count, the bye goes first, to the
   lowest-ranked entrant who has not had one (the lowest-ranked of all when everyone has;
   any earlier ``Bye``, whatever its points, counts as having had one).
2. No rematch while any pairing of the rest avoids them all; when rematches cannot be
   avoided, as few as possible.
3. Pairs within score groups: the sum over tables of the squared score difference is the
   least possible, so a group with an odd count floats one entrant to the next group,
   never two when one will do, and a float spans the smallest gap it can (the leader of a
   lone top group meets the best of the next group, not whoever makes the fewest floats).
4. Within a score group, the top half meets the bottom half in rank order (1 v 5, 2 v 6,
   3 v 7, 4 v 8 in a group of eight), as closely as the rules above allow; a floater is
   the lowest of its group and meets the highest of the next.

This is a maximum-weight perfect matching (``networkx.max_weight_matching``) whose integer
edge weights encode rules 2 to 4 lexicographically. networkx's blossom algorithm is pure
Python, so the graph starts sparse: each entrant gets edges to the ``WINDOW`` nearest
entrants above and below it in the ranking that it has not met, and to the ``WINDOW``
nearest around its partner in the ideal pairing. The window doubles while its matching is
not perfect (so a pairing without rematches is found whenever one exists, and the complete
graph, rematches allowed at their price, decides when none does), or while its floats
exceed those of pairing score-sorted neighbours, a bound no pairing beats: a window that
meets it is proven best on rules 2 and 3. Up to ``EXACT_UP_TO`` entrants a window that
does not is widened to the complete graph; above that, until widening stops improving it
(the tests compare it with the complete graph over random histories). Rule 4 is what the
window's edges allow, which is the ideal pairing wherever it has no rematch.

Seats at a two-seat table: seat 0 goes to the entrant who has taken seat 0 fewer times;
then to the one who took seat 1 in its last game; then the higher-ranked entrant takes the
seat it did not take in its last game, or, with no game yet, seat 0 when its entrant number
is even (seeds 1, 3, 5 ...), so the first round alternates seats by table.

Larger tables (3 to 6 seats): entrants in rank order fill the tables of
``seating.table_sizes`` (full tables first, smaller ones at the bottom); then swaps between
adjacent tables cut the number of tablemates who have met before, moving nobody more than
one table from where the ranking put it, nor swapping entrants more than one score group
apart. Seat 0 goes to the entrant who has taken it fewest times, then to one who did not
take it in its last game, then to the higher-ranked; the other seats follow the same order.

Tables are numbered in rank order of their best entrant. ``check`` lists a pairing's
breaches of the hard rules (placement, byes, avoidable rematches) for tests and benches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import networkx as nx

from domain.tournaments.model import Bye, Pairing, Result, Table
from domain.tournaments.seating import table_sizes, unseated

SCORE_UNITS = 120
"""Scores are counted in 1/120 points: every share a table of up to six seats gives (a tie
counting half) is a whole number of them, so scores add up exactly and compare as ints."""

WINDOW = 4
"""Candidate opponents an entrant starts with on each side of it and around its ideal
partner, before any widening."""

EXACT_UP_TO = 100
"""Up to this many entrants at tables, a pairing the window cannot prove best is made over
the complete graph (a fraction of a second at this size)."""

EXACT_CHECK = 160
"""Up to this many entrants at tables, ``check`` finds the fewest possible rematches from
the graph of pairs who have not met; above it, from a fresh ``pair``."""


@dataclass(frozen=True)
class History:
    """What the results and byes so far say about the entrants still playing: scores (in
    ``SCORE_UNITS``), who met whom and how often, how often each took seat 0, the seat of
    each one's last game, and who has had a bye."""

    scores: Mapping[int, int]
    meetings: Mapping[tuple[int, int], int]
    first_seats: Mapping[int, int]
    last_seats: Mapping[int, int]
    had_bye: frozenset[int]

    def met(self, entrant: int, other: int) -> bool:
        return (min(entrant, other), max(entrant, other)) in self.meetings

    def rank_key(self, entrant: int) -> tuple[int, int]:
        """Score descending, then entrant number: the seed breaks ties."""
        return -self.scores[entrant], entrant

    def ranked(self, entrants: Sequence[int]) -> list[int]:
        return sorted(entrants, key=self.rank_key)


def units(points: float) -> int:
    """Match points in ``SCORE_UNITS``."""
    return round(points * SCORE_UNITS)


def history(active: Sequence[int], results: Sequence[Result], byes: Sequence[Bye]) -> History:
    """The history of the entrants in ``active`` (withdrawn entrants' tables still count as
    meetings for their tablemates). A forfeited table counts like any other: its entrants
    were paired, so they have met and took their seats."""
    playing = set(active)
    scores = dict.fromkeys(playing, 0)
    first_seats = dict.fromkeys(playing, 0)
    last: dict[int, tuple[int, int]] = {}
    meetings: Counter[tuple[int, int]] = Counter()
    for result in results:
        for seat, (entrant, points) in enumerate(zip(result.seats, result.points, strict=True)):
            if entrant in playing:
                scores[entrant] += units(points)
                first_seats[entrant] += seat == 0
                if entrant not in last or result.round >= last[entrant][0]:
                    last[entrant] = (result.round, seat)
        for pair in combinations(sorted(result.seats), 2):
            meetings[pair] += 1
    for bye in byes:
        if bye.entrant in playing:
            scores[bye.entrant] += units(bye.points)
    return History(scores, dict(meetings), first_seats,
                   {entrant: seat for entrant, (_, seat) in last.items()},
                   frozenset(bye.entrant for bye in byes))


def bye_for(ranked: Sequence[int], past: History) -> int:
    """The lowest-ranked entrant who has not had a bye; the lowest-ranked when all have."""
    return next((entrant for entrant in reversed(ranked) if entrant not in past.had_bye),
                ranked[-1])


def pair(active: Sequence[int], results: Sequence[Result], byes: Sequence[Bye],
         table_size: int = 2) -> Pairing:
    """The next round for the entrants in ``active`` (any order; withdrawn entrants left
    out) after ``results`` and ``byes``; see the module docstring for the rules."""
    if len(set(active)) != len(active):
        raise ValueError("an entrant is listed twice among the active entrants")
    past = history(active, results, byes)
    ranked = past.ranked(active)
    bye: tuple[int, ...] = ()
    if unseated(len(ranked), table_size):
        bye = (bye_for(ranked, past),)
        ranked.remove(bye[0])
    if table_size == 2:
        groups = [list(table) for table in matching(ranked, past)]
    else:
        groups = by_score(ranked, past, table_size)
    groups.sort(key=lambda seats: min(past.rank_key(entrant) for entrant in seats))
    return Pairing(tuple(Table(number, seat_order(seats, past))
                         for number, seats in enumerate(groups)), bye)


# --- two seats: a weighted matching -------------------------------------------------------

class _Brackets:
    """The entrants to pair in rank order (positions 0..n-1) with their score groups, and
    what a pair of positions costs under each rule: a rematch, the squared score difference,
    the distance from the ideal top-half-bottom-half pairing."""

    def __init__(self, players: Sequence[int], past: History) -> None:
        self.players = players
        self.past = past
        self.score = [past.scores[entrant] for entrant in players]
        self.group: list[int] = []
        self.start: list[int] = []
        self.end: list[int] = []
        for position, score in enumerate(self.score):
            if not position or score != self.score[position - 1]:
                self.start.append(position)
                self.end.append(position)
            self.end[-1] = position + 1
            self.group.append(len(self.start) - 1)
        self.half = [(end - start - start % 2 - end % 2) // 2
                     for start, end in zip(self.start, self.end, strict=True)]
        self.partner = [self._ideal(position) for position in range(len(players))]

    def _ideal(self, position: int) -> int | None:
        """The position this one meets in its group's ideal pairing, if inside its group.

        With an odd count above it, a group's top entrant meets the floater from above;
        with an odd count down to its end, its bottom entrant floats down; the rest pair
        top half against bottom half."""
        group = self.group[position]
        first = self.start[group] + self.start[group] % 2
        last = self.end[group] - self.end[group] % 2
        half = self.half[group]
        if not first <= position < last or not half:
            return None
        return position + half if position < first + half else position - half

    def met(self, i: int, j: int) -> bool:
        return self.past.met(self.players[i], self.players[j])

    def cost(self, i: int, j: int) -> tuple[int, int, int]:
        """(rematch, squared score difference, distance from the ideal) of positions i < j."""
        top, bottom = self.group[i], self.group[j]
        if top == bottom:
            ideal = (j - i - self.half[top]) ** 2
        else:
            ideal = (self.end[top] - 1 - i) ** 2 + (j - self.start[bottom]) ** 2
        return int(self.met(i, j)), (self.score[i] - self.score[j]) ** 2, ideal

    def everyone(self) -> list[tuple[int, int]]:
        return list(combinations(range(len(self.players)), 2))

    def window(self, width: int) -> list[tuple[int, int]]:
        """For each position, the ``width`` nearest unmet positions above, below and around
        its ideal partner."""
        n = len(self.players)
        edges: set[tuple[int, int]] = set()
        for i in range(n):
            self._reach(i, range(i + 1, n), width, edges)
            self._reach(i, range(i - 1, -1, -1), width, edges)
            partner = self.partner[i]
            if partner is not None:
                self._reach(i, _around(partner, n), width, edges)
        return sorted(edges)

    def _reach(self, i: int, positions: Iterator[int] | range, width: int,
               edges: set[tuple[int, int]]) -> None:
        found = 0
        for j in positions:
            if j != i and not self.met(i, j):
                edges.add((min(i, j), max(i, j)))
                found += 1
                if found == width:
                    return

    def best(self, edges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        """A maximum matching over ``edges`` of the least cost, criteria in strict order:
        each criterion's scale exceeds the most every lower one could add up to."""
        costs = [self.cost(i, j) for i, j in edges]
        tables = len(self.players) // 2
        most_float = max((cost[1] for cost in costs), default=0)
        most_ideal = max((cost[2] for cost in costs), default=0)
        float_scale = tables * most_ideal + 1
        rematch_scale = tables * (float_scale * most_float + most_ideal) + 1
        graph = nx.Graph()
        graph.add_nodes_from(range(len(self.players)))
        for (i, j), (rematch, floated, ideal) in zip(edges, costs, strict=True):
            graph.add_edge(i, j, weight=rematch_scale * (1 - rematch)
                           + float_scale * (most_float - floated) + most_ideal - ideal + 1)
        matched = nx.max_weight_matching(graph, maxcardinality=True)
        return sorted((min(i, j), max(i, j)) for i, j in matched)


    def total(self, pairs: Sequence[tuple[int, int]]) -> tuple[int, int, int]:
        """Rematches, floats and distance from the ideal, summed over ``pairs``."""
        costs = [self.cost(i, j) for i, j in pairs]
        return (sum(cost[0] for cost in costs), sum(cost[1] for cost in costs),
                sum(cost[2] for cost in costs))

    def least_floats(self) -> int:
        """The floats of pairing score-sorted neighbours (1 v 2, 3 v 4, ...): no pairing has
        less, since for squared differences uncrossing two pairs never costs more."""
        return sum((self.score[i] - self.score[i + 1]) ** 2
                   for i in range(0, len(self.players) - 1, 2))

    def entrants(self, pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(self.players[i], self.players[j]) for i, j in pairs]


def _around(centre: int, n: int) -> Iterator[int]:
    """Positions 0..n-1 by distance from ``centre``, the lower first on a tie."""
    yield centre
    for distance in range(1, n):
        if centre - distance < 0 and centre + distance >= n:
            return
        if centre - distance >= 0:
            yield centre - distance
        if centre + distance < n:
            yield centre + distance


def matching(players: Sequence[int], past: History,
             window: int | None = WINDOW) -> list[tuple[int, int]]:
    """The two-seat tables of an even count of ``players`` (in rank order, the bye taken
    out), each as (higher-ranked, lower-ranked), best table first.

    The first graph is the ``window``; it is widened (doubled) while its matching is not
    perfect, or has floats above the unconstrained least (the score-sorted neighbours
    paired, ``_Brackets.least_floats``), which proves it best on rematches and floats. Up
    to ``EXACT_UP_TO`` entrants it is widened to the complete graph if need be; above that,
    until widening no longer improves it. ``window`` None pairs over the complete graph at
    once: the reference the windowed pairing is tested against."""
    if len(players) % 2:
        raise ValueError("a two-seat round pairs an even count; take the bye out first")
    brackets = _Brackets(players, past)
    least = (0, brackets.least_floats())
    width = window
    found: tuple[tuple[int, int, int], list[tuple[int, int]]] | None = None
    while True:
        complete = width is None or 2 * width >= len(players)
        pairs = brackets.best(brackets.everyone() if complete else brackets.window(width or 0))
        if 2 * len(pairs) == len(players):
            cost = brackets.total(pairs)
            if complete or cost[:2] == least:
                return brackets.entrants(pairs)
            if found is not None and cost[:2] >= found[0][:2] and len(players) > EXACT_UP_TO:
                return brackets.entrants(min(found, (cost, pairs))[1])
            if found is None or cost < found[0]:
                found = (cost, pairs)
        width = 2 * (width or 0)


# --- larger tables: by score, then swaps ----------------------------------------------------

def by_score(players: Sequence[int], past: History, table_size: int) -> list[list[int]]:
    """Tables of ``players`` (in rank order, any bye taken out): filled in rank order, then
    improved by swaps between adjacent tables that cut repeat meetings."""
    tables, start = [], 0
    for size in table_sizes(len(players), table_size):
        tables.append(list(players[start:start + size]))
        start += size
    scores = sorted({past.scores[entrant] for entrant in players}, reverse=True)
    level = {score: index for index, score in enumerate(scores)}
    group = {entrant: level[past.scores[entrant]] for entrant in players}
    origin = {entrant: number for number, table in enumerate(tables) for entrant in table}

    def repeats(entrant: int, table: list[int], leaving: int) -> int:
        return sum(past.met(entrant, other) for other in table if other != leaving)

    improved = True
    while improved:
        improved = False
        for number in range(len(tables) - 1):
            upper, lower = tables[number], tables[number + 1]
            best: tuple[int, int, int] | None = None
            for down in upper:
                for up in lower:
                    if (abs(group[down] - group[up]) > 1
                            or abs(number + 1 - origin[down]) > 1
                            or abs(number - origin[up]) > 1):
                        continue
                    gain = (repeats(down, upper, down) + repeats(up, lower, up)
                            - repeats(down, lower, up) - repeats(up, upper, down))
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, down, up)
            if best is not None:
                _, down, up = best
                upper[upper.index(down)] = up
                lower[lower.index(up)] = down
                upper.sort(key=past.rank_key)
                lower.sort(key=past.rank_key)
                improved = True
    return tables


# --- seats ----------------------------------------------------------------------------------

def seat_order(entrants: Sequence[int], past: History) -> tuple[int, ...]:
    """The entrants of one table in seat order (see the module docstring)."""
    ranked = past.ranked(entrants)
    if len(ranked) == 2:
        return _two_seats(ranked[0], ranked[1], past)
    return tuple(sorted(ranked, key=lambda entrant: (
        past.first_seats[entrant], past.last_seats.get(entrant) == 0, past.rank_key(entrant))))


def _two_seats(higher: int, lower: int, past: History) -> tuple[int, int]:
    """Seat 0 to the one who has had it fewer times; then to the one who sat in seat 1 last
    time; then the higher-ranked alternates from its own last seat."""
    first_higher, first_lower = past.first_seats[higher], past.first_seats[lower]
    if first_higher != first_lower:
        return (higher, lower) if first_higher < first_lower else (lower, higher)
    last_higher, last_lower = past.last_seats.get(higher), past.last_seats.get(lower)
    moved_higher = last_higher is not None and last_higher != 0
    moved_lower = last_lower is not None and last_lower != 0
    if moved_higher != moved_lower:
        return (higher, lower) if moved_higher else (lower, higher)
    if last_higher is None:
        return (higher, lower) if higher % 2 == 0 else (lower, higher)
    return (higher, lower) if last_higher != 0 else (lower, higher)


# --- measures and checks ----------------------------------------------------------------------

def rematches(pairing: Pairing, results: Sequence[Result]) -> int:
    """Pairs of tablemates who have met before (a pair counts once however often)."""
    met = {pair for result in results for pair in combinations(sorted(result.seats), 2)}
    return sum(pair in met for table in pairing.tables
               for pair in combinations(sorted(table.seats), 2))


def floaters(pairing: Pairing, active: Sequence[int], results: Sequence[Result],
             byes: Sequence[Bye]) -> tuple[int, ...]:
    """Entrants seated with someone from another score group, in entrant order."""
    scores = history(active, results, byes).scores
    return tuple(sorted(entrant for table in pairing.tables for entrant in table.seats
                        if any(scores[other] != scores[entrant] for other in table.seats)))


def check(pairing: Pairing, active: Sequence[int], results: Sequence[Result],
          byes: Sequence[Bye], table_size: int = 2) -> list[str]:
    """The pairing's breaches of the hard rules, one sentence each (none when it keeps
    them): someone left out, placed twice or not playing; tables of the wrong sizes; a bye
    too many or too few, to someone who has had one while others have not, or not to the
    lowest-ranked eligible; more rematches than the fewest possible (two seats: from the
    graph of pairs who have not met, or a fresh ``pair`` above ``EXACT_CHECK`` entrants;
    larger tables: a fresh ``pair``), judged once everyone is placed rightly."""
    problems = []
    playing = set(active)
    placed = Counter(pairing.entrants)
    for entrant in sorted(playing):
        if not placed[entrant]:
            problems.append(f"entrant {entrant} is neither at a table nor on a bye")
        elif placed[entrant] > 1:
            problems.append(f"entrant {entrant} is placed {placed[entrant]} times")
    for entrant in sorted(set(placed) - playing):
        problems.append(f"entrant {entrant} is placed but not playing")
    sizes = sorted((len(table.seats) for table in pairing.tables), reverse=True)
    expected = sorted(table_sizes(len(playing), table_size), reverse=True)
    if sizes != expected:
        problems.append(f"tables of {sizes} seats where {expected} are due")
    due = unseated(len(playing), table_size)
    if len(pairing.byes) != due:
        problems.append(f"{len(pairing.byes)} byes where {due} are due")
    past = history(list(playing), results, byes)
    ranked = past.ranked(list(playing))
    fresh = [entrant for entrant in ranked if entrant not in past.had_bye]
    for entrant in pairing.byes:
        if entrant in past.had_bye and fresh:
            problems.append(f"entrant {entrant} has a second bye while entrant {fresh[-1]} "
                            "has had none")
        if entrant in playing and due == 1 and entrant != bye_for(ranked, past):
            problems.append(f"the bye is entrant {bye_for(ranked, past)}'s, the lowest-ranked "
                            f"without one, not entrant {entrant}'s")
    found = rematches(pairing, results)
    if found and not problems:
        fewest = _fewest_rematches(pairing, past, active, results, byes, table_size)
        if found > fewest:
            problems.append(f"{found} rematches where {fewest} cannot be avoided")
    return problems


def _fewest_rematches(pairing: Pairing, past: History, active: Sequence[int],
                      results: Sequence[Result], byes: Sequence[Bye], table_size: int) -> int:
    seated = [entrant for table in pairing.tables for entrant in table.seats]
    if table_size != 2 or len(seated) > EXACT_CHECK:
        return rematches(pair(active, results, byes, table_size), results)
    unmet = nx.Graph()
    unmet.add_nodes_from(seated)
    unmet.add_edges_from(edge for edge in combinations(seated, 2) if not past.met(*edge))
    return len(seated) // 2 - len(nx.max_weight_matching(unmet, maxcardinality=True))
