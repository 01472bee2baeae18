"""Projections of a rummy game for a viewer: public, one seat, or full (auditors).

One redaction path for views, the event log and the live stream: a hidden card (a hand,
a card drawn from the stock, the deck, a rebuilt stock's order) and the hand's seed leave
only through ``domain.redaction``. Table melds and the discard pile are public.
"""

from __future__ import annotations

from typing import Any

from domain import redaction, views
from domain.cards import sort_cards
from domain.events import Event
from domain.rummy.actions import legal_actions
from domain.rummy.events import STOCK_REBUILT
from domain.rummy.rules import may_open_now
from domain.rummy.state import PLAY, RummyState
from domain.rummy.table import best_opening, meld_value, minus_points
from domain.table_melds import hand_melds
from domain.viewer import Viewer


def view(state: RummyState, viewer: Viewer) -> dict[str, Any]:
    """The game as ``viewer`` may see it (the service adds ``id`` and ``version``)."""
    out = views.head(state, state.variant)
    out.update(rounds_played=state.rounds_played,
               table=[meld.to_dict() for meld in state.table],
               seats=[_seat_summary(state, seat, name)
                      for seat, name in enumerate(state.players)])
    views.ends(out, state, viewer, ("winner", "winners", "final_scores"))
    if not viewer.is_full and viewer.seat is not None and viewer.seat < state.seats:
        out.update(seat_section(state, viewer.seat))
    return out


def _seat_summary(state: RummyState, seat: int, name: str) -> dict[str, Any]:
    return {"seat": seat, "name": name,
            "hand_count": len(state.hands[seat]) if state.hands else 0,
            "opened": bool(state.opened and state.opened[seat])}


def seat_section(state: RummyState, seat: int) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, the melds in it, its opening, its legal actions."""
    hand = state.hands[seat] if state.hands else ()
    out: dict[str, Any] = {
        "seat": seat,
        "hand": list(sort_cards(hand)),
        "minus_points": minus_points(hand),
        "meld_candidates": [{**meld.to_dict(), "value": meld_value(meld)}
                            for meld in hand_melds(hand)],
        "legal_actions": legal_actions(state, seat),
    }
    out["moves"] = views.move_kinds(out["legal_actions"])
    if state.hands and not state.opened[seat]:
        best = best_opening(hand)
        out["opening"] = {
            "minimum": state.options.opening_minimum,
            "best_value": best.value,
            "best_melds": [meld.to_dict() for meld in best.melds],
            "allowed_this_turn": _turn_allows_opening(state, seat),
            "can_open_now": (state.phase == PLAY and state.turn == seat
                             and _turn_allows_opening(state, seat)
                             and best.value >= state.options.opening_minimum),
        }
    if state.turn == seat and state.phase == PLAY:
        out["jokers_to_place"] = state.jokers_owed
    return out


def _turn_allows_opening(state: RummyState, seat: int) -> bool:
    """Rami: whether this (or, before drawing, the coming) turn is late enough to open."""
    if state.turn == seat and state.phase == PLAY:
        return may_open_now(state, seat)
    return state.turns_started[seat] + 1 >= state.options.opening_turn


def redact_event(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it; a rebuilt stock's order
    stays secret (its size is public)."""
    return redaction.redact_event(event, viewer, secret_fields={STOCK_REBUILT.name: "stock"})
