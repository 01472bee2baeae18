"""The ``evolve`` handlers gin and gem share: the events both fold alike.

A family whose turn keeps more than the common fields (gem's ``must_meld``, the deep card
that must stay in a meld) names them in ``cleared``: they are reset wherever a turn or a
hand ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from domain import controls
from domain.cards import without
from domain.events import CARD_DISCARDED, HAND_ENDED, MATCH_COMPLETED
from domain.evolving import replace, seen_taken
from domain.knocking.events import HAND_KNOCKED, UPCARD_PASSED
from domain.knocking.turns import COMPLETE, DRAW, SCORING

Handler = Callable[[Any, Mapping[str, Any]], Any]


def replace_hand(state: Any, seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Every seat's hand, ``seat``'s replaced by ``hand``."""
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def upcard_passed(state: Any, data: Mapping[str, Any]) -> Any:
    """The next seat is offered the upcard; after the last, the first draw is from the
    stock (docs/rules.md 1.3)."""
    offer = state.upcard_offer[1:]
    if offer:
        return replace(state, upcard_offer=offer, turn=offer[0])
    first = state.next_seat(state.dealer)
    return replace(state, upcard_offer=(), phase=DRAW, turn=first, stock_only=True)


def card_discarded(cleared: Mapping[str, Any], state: Any, data: Mapping[str, Any]) -> Any:
    seat, card = data["seat"], data["card"]
    return replace(state, hands=replace_hand(state, seat, without(state.hands[seat], card)),
                   discard_pile=state.discard_pile + (card,), phase=DRAW,
                   turn=state.next_seat(seat), taken_discard=None, turns=state.turns + 1,
                   known_cards=seen_taken(state.known_cards, seat, gone=(card,)), **cleared)


def hand_knocked(cleared: Mapping[str, Any], state: Any, data: Mapping[str, Any]) -> Any:
    """The hand ends with a knock, gin or big gin (which keeps its eleventh card)."""
    ended = hand_ended(cleared, state, data)
    seat, card = data["seat"], data.get("discard")
    if card is None:
        return ended
    return replace(ended, hands=replace_hand(state, seat, without(state.hands[seat], card)),
                   discard_pile=state.discard_pile + (card,),
                   known_cards=seen_taken(state.known_cards, seat, gone=(card,)))


def hand_ended(cleared: Mapping[str, Any], state: Any, data: Mapping[str, Any]) -> Any:
    return replace(state, phase=SCORING, turn=None, ending=dict(data), taken_discard=None,
                   **cleared)


def match_completed(state: Any, data: Mapping[str, Any]) -> Any:
    return replace(state, phase=COMPLETE, turn=None, completion=dict(data))


def shared_handlers(cleared: Mapping[str, Any] | None = None) -> dict[str, Handler]:
    """The handlers every knocking family folds alike, with the controls' (forfeit,
    abort)."""
    reset = dict(cleared or {})
    return {
        UPCARD_PASSED.name: upcard_passed,
        CARD_DISCARDED.name: partial(card_discarded, reset),
        HAND_KNOCKED.name: partial(hand_knocked, reset),
        HAND_ENDED.name: partial(hand_ended, reset),
        MATCH_COMPLETED.name: match_completed,
        **controls.HANDLERS,
    }
