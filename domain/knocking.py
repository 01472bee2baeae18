"""The turn rules gin and gem share: whose turn, passing the upcard, the discard that may
end the hand, knocking, big gin, and which melds the knocker shows (RULES.md 1.3-1.5, 2.4).

Each family passes its own state (anything with the fields of ``KnockTable``) and its own
meld solver; the family keeps what differs (how a card is drawn, which discard is blocked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from domain.cards import without
from domain.errors import RuleError
from domain.events import (
    CARD_DISCARDED,
    HAND_ENDED,
    Event,
    EventType,
    Field,
    card,
    cards,
    integer,
    melds,
    nullable,
    seat,
    string,
)
from domain.layoffs import best_layoffs
from domain.melds import Arrangement, MeldSolver

UPCARD, DISCARD = "upcard", "discard"

UPCARD_PASSED = EventType(
    "UpcardPassed", schema=1, appended_by="gin and gem, on a seat's pass",
    description="A seat offered the first upcard passes it; when every seat offered it has "
                "passed, the first draw is from the stock.",
    fields=(Field("seat", "the seat that passes", schema=seat()),))

HAND_KNOCKED = EventType(
    "HandKnocked", schema=1, appended_by="gin and gem, on a seat's knock or big gin",
    description="A seat ends the hand: it knocks, goes gin, or declares big gin, and "
                "shows its melds.",
    fields=(
        Field("seat", "the seat that knocks", schema=seat()),
        Field("discard", "the card it discards; null for big gin, which keeps every card",
              schema=nullable(card())),
        Field("kind", "knock, gin or big_gin", schema=string("knock", "gin", "big_gin")),
        Field("deadwood", "the knocker's deadwood after the discard", schema=integer(0)),
        Field("melds", "the melds it shows", schema=melds()),
        Field("unmatched", "its cards in no meld", schema=cards()),
    ))

EVENT_TYPES = (UPCARD_PASSED, HAND_KNOCKED)
"""The events only gin and gem append: the knocking families' own."""


class KnockTable(Protocol):
    @property
    def phase(self) -> str: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def seats(self) -> int: ...
    @property
    def hands(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def stock(self) -> tuple[str, ...]: ...
    @property
    def turns(self) -> int: ...
    @property
    def knock_limit(self) -> int: ...
    @property
    def options(self) -> Any: ...


def require_turn(state: KnockTable, seat: int, phases: tuple[str, ...]) -> None:
    if state.phase not in phases:
        raise RuleError("wrong_phase", f"not possible while the match is in phase {state.phase!r}")
    if state.turn != seat:
        raise RuleError("not_your_turn", f"it is seat {state.turn}'s turn")


def pass_upcard(state: KnockTable, seat: int) -> list[Event]:
    require_turn(state, seat, (UPCARD,))
    return [UPCARD_PASSED.event(seat=seat)]


def discard(state: KnockTable, seat: int, card: str) -> list[Event]:
    """The discard, and the drawn hand it causes at 2 stock cards or at the turn cap."""
    events = [CARD_DISCARDED.event(seat=seat, card=card)]
    if len(state.stock) <= 2:
        events.append(HAND_ENDED.event(result="draw", reason="stock_exhausted"))
    elif state.turns + 1 >= state.options.max_turns:
        events.append(HAND_ENDED.event(result="draw", reason="turn_cap"))
    return events


def knock(state: KnockTable, seat: int, card: str, rest: tuple[str, ...],
          submitted: Sequence[Sequence[str]] | None, solver: MeldSolver) -> list[Event]:
    """A knock (or gin) discarding ``card`` and keeping ``rest``, within the knock limit."""
    deadwood = solver.deadwood(rest)
    if deadwood > state.knock_limit:
        raise RuleError("deadwood_over_limit",
                        f"deadwood after the discard is {deadwood}; "
                        f"this hand's knock limit is {state.knock_limit}")
    shown = shown_arrangement(state, seat, rest, deadwood, submitted, solver)
    return [HAND_KNOCKED.event(
        seat=seat, discard=card, kind="gin" if deadwood == 0 else "knock", deadwood=deadwood,
        melds=[meld.to_dict() for meld in shown.melds], unmatched=list(shown.unmatched),
    )]


def big_gin(state: KnockTable, seat: int, solver: MeldSolver) -> list[Event]:
    require_turn(state, seat, (DISCARD,))
    if state.options.big_gin_bonus is None:
        raise RuleError("big_gin_disabled", "big gin is disabled in this match")
    hand = state.hands[seat]
    if solver.deadwood(hand) != 0:
        raise RuleError("not_big_gin", "big gin needs every card in your hand to meld")
    shown = best_for_knocker(state, seat, solver.all_best(hand), solver)
    return [HAND_KNOCKED.event(
        seat=seat, discard=None, kind="big_gin", deadwood=0,
        melds=[meld.to_dict() for meld in shown.melds], unmatched=[],
    )]


def best_legal_discard(solver: MeldSolver, hand: Sequence[str],
                       actions: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The least deadwood a legal discard leaves, and every legal discard that reaches it.

    Only the discards ``actions`` allow count: the card just taken from the pile (RULES.md
    1.4) or one that would strand gem's deep card (2.6) is never advised. The solver's own
    best is used when one of its cards is legal, else every legal discard is tried.
    """
    legal = {action["card"] for action in actions if action["type"] == "discard"}
    if not legal:
        return None
    deadwood, cards = solver.best_discard(hand)
    allowed = [card for card in cards if card in legal]
    if not allowed:
        left = {card: solver.deadwood(without(tuple(hand), card)) for card in legal}
        deadwood = min(left.values())
        allowed = [card for card in dict.fromkeys(hand) if left.get(card) == deadwood]
    return {"deadwood": deadwood, "cards": list(dict.fromkeys(allowed))}


def shown_arrangement(state: KnockTable, seat: int, rest: tuple[str, ...], deadwood: int,
                      submitted: Sequence[Sequence[str]] | None,
                      solver: MeldSolver) -> Arrangement:
    """The knocker's melds: submitted ones if they reach the minimum, else the engine's pick."""
    if submitted is None:
        candidates = solver.all_best(rest)
    else:
        candidates = solver.arrangement_of(rest, submitted)
        if not candidates:
            raise RuleError("invalid_melds",
                            "the melds must be valid, disjoint and drawn from your hand")
        candidates = tuple(a for a in candidates if a.deadwood == deadwood)
        if not candidates:
            raise RuleError("melds_not_minimal",
                            f"the shown melds must leave the minimum deadwood {deadwood}")
    return best_for_knocker(state, seat, candidates, solver)


def best_for_knocker(state: KnockTable, knocker: int, candidates: Sequence[Arrangement],
                     solver: MeldSolver) -> Arrangement:
    """Among equal arrangements, the one after which defenders keep the most deadwood.

    RULES.md 1.5 *(ours)*. With several defenders their best lay-off deadwoods are summed.
    """
    if len(candidates) == 1:
        return candidates[0]
    defenders = [s for s in range(state.seats) if s != knocker]

    def defenders_left(arrangement: Arrangement) -> int:
        return sum(best_layoffs(solver, state.hands[d], arrangement.melds).deadwood
                   for d in defenders)

    return max(candidates, key=defenders_left)
