"""A table's result read from its match: ranks, match points and game points.

The match's own log says how it ended (``MatchCompleted``, ``SeatForfeited`` or
``MatchAborted``); this turns that into what a tournament counts. Scores where low wins
(rummy's and rami's penalty points) are negated into game points, so more is always
better in standings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.tournaments.model import table_points


@dataclass(frozen=True)
class TableOutcome:
    """How a table's match ended, by seat: finishing ranks (0 first, ties shared), match
    points, game points (more is better); ``forfeit`` when a seat forfeited or the match
    was called off."""

    ranks: tuple[int, ...]
    points: tuple[float, ...]
    game_points: tuple[float, ...]
    forfeit: bool


def outcome_of(completion: Mapping[str, Any] | None, seats: int,
               low_scores_win: bool) -> TableOutcome:
    """The outcome of a match that is over, from its completion payload (None, or no
    winners, for a match called off: every seat shares the rank, and no game points)."""
    if not completion or not completion.get("winners"):
        return TableOutcome((0,) * seats, table_points((0,) * seats), (0.0,) * seats, True)
    scores = [float(score) for score in completion.get("final_scores", [0] * seats)]
    game_points = tuple(-score if low_scores_win else score for score in scores)
    if "ranking" in completion:
        ranks = _ranks_of_forfeit(completion["ranking"], game_points)
        forfeit = True
    else:
        ranks = tuple(sum(1 for other in game_points if other > mine) for mine in game_points)
        forfeit = False
    return TableOutcome(ranks, table_points(ranks), game_points, forfeit)


def _ranks_of_forfeit(ranking: Sequence[int], game_points: Sequence[float]) -> tuple[int, ...]:
    """The forfeiting seat (last in ``ranking``) ranks last alone; the others by their
    scores as they stood, equal scores sharing a rank."""
    loser = ranking[-1]
    ranks = [0] * len(game_points)
    for seat in range(len(game_points)):
        if seat == loser:
            ranks[seat] = len(game_points) - 1
        else:
            ranks[seat] = sum(1 for other in range(len(game_points))
                              if other != loser and game_points[other] > game_points[seat])
    return tuple(ranks)
