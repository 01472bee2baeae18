"""Gem Rummy showdown, hand scores and the match result (docs/rules.md 2.5 and 2.6).

These run in the workers: ``score_hand`` when a hand has ended, ``match_result`` once the
match has a winner. Both are pure functions of the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.cards import sort_cards
from domain.gem.gems import shows_all_gems
from domain.gem.options import GemOptions
from domain.gem.state import GemState, match_winner
from domain.layoffs import best_layoffs, lay_off_in_turns
from domain.melds import Meld, MeldSolver


def settle(kind: str, knocker_deadwood: int, other_deadwood: int,
           options: GemOptions) -> tuple[str, bool, int]:
    """One knocker against one non-knocker: (result, knocker won?, points), docs/rules.md 2.5.

    A tie is not an undercut; a knocker who is not undercut scores at least
    ``min_knock_score``.
    """
    k, n = knocker_deadwood, other_deadwood
    if kind == "big_gin":
        return "big_gin", True, (options.big_gin_bonus or 0) + n
    if kind == "gin":
        return "gin", True, options.gin_bonus + n
    if n < k:
        extra = k - n if options.undercut_adds_difference else 0
        return "undercut", False, options.undercut_bonus + extra
    return "knock", True, max(n - k, options.min_knock_score)


def gem_parts(state: GemState, seat: int, knocker: int | None) -> int:
    """The Gem Parts bonus of ``seat``: its cards at the end of the hand show all eight gems.

    The knocker's cards are the 11 (or 12) left after the knock; a non-knocker's are the
    whole hand, laid-off cards included. Nobody gets it in a drawn hand.
    """
    if knocker is None or not shows_all_gems(state.hands[seat]):
        return 0
    options = state.options
    return options.gem_parts_knocker if seat == knocker else options.gem_parts_other


def _seat_record(seat: int, hand: Sequence[str], solver: MeldSolver) -> dict[str, Any]:
    best = solver.best(hand)
    return {"seat": seat, "hand": list(sort_cards(hand)), "deadwood": best.deadwood,
            "melds": [m.to_dict() for m in best.melds], "layoffs": [],
            "unmatched": list(best.unmatched)}


def _drawn(state: GemState, solver: MeldSolver) -> dict[str, Any]:
    """A drawn hand (docs/rules.md 2.4): nobody scores and the same dealer deals again."""
    zeros = [0] * state.seats
    return {
        "hand_number": state.hand_number, "result": "draw",
        "reason": state.ending.get("reason") if state.ending else None,
        "knocker": None, "winner": None, "hand_winners": [], "points": zeros,
        "gem_parts": zeros, "pairings": [], "table": [],
        "seats": [_seat_record(s, state.hands[s], solver) for s in range(state.seats)],
        "next_dealer": state.dealer,
    }


def _after_layoffs(seat: int, hand: Sequence[str], laid: Sequence[tuple[str, int]],
                   solver: MeldSolver) -> dict[str, Any]:
    """A non-knocker's record: the cards left after ``laid``, arranged at their best."""
    rest = list(hand)
    for card, _ in laid:
        rest.remove(card)
    best = solver.best(rest)
    record = _seat_record(seat, hand, solver)
    record.update(deadwood=best.deadwood, melds=[m.to_dict() for m in best.melds],
                  layoffs=[{"card": c, "meld": i} for c, i in laid],
                  unmatched=list(best.unmatched))
    return record


def _others_after_layoffs(state: GemState, knocker: int, kind: str, table: list[Meld],
                          solver: MeldSolver) -> dict[int, dict[str, Any]]:
    """Each non-knocker's record after lay-offs: none against gin or big gin; with three
    players they go round one card at a time, clockwise from the knocker (docs/rules.md 2.6)."""
    others = [(knocker + i) % state.seats for i in range(1, state.seats)]
    if kind in ("gin", "big_gin"):
        return {s: _seat_record(s, state.hands[s], solver) for s in others}
    if len(others) == 1:
        plan = best_layoffs(solver, state.hands[others[0]], table)
        table[:] = plan.table
        return {others[0]: _after_layoffs(others[0], state.hands[others[0]], plan.layoffs,
                                          solver)}
    grown, laid = lay_off_in_turns(solver, [(s, state.hands[s]) for s in others], table)
    table[:] = grown
    return {s: _after_layoffs(s, state.hands[s], laid[s], solver) for s in others}


def score_hand(state: GemState, solver: MeldSolver) -> dict[str, Any]:
    """The ``HandScored`` payload for the hand that just ended.

    ``points`` are each seat's score for the hand, Gem Parts included (``gem_parts``
    says how much of it); the hand's ``winner`` deals next.
    """
    ending = state.ending or {}
    if ending.get("result") == "draw":
        return _drawn(state, solver)
    knocker, kind, k = ending["seat"], ending["kind"], ending["deadwood"]
    table = [Meld.from_dict(m) for m in ending["melds"]]
    records = _others_after_layoffs(state, knocker, kind, table, solver)
    records[knocker] = {"seat": knocker, "hand": list(sort_cards(state.hands[knocker])),
                        "deadwood": k, "melds": ending["melds"], "layoffs": [],
                        "unmatched": ending["unmatched"], "discard": ending.get("discard")}
    won = [0] * state.seats
    pairings, winners = [], []
    for seat in sorted(records):
        if seat == knocker:
            continue
        result, knocker_won, points = settle(kind, k, records[seat]["deadwood"], state.options)
        winner = knocker if knocker_won else seat
        won[winner] += points
        winners.append(winner)
        pairings.append({"defender": seat, "result": result, "winner": winner, "points": points,
                         "knocker_deadwood": k, "defender_deadwood": records[seat]["deadwood"]})
    bonus = [gem_parts(state, seat, knocker) for seat in range(state.seats)]
    hand_winner = _hand_winner(state, knocker, won)
    return {
        "hand_number": state.hand_number,
        "result": pairings[0]["result"] if len(pairings) == 1 else kind,
        "knocker": knocker, "winner": hand_winner, "hand_winners": winners,
        "points": [p + b for p, b in zip(won, bonus, strict=True)], "gem_parts": bonus,
        "pairings": pairings, "table": [m.to_dict() for m in table],
        "seats": [records[s] for s in range(state.seats)],
        "next_dealer": hand_winner,
    }


def _hand_winner(state: GemState, knocker: int, won: list[int]) -> int:
    """docs/rules.md 2.5: the most points in the hand, Gem Parts excluded.

    Someone always scores (the knocker at least ``min_knock_score`` or an undercutter
    its bonus). Equal leaders *(ours: docs/rules.md is silent)* go to the first clockwise
    from the knocker, the knocker first.
    """
    order = [(knocker + i) % state.seats for i in range(state.seats)]
    return max(order, key=lambda seat: (won[seat], -order.index(seat)))


def match_result(state: GemState) -> dict[str, Any]:
    """The ``MatchCompleted`` payload: the winner and the totals (Gem Rummy has no
    end-of-match bonuses)."""
    last = state.results[-1]["points"] if state.results else [0] * state.seats
    winner = match_winner(state.scores, last, state.options.target)
    return {"winner": winner, "winners": [] if winner is None else [winner],
            "hand_scores": list(state.scores), "bonuses": [], "final_scores": list(state.scores)}
