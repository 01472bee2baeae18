"""Gin Rummy showdown, hand scores and end-of-match bonuses (docs/rules.md 1.6, 1.8, 1.10).

These run in the workers: ``score_hand`` when a hand has ended, ``match_bonuses`` when
the target is reached. Both are pure functions of the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.cards import sort_cards, without
from domain.gin.options import GinOptions
from domain.gin.state import GinState
from domain.layoffs import best_layoffs, extensions
from domain.melds import Meld, MeldSolver


def settle(kind: str, knocker_deadwood: int, defender_deadwood: int,
           options: GinOptions) -> tuple[str, bool | None, int]:
    """One knocker-defender pairing: (result, knocker won?, points) per docs/rules.md 1.6.

    ``knocker won?`` is None when nobody scores (a tie with ``undercut_on_tie`` false).
    """
    k, d = knocker_deadwood, defender_deadwood
    if kind == "big_gin":
        return "big_gin", True, (options.big_gin_bonus or 0) + d
    if kind == "gin":
        return "gin", True, options.gin_bonus + d
    if k < d:
        return "knock", True, d - k
    if k == d:
        if options.undercut_on_tie:
            return "undercut", False, options.undercut_bonus
        return "tie", None, 0
    return "undercut", False, (k - d) + options.undercut_bonus


def _seat_record(seat: int, hand: Sequence[str], solver: MeldSolver) -> dict[str, Any]:
    best = solver.best(hand)
    return {"seat": seat, "hand": list(sort_cards(hand)), "deadwood": best.deadwood,
            "melds": [m.to_dict() for m in best.melds], "layoffs": [],
            "unmatched": list(best.unmatched)}


def _drawn(state: GinState, solver: MeldSolver) -> dict[str, Any]:
    return {
        "hand_number": state.hand_number, "result": "draw",
        "reason": state.ending.get("reason") if state.ending else None,
        "knocker": None, "winner": None, "hand_winners": [], "points": [0] * state.seats,
        "pairings": [], "table": [],
        "seats": [_seat_record(s, state.hands[s], solver) for s in range(state.seats)],
        "next_dealer": state.dealer,
    }


def _lay_off_one(table: list[Meld], card: str, index: int, goal: Meld) -> None:
    """Lay ``card`` onto ``table[index]``, choosing the reading that leads towards ``goal``."""
    options = extensions(table[index], card)
    wanted = [m for m in options if set(m.represents) <= set(goal.represents)]
    table[index] = (wanted or list(options))[0]


def _round_of_layoffs(state: GinState, knocker: int, table: list[Meld],
                      solver: MeldSolver) -> dict[int, list[tuple[str, int]]]:
    """docs/rules.md 1.8: clockwise from the knocker, one card per go, until everyone passes.

    Each go lays off the first card of the seat's best remaining plan *(ours: the rules
    leave the order of a go open; this keeps each seat's own optimum).*
    """
    defenders = [(knocker + i) % state.seats for i in range(1, state.seats)]
    hands = {d: state.hands[d] for d in defenders}
    laid: dict[int, list[tuple[str, int]]] = {d: [] for d in defenders}
    moved = True
    while moved:
        moved = False
        for d in defenders:
            plan = best_layoffs(solver, hands[d], table)
            if not plan.layoffs:
                continue
            card, index = plan.layoffs[0]
            _lay_off_one(table, card, index, plan.table[index])
            hands[d] = without(hands[d], card)
            laid[d].append((card, index))
            moved = True
    return laid


def _defender_outcomes(state: GinState, knocker: int, kind: str, table: list[Meld],
                       solver: MeldSolver) -> dict[int, dict[str, Any]]:
    """Each defender's record after lay-offs (none against gin or big gin)."""
    defenders = [(knocker + i) % state.seats for i in range(1, state.seats)]
    out: dict[int, dict[str, Any]] = {}
    if kind in ("gin", "big_gin"):
        return {d: _seat_record(d, state.hands[d], solver) for d in defenders}
    if state.seats == 2:
        d = defenders[0]
        plan = best_layoffs(solver, state.hands[d], table)
        table[:] = plan.table
        record = _seat_record(d, state.hands[d], solver)
        record.update(deadwood=plan.deadwood, melds=[m.to_dict() for m in plan.melds],
                      layoffs=[{"card": c, "meld": i} for c, i in plan.layoffs],
                      unmatched=list(plan.unmatched))
        return {d: record}
    laid = _round_of_layoffs(state, knocker, table, solver)
    for d in defenders:
        rest = list(state.hands[d])
        for card, _ in laid[d]:
            rest.remove(card)
        best = solver.best(rest)
        record = _seat_record(d, state.hands[d], solver)
        record.update(deadwood=best.deadwood, melds=[m.to_dict() for m in best.melds],
                      layoffs=[{"card": c, "meld": i} for c, i in laid[d]],
                      unmatched=list(best.unmatched))
        out[d] = record
    return out


