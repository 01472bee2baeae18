"""Projections of a gin match for a viewer: public, one seat, or full (auditors).

One redaction path for views, the event log and the live stream: a hidden card (a hand,
a card drawn from the stock, the stock order) leaves only through ``domain.redaction``.
The table and a seat's section are the knocking families' (``domain.knocking.views``).
"""

from __future__ import annotations

from typing import Any

from domain import redaction
from domain.events import Event
from domain.gin.rules import legal_actions, solver_for
from domain.gin.state import GinState
from domain.knocking import views as knocking_views
from domain.viewer import Viewer


def view(state: GinState, viewer: Viewer) -> dict[str, Any]:
    """The match as ``viewer`` may see it (the service adds ``id`` and ``version``)."""
    out = knocking_views.table(state, viewer, "gin")
    if viewer.seat is not None:
        out.update(seat_section(state, viewer.seat))
    return out


def seat_section(state: GinState, seat: int) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, deadwood, best melds and legal actions."""
    return knocking_views.seat_section(state, seat, solver_for(state.options), legal_actions)


def best_discard(state: GinState, seat: int) -> dict[str, Any] | None:
    """The advice to ``seat`` about to discard (``Variant.best_discard``)."""
    return knocking_views.best_discard(state, seat, solver_for(state.options),
                                       legal_actions(state, seat))


def redact_event(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it (``domain.redaction``)."""
    return redaction.redact_event(event, viewer)
