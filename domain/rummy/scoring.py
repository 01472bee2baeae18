"""Round scores and the end of the game (docs/rules.md 3.6), run by the workers.

Scores are minus points: the lower the better. ``score_round`` is the ``HandScored``
payload of a round that ended; ``final_result`` the ``MatchCompleted`` payload.
"""

from __future__ import annotations

from typing import Any

from domain.cards import sort_cards
from domain.rummy.state import RummyState
from domain.rummy.table import minus_points


def score_round(state: RummyState) -> dict[str, Any]:
    """Minus points for the cards left in hand, doubled when the winner went rummy.

    A void round (turn cap, or a stock that cannot be rebuilt) scores nothing, does not
    count towards ``rounds``, and the same dealer deals again (docs/rules.md 0).
    """
    ending = state.ending or {}
    winner, rummy = ending.get("winner"), bool(ending.get("rummy"))
    void = ending.get("result") == "void"
    factor = 2 if rummy else 1
    left = [0 if void or seat == winner else minus_points(hand)
            for seat, hand in enumerate(state.hands)]
    points = [minus * factor for minus in left]
    seats = [{"seat": seat, "hand": list(sort_cards(hand)), "minus_points": left[seat],
              "points": points[seat]} for seat, hand in enumerate(state.hands)]
    scores = [total + p for total, p in zip(state.scores, points, strict=True)]
    played = state.rounds_played + (0 if void else 1)
    return {
        "hand_number": state.hand_number,
        "result": "void" if void else "out",
        "reason": ending.get("reason"),
        "winner": winner,
        "hand_winners": [] if winner is None else [winner],
        "rummy": rummy,
        "points": points,
        "scores": scores,
        "seats": seats,
        "table": [meld.to_dict() for meld in state.table],
        "next_dealer": state.dealer if void else state.next_seat(state.dealer),
        "game_over": _game_over(state, scores, played),
    }


def _game_over(state: RummyState, scores: list[int], played: int) -> bool:
    """``rounds`` rounds played, or someone at ``penalty_limit`` minus points."""
    limit = state.options.penalty_limit
    rounds = state.options.rounds or state.seats
    return played >= rounds or (limit is not None and max(scores) >= limit)


def final_result(state: RummyState) -> dict[str, Any]:
    """The lowest total wins; equal lowest totals share the win."""
    scores = list(state.scores)
    best = min(scores)
    winners = [seat for seat, score in enumerate(scores) if score == best]
    return {"winner": winners[0] if len(winners) == 1 else None, "winners": winners,
            "final_scores": scores, "rounds_played": state.rounds_played}