def score_hand(state: GinState, solver: MeldSolver) -> dict[str, Any]:
    """The ``HandScored`` payload for the hand that just ended."""
    ending = state.ending or {}
    if ending.get("result") == "draw":
        return _drawn(state, solver)
    knocker, kind, k = ending["seat"], ending["kind"], ending["deadwood"]
    table = [Meld.from_dict(m) for m in ending["melds"]]
    knocker_record = {"seat": knocker, "hand": list(sort_cards(state.hands[knocker])),
                      "deadwood": k, "melds": ending["melds"], "layoffs": [],
                      "unmatched": ending["unmatched"], "discard": ending.get("discard")}
    records = _defender_outcomes(state, knocker, kind, table, solver)
    records[knocker] = knocker_record
    points = [0] * state.seats
    pairings, winners = [], []
    for d in sorted(records):
        if d == knocker:
            continue
        result, knocker_won, p = settle(kind, k, records[d]["deadwood"], state.options)
        p *= state.multiplier
        winner = None if knocker_won is None else (knocker if knocker_won else d)
        if winner is not None:
            points[winner] += p
            winners.append(winner)
        pairings.append({"defender": d, "result": result, "winner": winner, "points": p,
                         "knocker_deadwood": k, "defender_deadwood": records[d]["deadwood"]})
    hand_winner = _hand_winner(state, points, knocker)
    return {
        "hand_number": state.hand_number,
        "result": pairings[0]["result"] if len(pairings) == 1 else kind,
        "knocker": knocker, "winner": hand_winner, "hand_winners": winners,
        "points": points, "pairings": pairings, "table": [m.to_dict() for m in table],
        "seats": [records[s] for s in range(state.seats)],
        "next_dealer": _next_dealer(state, hand_winner, points, records),
    }


def _clockwise_from(state: GinState, seat: int) -> list[int]:
    """Every seat, clockwise, starting with ``seat``."""
    return [(seat + i) % state.seats for i in range(state.seats)]


def _first_clockwise(state: GinState, seats: Sequence[int], knocker: int) -> int:
    """docs/rules.md 1.8 *(ours)*: of ``seats``, the first clockwise from the knocker, the
    knocker first (as gem picks among equal hand scores, 2.7)."""
    return next(s for s in _clockwise_from(state, knocker) if s in seats)


def _hand_winner(state: GinState, points: list[int], knocker: int) -> int | None:
    """The seat that scored the most in the hand; None when nobody scored.

    docs/rules.md 1.8: every scoring pairing is a won hand, so a shared top score still has a
    winner, the first of the leaders clockwise from the knocker. Edition 1 logs recorded
    None for a shared top (and dealt again by the same dealer); they keep it.
    """
    top = max(points)
    leaders = [s for s, p in enumerate(points) if p == top]
    if top <= 0:
        return None
    if state.rules_edition < 2:
        return leaders[0] if len(leaders) == 1 else None
    return _first_clockwise(state, leaders, knocker)


def _next_dealer(state: GinState, winner: int | None, points: list[int],
                 records: dict[int, dict[str, Any]]) -> int:
    """docs/rules.md 1.3 ``next_dealer``; a hand nobody won is dealt again by the same dealer."""
    policy = state.options.next_dealer
    if winner is None:
        return state.dealer
    if policy == "alternate":
        return state.next_seat(state.dealer)
    if policy == "winner":
        return winner
    # loser: the lowest hand score, then the most deadwood, then the first clockwise
    order = [(state.dealer + 1 + i) % state.seats for i in range(state.seats)]
    return min(order, key=lambda s: (points[s], -records[s]["deadwood"], order.index(s)))


def match_bonuses(state: GinState) -> dict[str, Any]:
    """The ``MatchCompleted`` payload: docs/rules.md 1.10 bonuses and final totals."""
    if state.rules_edition < 2:
        return _match_bonuses_edition_1(state)
    scores = state.scores
    winner = _target_winner(state)
    shutout = all(score == 0 for s, score in enumerate(scores) if s != winner)
    bonuses = [_bonus(state, seat, seat == winner, shutout) for seat in range(state.seats)]
    final = [scores[s] + bonuses[s]["total"] for s in range(state.seats)]
    if state.seats == 2:
        winners = [winner]
    else:
        winners = [s for s, total in enumerate(final) if total == max(final)]
    return {"winner": winners[0] if len(winners) == 1 else None, "winners": winners,
            "hand_scores": list(scores), "bonuses": bonuses, "final_scores": final}


def _target_winner(state: GinState) -> int:
    """docs/rules.md 1.10 *(ours)*: the one player who takes the game bonus. When several pass
    the target in the same hand, the most hand points; if still level, the first of them
    clockwise from the final hand's knocker."""
    top = max(state.scores)
    leaders = [s for s, score in enumerate(state.scores) if score == top]
    return _first_clockwise(state, leaders, state.results[-1]["knocker"])


def _bonus(state: GinState, seat: int, won: bool, shutout: bool) -> dict[str, Any]:
    options = state.options
    game = (options.shutout_bonus if shutout else options.game_bonus) if won else 0
    line = state.hands_won[seat] * options.line_bonus
    return {"seat": seat, "game": game, "shutout": won and shutout, "line": line,
            "hands_won": state.hands_won[seat], "total": game + line}


def _match_bonuses_edition_1(state: GinState) -> dict[str, Any]:
    """Edition 1 (kept so its logs verify): every seat level at the top took the game
    bonus, and the shutout looked only at the seats below the top."""
    scores = state.scores
    top = max(scores)
    leaders = [s for s, score in enumerate(scores) if score == top]
    shutout = all(score == 0 for s, score in enumerate(scores) if s not in leaders)
    bonuses = [_bonus(state, seat, seat in leaders, shutout) for seat in range(state.seats)]
    final = [scores[s] + bonuses[s]["total"] for s in range(state.seats)]
    best = max(final)
    winners = [s for s, total in enumerate(final) if total == best]
    return {"winner": winners[0] if len(winners) == 1 else None, "winners": winners,
            "hand_scores": list(scores), "bonuses": bonuses, "final_scores": final}
