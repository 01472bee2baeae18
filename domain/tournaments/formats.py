"""Each format's next round, from the results recorded so far, and the final standings.

One function per question, dispatching on the format, so the tournament's fold and the
verifier ask the same rule: the verifier pairs every round again from the results
recorded before it and compares with the log.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from domain.tournaments import arena, elimination, round_robin, swiss
from domain.tournaments.model import Pairing, Table
from domain.tournaments.standings import Standing, standings

if TYPE_CHECKING:
    from domain.tournaments.tournament import TournamentState

ELIMINATIONS = ("single_elimination", "double_elimination")


def next_pairing(state: TournamentState) -> Pairing | None:
    """The pairing of the round after the last one, or None when the format is done."""
    settings, number = state.settings, len(state.rounds) + 1
    entrants = len(state.entrants)
    active = [entrant for entrant in range(entrants) if entrant not in state.withdrawn]
    if settings.format in ("round_robin", "double_round_robin"):
        schedule = round_robin.rounds(entrants, settings.table_size,
                                      double=settings.format == "double_round_robin")
        if number > len(schedule):
            return None
        return without_withdrawn(schedule[number - 1], state.withdrawn)
    if settings.format == "swiss":
        if number > (settings.rounds or 0) or len(active) < 2:
            return None
        return swiss.pair(active, state.results, state.byes, settings.table_size)
    return elimination.pair(entrants, state.results, state.byes,
                            double=settings.format == "double_elimination",
                            withdrawn=frozenset(state.withdrawn))


def without_withdrawn(pairing: Pairing, withdrawn: frozenset[int]) -> Pairing:
    """A scheduled round without the entrants who withdrew: a table left with one entrant
    becomes that entrant's bye; a table left with two or more plays on."""
    if not withdrawn:
        return pairing
    tables: list[Table] = []
    byes = [entrant for entrant in pairing.byes if entrant not in withdrawn]
    for table in pairing.tables:
        seats = tuple(entrant for entrant in table.seats if entrant not in withdrawn)
        if len(seats) >= 2:
            tables.append(Table(len(tables), seats))
        else:
            byes += seats
    return Pairing(tuple(tables), tuple(byes))


def ranked(state: TournamentState) -> tuple[Standing, ...]:
    """The standings: by match points and the tournament's tie-breaks; in an elimination
    by how far each entrant went (``elimination.placings``: the champion, the runner-up,
    then each round's losers together), points and tie-breaks ordering each place."""
    withdrawn = frozenset(state.withdrawn)
    if state.settings.format == "arena":
        return arena_ranked(state)
    rows = standings(len(state.entrants), state.results, state.byes,
                     state.settings.tie_breaks, withdrawn)
    if state.settings.format not in ELIMINATIONS:
        return rows
    groups = elimination.placings(len(state.entrants), state.results, state.byes,
                                  double=state.settings.format == "double_elimination",
                                  withdrawn=withdrawn)
    place = {entrant: number for number, group in enumerate(groups) for entrant in group}
    by_place = sorted(rows, key=lambda row: place.get(row.entrant, len(groups)))
    firsts: dict[int, int] = {}
    for position, row in enumerate(by_place, 1):
        firsts.setdefault(place.get(row.entrant, len(groups)), position)
    return tuple(replace(row, rank=firsts[place.get(row.entrant, len(groups))])
                 for row in by_place)


def arena_ranked(state: TournamentState) -> tuple[Standing, ...]:
    """An arena's standings (``arena.arena_standings``): its points are arena points, and
    entrants level on points, wins and tables played share a rank."""
    rows: list[Standing] = []
    for position, score in enumerate(arena.arena_standings(len(state.entrants),
                                                           state.results), 1):
        previous = rows[-1] if rows else None
        level = previous is not None and (previous.points, previous.wins,
                                          previous.played) == (score.points, score.wins,
                                                               score.played)
        rows.append(Standing(previous.rank if previous and level else position,
                             score.entrant, score.points, score.played, score.wins, 0,
                             {}, score.entrant in state.withdrawn))
    return tuple(rows)


def standings_of(state: TournamentState) -> list[dict[str, Any]]:
    """The final standings as ``TournamentCompleted`` records them."""
    return [{"rank": row.rank, "entrant": row.entrant, "points": row.points}
            for row in ranked(state)]
