"""Projections of a gin match for a viewer: public, one seat, or full (auditors).

One redaction path for views, the event log and the live stream: a hidden card (a hand,
a card drawn from the stock, the stock order) leaves only through ``domain.redaction``.
"""

from __future__ import annotations

from typing import Any

from domain import knocking, redaction
from domain.cards import sort_cards
from domain.controls import ended_of
from domain.events import Event
from domain.gin.rules import legal_actions, solver_for
from domain.gin.state import COMPLETE, DEALING, DISCARD, GinState
from domain.steps import awaiting_step
from domain.viewer import Viewer


def view(state: GinState, viewer: Viewer) -> dict[str, Any]:
    """The match as ``viewer`` may see it (the service adds ``id`` and ``version``)."""
    out: dict[str, Any] = {
        "variant": "gin",
        "options": state.options.to_dict(),
        "phase": state.phase,
        "awaiting": awaiting_step(state),
        "dealer": state.dealer,
        "turn": state.turn,
        "hand_number": state.hand_number,
        "knock_limit": state.knock_limit,
        "commitment": state.commitment,
        "scores": list(state.scores),
        "hands_won": list(state.hands_won),
        "stock_count": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "seats": [{"seat": s, "name": name, "hand_count": len(state.hands[s]) if state.hands else 0}
                  for s, name in enumerate(state.players)],
        "hands": [dict(result) for result in state.results],
    }
    if state.ending is not None and state.phase != DEALING:
        out["ending"] = dict(state.ending)
    if state.phase == COMPLETE and state.completion is not None:
        out.update({key: state.completion[key]
                    for key in ("winner", "winners", "bonuses", "final_scores")})
    ended = ended_of(state)
    if ended is not None:
        out["ended"] = ended
    if viewer.is_full:
        out["all_hands"] = [list(hand) for hand in state.hands]
        out["stock"] = list(state.stock)
    elif viewer.seat is not None:
        out.update(seat_section(state, viewer.seat))
    return out


def seat_section(state: GinState, seat: int) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, deadwood, best melds and legal actions."""
    hand = state.hands[seat] if state.hands else ()
    solver = solver_for(state.options)
    best = solver.best(hand)
    out: dict[str, Any] = {
        "seat": seat,
        "hand": list(sort_cards(hand)),
        "deadwood": best.deadwood,
        "melds": [meld.to_dict() for meld in best.melds],
        "unmatched": list(best.unmatched),
        "legal_actions": legal_actions(state, seat),
    }
    advised = best_discard(state, seat, out["legal_actions"])
    if advised is not None:
        out["best_discard"] = advised
    return out


def best_discard(state: GinState, seat: int,
                 legal: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The advice for ``seat`` about to discard: the least deadwood a legal discard leaves
    and the cards that reach it (``knocking.best_legal_discard``); None when it is not
    that seat's discard. The clock's automatic move follows it too (``domain.clocks``)."""
    if state.turn != seat or state.phase != DISCARD:
        return None
    actions = legal_actions(state, seat) if legal is None else legal
    return knocking.best_legal_discard(solver_for(state.options), state.hands[seat], actions)


def redact_event(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it (``domain.redaction``)."""
    return redaction.redact_event(event, viewer)
