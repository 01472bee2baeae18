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

from domain import knocking, redaction
from domain.cards import sort_cards, standard_deck
from domain.controls import ended_of
from domain.events import Event
from domain.gem.gems import gems_of, shows_all_gems
from domain.gem.rules import legal_actions, solver_for
from domain.gem.state import COMPLETE, DEALING, DISCARD, GemState
from domain.steps import awaiting_step
from domain.viewer import Viewer


def gem_map(cards: Iterable[str]) -> dict[str, list[str]]:
    return {card: list(gems_of(card)) for card in sort_cards(set(cards))}


def view(state: GemState, viewer: Viewer) -> dict[str, Any]:
    """The match as ``viewer`` may see it (the service adds ``id`` and ``version``)."""
    out: dict[str, Any] = {
        "variant": "gem",
        "options": state.options.to_dict(),
        "phase": state.phase,
        "awaiting": awaiting_step(state),
        "dealer": state.dealer,
        "turn": state.turn,
        "hand_number": state.hand_number,
        "commitment": state.commitment,
        "dice": list(state.dice),
        "knock_limit": state.knock_limit,
        "diamond": state.diamond,
        "must_meld": state.must_meld,
        "scores": list(state.scores),
        "hands_won": list(state.hands_won),
        "stock_count": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "seats": [{"seat": s, "name": name, "hand_count": len(state.hands[s]) if state.hands else 0}
                  for s, name in enumerate(state.players)],
        "hands": [dict(result) for result in state.results],
    }
    visible = list(state.discard_pile)
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
        visible = list(standard_deck())
    elif viewer.seat is not None:
        out.update(seat_section(state, viewer.seat))
        visible += out["hand"]
    out["gems"] = gem_map(visible)
    return out


def seat_section(state: GemState, seat: int) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, deadwood, best melds, Gem Parts, legal actions."""
    hand = state.hands[seat] if state.hands else ()
    solver = solver_for(state)
    best = solver.best(hand)
    out: dict[str, Any] = {
        "seat": seat,
        "hand": list(sort_cards(hand)),
        "deadwood": best.deadwood,
        "melds": [meld.to_dict() for meld in best.melds],
        "unmatched": list(best.unmatched),
        "gem_parts": shows_all_gems(hand),
        "legal_actions": legal_actions(state, seat),
    }
    advised = best_discard(state, seat, out["legal_actions"])
    if advised is not None:
        out["best_discard"] = advised
    return out


def best_discard(state: GemState, seat: int,
                 legal: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The advice for ``seat`` about to discard: the least deadwood a legal discard leaves
    and the cards that reach it (``knocking.best_legal_discard``); None when it is not
    that seat's discard. The clock's automatic move follows it too (``domain.clocks``)."""
    if state.turn != seat or state.phase != DISCARD:
        return None
    actions = legal_actions(state, seat) if legal is None else legal
    return knocking.best_legal_discard(solver_for(state), state.hands[seat], actions)


def redact_event(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it; the dice are public."""
    return redaction.redact_event(event, viewer, ("dice", "knock_limit", "diamond"))
