"""Legal actions of a seat and the action objects clients send (docs/rules.md 3.3-3.5).

Action shapes (the API's ``ActionSchema`` checks them first; ``command`` again, so a
malformed action is always a ``RuleError`` ``invalid_action``, never a crash):

- ``{"type": "draw", "source": "stock" | "discard"}``
- ``{"type": "lay_down", "melds": [{"cards": [...], "represents": [...]}, ...]}`` one or
  more new melds; ``represents`` (what each card stands for, in the same order) is
  needed only when a meld holds a joker.
- ``{"type": "lay_off", "meld": <table meld id>, "card": "9H"}``; a joker also needs
  ``"represents": "9H"``.
- ``{"type": "exchange_joker", "meld": <table meld id>, "card": "9H"}``: ``card`` replaces
  the joker standing for it, which goes to the hand.
- ``{"type": "discard", "card": "7H"}`` ends the turn.

``legal_actions`` lists draws, lay-offs, exchanges and discards exactly. New melds are
too many to list as combinations, so it lists each single meld the seat may lay down and,
before the seat has opened, its best opening (every listed action is accepted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.cards import CardError, parse_card, sort_cards
from domain.errors import RuleError
from domain.rummy.rules import (
    Discard,
    Draw,
    ExchangeJoker,
    LayDown,
    LayOff,
    discard_allowed,
    last_card_blocks,
    may_open_now,
    table_of,
)
from domain.rummy.state import DRAW, PLAY, RummyState
from domain.rummy.table import best_opening, meld_action, meld_value, placements

ACTION_TYPES = ("draw", "lay_down", "lay_off", "exchange_joker", "discard")


def _invalid(message: str) -> RuleError:
    return RuleError("invalid_action", message)


def _card(value: Any, what: str) -> str:
    try:
        return parse_card(value)
    except CardError as exc:
        raise _invalid(f"{what}: {exc}") from exc


def _cards(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not value:
        raise _invalid(f"{what} must be a list of card codes")
    return tuple(_card(card, what) for card in value)


def _meld_id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid("meld must be a table meld id (an integer)")
    return value


def _new_meld(value: Any) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    if isinstance(value, Mapping):
        cards = _cards(value.get("cards"), "melds[].cards")
        represents = value.get("represents")
        return cards, None if represents is None else _cards(represents, "melds[].represents")
    return _cards(value, "melds[]"), None


def command(seat: int, action: Mapping[str, Any]) -> object:
    """A seat's action object as a command; a malformed one is ``invalid_action``."""
    if not isinstance(action, Mapping):
        raise _invalid("an action is an object")
    kind = action.get("type")
    if kind == "draw":
        source = action.get("source")
        if source not in ("stock", "discard"):
            raise _invalid("draw needs a source: stock or discard")
        return Draw(seat, source)
    if kind == "discard":
        return Discard(seat, _card(action.get("card"), "card"))
    if kind == "lay_down":
        melds = action.get("melds")
        if not isinstance(melds, list | tuple) or not melds:
            raise _invalid("lay_down needs melds: a list of {cards, represents}")
        return LayDown(seat, tuple(_new_meld(meld) for meld in melds))
    if kind == "lay_off":
        represents = action.get("represents")
        return LayOff(seat, _meld_id(action.get("meld")), _card(action.get("card"), "card"),
                      None if represents is None else _card(represents, "represents"))
    if kind == "exchange_joker":
        return ExchangeJoker(seat, _meld_id(action.get("meld")),
                             _card(action.get("card"), "card"))
    raise RuleError("invalid_action", f"rummy has no action {kind!r}")


def legal_actions(state: RummyState, seat: int) -> list[dict[str, Any]]:
    """What ``seat`` may send now: draws; or new melds, lay-offs, exchanges, discards."""
    if state.turn != seat:
        return []
    if state.phase == DRAW:
        actions: list[dict[str, Any]] = [{"type": "draw", "source": "stock"}]
        if state.discard_pile and not last_card_blocks(state, seat):
            actions.append({"type": "draw", "source": "discard"})
        return actions
    if state.phase == PLAY:
        return _placement_actions(state, seat) + _discard_actions(state, seat)
    return []


def _placement_actions(state: RummyState, seat: int) -> list[dict[str, Any]]:
    hand = state.hands[seat]
    if not state.opened[seat]:
        return _opening_actions(state, seat)
    found = placements(table_of(state), hand, state.jokers_owed, state.next_meld_id)
    actions = [placement.action for placement in found]
    order = {"lay_down": 0, "lay_off": 1, "exchange_joker": 2}
    return sorted(actions, key=lambda action: order[action["type"]])


def _opening_actions(state: RummyState, seat: int) -> list[dict[str, Any]]:
    """The best opening, then every single meld that opens on its own."""
    if not may_open_now(state, seat):
        return []
    minimum = state.options.opening_minimum
    best = best_opening(state.hands[seat])
    if best.value < minimum or not best.melds:
        return []
    actions = [{"type": "lay_down", "melds": [meld_action(m) for m in best.melds]}]
    single = placements((), state.hands[seat], 0, 1)
    actions += [p.action for p in single if p.action["type"] == "lay_down"
                and meld_value(p.table[0][1]) >= minimum and p.action not in actions]
    return actions


def _discard_actions(state: RummyState, seat: int) -> list[dict[str, Any]]:
    return [{"type": "discard", "card": card} for card in sort_cards(set(state.hands[seat]))
            if discard_allowed(state, seat, card) is None]
