"""Projections of a gem match for a viewer: public, one seat, or full (auditors).

One redaction path for views, the event log and the live stream: a hidden card (a hand,
a card drawn from the stock, the stock order, the deck and seed of a deal) leaves only
through ``domain.redaction``. The spread discard pile, the dice and what follows from them (knock
limit, designated diamond) are public.

``gems`` maps each card the viewer can see (the seat's hand, the discard pile; every card
for the organiser) to its gems, so a front end can draw them; the whole deck's gems are in
``GET /v1/variants``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain import redaction
from domain.cards import sort_cards, standard_deck
from domain.events import Event
from domain.gem.gems import gems_of, shows_all_gems
from domain.gem.rules import legal_actions, solver_for
from domain.gem.state import GemState
from domain.knocking import views as knocking_views
from domain.viewer import Viewer


def gem_map(cards: Iterable[str]) -> dict[str, list[str]]:
    return {card: list(gems_of(card)) for card in sort_cards(set(cards))}


def view(state: GemState, viewer: Viewer) -> dict[str, Any]:
    """The match as ``viewer`` may see it (the service adds ``id`` and ``version``): the
    knocking table, the dice and what follows from them, and the gems of what it sees."""
    out = knocking_views.table(state, viewer, "gem")
    out.update(dice=list(state.dice), diamond=state.diamond, must_meld=state.must_meld)
    visible = list(state.discard_pile)
    if viewer.is_full:
        visible = list(standard_deck())
    elif viewer.seat is not None:
        out.update(seat_section(state, viewer.seat))
        visible += out["hand"]
    out["gems"] = gem_map(visible)
    return out


def seat_section(state: GemState, seat: int) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, deadwood, best melds, Gem Parts, legal actions."""
    out = knocking_views.seat_section(state, seat, solver_for(state), legal_actions)
    out["gem_parts"] = shows_all_gems(state.hands[seat] if state.hands else ())
    return out


def best_discard(state: GemState, seat: int) -> dict[str, Any] | None:
    """The advice to ``seat`` about to discard (``Variant.best_discard``)."""
    return knocking_views.best_discard(state, seat, solver_for(state),
                                       legal_actions(state, seat))


def redact_event(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it; the dice are public."""
    return redaction.redact_event(event, viewer, ("dice", "knock_limit", "diamond"))
