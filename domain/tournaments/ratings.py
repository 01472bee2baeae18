"""Player ratings: openskill's Plackett-Luce model, one rating per player and variant.

Plackett-Luce rates a whole finished table at once from its finishing order, so a gin
match between two and a rummy table of five are rated alike, and tied seats share a rank.
A rating is a belief about a player's skill: ``mu`` its mean, ``sigma`` how unsure it
still is. A new player starts at openskill's defaults (25 and 25/3); every rated table
moves ``mu`` towards the result and, as the games add up, narrows ``sigma``.

What players see is ``Rating.display``: the conservative ``ordinal`` (``mu - 3 sigma``,
a skill the player almost surely has) on the Elo-like scale openskill's documentation
suggests, ``1500 + 24 * ordinal`` (``ordinal(alpha=200 / sigma0, target=1500)`` with
``sigma0`` the starting 25/3), rounded to a whole number. A new player shows 1500; a
player of average skill climbs above it as the games pile up and ``sigma`` falls.

Ratings belong to one variant: the caller keeps one mapping per variant and rates a
table only against its own variant's. Rating the same tables in the same order always
gives the same ratings, so ratings can be rebuilt from the logs (``rate_all``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""The model with openskill's default parameters; it keeps no state between tables."""

DISPLAY_BASE = 1500
"""What a new player's rating shows."""

DISPLAY_SCALE = 200 / MODEL.sigma
"""Display points per unit of ordinal: a starting sigma's worth is 200, as openskill's
documentation maps ordinals onto an Elo-like scale."""


@dataclass(frozen=True)
class Rating:
    """A player's rating in one variant: skill mean, uncertainty and rated tables."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate: three deviations below the mean."""
        return self.mu - 3 * self.sigma

    @property
    def display(self) -> int:
        """The rating as players see it: 1500 for a new player, on an Elo-like scale."""
        return round(DISPLAY_BASE + DISPLAY_SCALE * self.ordinal)


DEFAULT_RATING = Rating(MODEL.mu, MODEL.sigma)

_NOBODY: Mapping[str, Rating] = MappingProxyType({})


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> tuple[Rating, ...]:
    """The seats' ratings after one finished table, from their ratings before and their
    finishing ranks (0 first; tied seats share a rank)."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if len(ratings) < 2:
        raise ValueError("a rated table seats two or more")
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in ratings]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return tuple(Rating(team[0].mu, team[0].sigma, before.games + 1)
                 for team, before in zip(rated, ratings, strict=True))


def rate_all(results: Iterable[tuple[Sequence[str], Sequence[int]]],
             start: Mapping[str, Rating] = _NOBODY) -> dict[str, Rating]:
    """Every player's rating after the tables in ``results``, rated in order: each table
    is its players (string ids, by seat) and their finishing ranks. Players without a
    rating in ``start`` begin at ``DEFAULT_RATING``."""
    ratings = dict(start)
    for players, ranks in results:
        if len(set(players)) != len(players):
            raise ValueError(f"a player sits once at a table: {list(players)}")
        after = rate([ratings.get(player, DEFAULT_RATING) for player in players], ranks)
        ratings.update(zip(players, after, strict=True))
    return ratings
