"""The vocabulary every tournament format shares: tables, rounds, results and byes.

An entrant is its number in the entry list (0..n-1); the entry list is the seeding order,
entrant 0 the top seed. A table seats entrants in seat order (seat 0 first). A finished
table gives each seat match points between 0 and 1 (``table_points``): a two-seat table
gives 1 for a win, 0.5 each for a draw, 0 for a loss; a larger table gives each seat the
share of its tablemates it finished ahead of, a tie counting half. Game points are what
the seat scored in the match itself, oriented so that more is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

BYE_POINTS = 1.0
"""Match points of a bye: a full point, as a won match (FIDE's and Challonge's default)."""


@dataclass(frozen=True)
class Table:
    """One match of a round: its number in the round (0-based) and entrants by seat."""

    number: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Pairing:
    """A round as paired: its tables, and the entrants who sit out with a bye."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()

    @property
    def entrants(self) -> tuple[int, ...]:
        """Everyone the round places, at a table or on a bye."""
        return (*(entrant for table in self.tables for entrant in table.seats), *self.byes)


@dataclass(frozen=True)
class Result:
    """A finished table of round ``round`` (1-based): each seat's match points and game
    points. A forfeited table has the points the forfeit gave."""

    round: int
    seats: tuple[int, ...]
    points: tuple[float, ...]
    game_points: tuple[float, ...]
    forfeit: bool = False

    def opponents(self, entrant: int) -> tuple[int, ...]:
        """The entrant's tablemates at this table."""
        return tuple(other for other in self.seats if other != entrant)

    def points_of(self, entrant: int) -> float:
        return self.points[self.seats.index(entrant)]


@dataclass(frozen=True)
class Bye:
    """An entrant who sat out round ``round`` and got ``points`` for it."""

    round: int
    entrant: int
    points: float = BYE_POINTS


def table_points(ranks: Sequence[int]) -> tuple[float, ...]:
    """Match points for a finished table from each seat's finishing rank (0 is first;
    tied seats share a rank): the share of tablemates the seat finished ahead of, a tie
    counting half. Two seats: 1 and 0, or 0.5 each."""
    others = len(ranks) - 1
    if others <= 0:
        return tuple(BYE_POINTS for _ in ranks)
    return tuple(
        (sum(1 for theirs in ranks if theirs > mine)
         + 0.5 * (sum(1 for theirs in ranks if theirs == mine) - 1)) / others
        for mine in ranks)
