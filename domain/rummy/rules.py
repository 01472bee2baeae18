"""Rummy/Rami ``decide``: commands in, events out, or a ``RuleError`` (docs/rules.md 3.3-3.5).

A turn is a draw, any placements (new melds, lay-offs, joker exchanges) once the seat
has opened, and a discard. ``legal_actions`` (in ``domain.rummy.actions``) lists what
``decide`` accepts, except that of the many ways to lay down new melds it offers each
single meld and the best opening rather than every combination.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.cards import JOKER, build_deck
from domain.errors import RuleError
from domain.events import (
    CARD_DISCARDED,
    CARD_DRAWN,
    HAND_DEALT,
    HAND_ENDED,
    HAND_SCORED,
    MATCH_COMPLETED,
    MATCH_CREATED,
    RULES_EDITION,
    Event,
)
from domain.evolving import decider
from domain.fairness import Deal, rebuilt_stock
from domain.melds import Meld
from domain.rummy import scoring
from domain.rummy.events import CARD_LAID_OFF, JOKER_EXCHANGED, MELDS_LAID_DOWN, STOCK_REBUILT
from domain.rummy.options import RummyOptions
from domain.rummy.state import (
    COMPLETING,
    DEALING,
    DRAW,
    HAND_SIZE,
    PLAY,
    SCORING,
    RummyState,
)
from domain.rummy.table import Table, can_end_turn, can_go_out, meld_value
from domain.steps import CompleteMatch, DealHand, ScoreHand
from domain.table_melds import MeldError, declared, exchanged, laid_off, without_cards


@dataclass(frozen=True)
class Draw:
    seat: int
    source: str  # "stock" | "discard"


@dataclass(frozen=True)
class LayDown:
    """New melds from the hand: each (cards, represents); represents None without jokers."""

    seat: int
    melds: tuple[tuple[tuple[str, ...], tuple[str, ...] | None], ...]


@dataclass(frozen=True)
class LayOff:
    seat: int
    meld: int
    card: str
    represents: str | None = None


@dataclass(frozen=True)
class ExchangeJoker:
    seat: int
    meld: int
    card: str


@dataclass(frozen=True)
class Discard:
    seat: int
    card: str


def match_deck(options: RummyOptions) -> tuple[str, ...]:
    """The 110-card shoe: two packs of 52 and six jokers (docs/rules.md 3.1)."""
    return build_deck(2, 6)


def start_match(variant: str, players: Sequence[str], options: RummyOptions,
                first_dealer: int, deal: Deal, *,
                rules_edition: int = RULES_EDITION) -> list[Event]:
    """The events that open a game: its creation (under ``rules_edition``; the verifier
    passes a logged match's own) and the first deal."""
    check_deck(options, deal.deck)
    created = MATCH_CREATED.event(variant=variant, players=list(players),
                                  options=options.to_dict(), first_dealer=first_dealer,
                                  rules_edition=rules_edition)
    return [created, deal_event(1, first_dealer, len(players), deal)]


def deal_event(hand_number: int, dealer: int, players: int, deal: Deal) -> Event:
    """The deal records the deck and seed (secret) and the seed's commitment (public)."""
    return HAND_DEALT.event(hand_number=hand_number, dealer=dealer, players=players,
                            hand_size=HAND_SIZE, **deal.record())


def check_deck(options: RummyOptions, deck: Sequence[str]) -> None:
    """A prepared deck must be exactly the shoe, in some order."""
    if Counter(deck) != Counter(match_deck(options)):
        raise RuleError("invalid_deck", "the deck must hold exactly the 110 cards of the shoe "
                        "(two packs of 52 and six jokers)")


# --- drawing and discarding ----------------------------------------------------------------------


def require_turn(state: RummyState, seat: int, phase: str) -> None:
    if state.phase not in (DRAW, PLAY):
        raise RuleError("wrong_phase", f"not possible while the match is in phase {state.phase!r}")
    if state.turn != seat:
        raise RuleError("not_your_turn", f"it is seat {state.turn}'s turn")
    if state.phase != phase:
        raise RuleError("wrong_phase", "draw first" if phase == PLAY else "you have drawn")


def table_of(state: RummyState) -> Table:
    return tuple((m.id, m.meld) for m in state.table)


def last_card_blocks(state: RummyState, seat: int) -> bool:
    """docs/rules.md 3.3: with one card in hand, the top discard may not be taken if it would
    let the seat go out this turn."""
    hand = state.hands[seat]
    if len(hand) != 1 or not state.opened[seat] or not state.discard_pile:
        return False
    return can_go_out(table_of(state), hand + (state.discard_pile[-1],))


def _draw(state: RummyState, command: Draw) -> list[Event]:
    require_turn(state, command.seat, DRAW)
    if command.source == "stock":
        if not state.stock:
            raise RuleError("stock_empty", "the stock is empty")
        card = state.stock[0]
    else:
        if not state.discard_pile:
            raise RuleError("discard_pile_empty", "the discard pile is empty")
        if last_card_blocks(state, command.seat):
            raise RuleError("last_card_rule", "with one card left you may not take the top "
                            "discard when it would let you go out (docs/rules.md 3.3)")
        card = state.discard_pile[-1]
    return [CARD_DRAWN.event(seat=command.seat, source=command.source, card=card)]


def discard_allowed(state: RummyState, seat: int, card: str) -> str | None:
    """Why ``card`` may not be discarded now (a RuleError code), or None if it may."""
    hand = state.hands[seat]
    if card not in hand:
        return "card_not_in_hand"
    if state.jokers_owed:
        return "joker_must_be_placed"
    if card == JOKER and len(hand) > 1 and set(hand) != {JOKER}:
        return "joker_discard"
    return None


_DISCARD_MESSAGES = {
    "card_not_in_hand": "that card is not in your hand",
    "joker_must_be_placed":
        "place the joker you exchanged before ending the turn (docs/rules.md 3.5)",
    "joker_discard": "a joker may only be discarded as your last card (docs/rules.md 3.3)",
}


def _discard(state: RummyState, command: Discard) -> list[Event]:
    require_turn(state, command.seat, PLAY)
    refused = discard_allowed(state, command.seat, command.card)
    if refused:
        raise RuleError(refused, _DISCARD_MESSAGES[refused])
    events = [CARD_DISCARDED.event(seat=command.seat, card=command.card)]
    if len(state.hands[command.seat]) == 1:
        rummy = state.opened_now
        events.append(HAND_ENDED.event(result="out", reason="out", winner=command.seat,
                                       rummy=rummy))
    elif state.turns + 1 >= state.options.max_turns:
        events.append(_void("turn_cap"))
    elif len(state.stock) == 0:
        events.append(_rebuild(state, state.discard_pile + (command.card,)))
    return events


def _void(reason: str) -> Event:
    """docs/rules.md 0: a round that cannot finish is void; nobody scores, the dealer
    deals again."""
    return HAND_ENDED.event(result="void", reason=reason, winner=None, rummy=False)


def _rebuild(state: RummyState, pile: tuple[str, ...]) -> Event:
    """docs/rules.md 3.3 *(ours)*: the discards under the top card, shuffled from the hand's seed.

    With nothing under the top card there is no stock to make, and the round is void.
    """
    if len(pile) < 2:
        return _void("stock_exhausted")
    rebuild = state.rebuilds + 1
    stock = rebuilt_stock(pile[:-1], bytes.fromhex(state.seed), rebuild)
    return STOCK_REBUILT.event(rebuild=rebuild, count=len(stock), stock=list(stock))


# --- placing cards -------------------------------------------------------------------------------


def require_opened(state: RummyState, seat: int) -> None:
    require_turn(state, seat, PLAY)
    if not state.opened[seat]:
        raise RuleError("not_opened", "lay-offs and joker exchanges need an opening first "
                        "(docs/rules.md 3.4)")


def may_open_now(state: RummyState, seat: int) -> bool:
    """Rami: not on the player's first turn (``opening_turn``, docs/rules.md 3.4)."""
    return state.turns_started[seat] >= state.options.opening_turn


def _placement_leaves(state: RummyState, seat: int, table: Table, hand: tuple[str, ...],
                      owed: int) -> None:
    if not hand:
        raise RuleError("must_keep_a_card", "keep at least one card in hand for the discard")
    if not can_end_turn(table, hand, owed):
        raise RuleError("joker_cannot_be_placed",
                        "after this the exchanged joker could not be placed this turn")


def _declared_melds(command: LayDown) -> list[Meld]:
    melds = []
    for cards, represents in command.melds:
        try:
            melds.append(declared(cards, represents))
        except MeldError as exc:
            raise RuleError(exc.code, exc.message) from exc
    return melds


def _lay_down(state: RummyState, command: LayDown) -> list[Event]:
    seat = command.seat
    require_turn(state, seat, PLAY)
    if not command.melds:
        raise RuleError("invalid_action", "lay down at least one meld")
    melds = _declared_melds(command)
    cards = [card for meld in melds for card in meld.cards]
    hand = without_cards(state.hands[seat], cards)
    if hand is None:
        raise RuleError("card_not_in_hand", "the melds use cards you do not hold")
    opening = not state.opened[seat]
    value = sum(map(meld_value, melds))
    if opening:
        _check_opening(state, seat, value)
    ids = range(state.next_meld_id, state.next_meld_id + len(melds))
    table = table_of(state) + tuple(zip(ids, melds, strict=True))
    owed = max(0, state.jokers_owed - cards.count(JOKER))
    _placement_leaves(state, seat, table, hand, owed)
    laid = [{"id": i, **meld.to_dict()} for i, meld in zip(ids, melds, strict=True)]
    return [MELDS_LAID_DOWN.event(seat=seat, opening=opening, value=value, melds=laid)]


def _check_opening(state: RummyState, seat: int, value: int) -> None:
    if not may_open_now(state, seat):
        raise RuleError("too_early_to_open", f"you may open from your turn "
                        f"{state.options.opening_turn} on (docs/rules.md 3.4)")
    if value < state.options.opening_minimum:
        raise RuleError("opening_too_low", f"an opening needs {state.options.opening_minimum} "
                        f"points; these melds make {value}")


def _lay_off(state: RummyState, command: LayOff) -> list[Event]:
    seat = command.seat
    require_opened(state, seat)
    target = state.meld(command.meld)
    if target is None:
        raise RuleError("unknown_meld", f"there is no meld {command.meld} on the table")
    hand = without_cards(state.hands[seat], [command.card])
    if hand is None:
        raise RuleError("card_not_in_hand", f"{command.card} is not in your hand")
    if command.card == JOKER and command.represents is None:
        raise RuleError("joker_not_declared", "say which card the joker stands for")
    grown = laid_off(target.meld, command.card, command.represents)
    if grown is None:
        raise RuleError("invalid_lay_off", f"{command.card} does not fit meld {command.meld}")
    table = tuple((i, grown if i == command.meld else m) for i, m in table_of(state))
    owed = max(0, state.jokers_owed - (command.card == JOKER))
    _placement_leaves(state, seat, table, hand, owed)
    stands_for = command.represents if command.card == JOKER else command.card
    return [CARD_LAID_OFF.event(seat=seat, meld=command.meld, card=command.card,
                                represents=stands_for, result=grown.to_dict())]


def _exchange(state: RummyState, command: ExchangeJoker) -> list[Event]:
    seat = command.seat
    require_opened(state, seat)
    target = state.meld(command.meld)
    if target is None:
        raise RuleError("unknown_meld", f"there is no meld {command.meld} on the table")
    hand = without_cards(state.hands[seat], [command.card])
    if hand is None:
        raise RuleError("card_not_in_hand", f"{command.card} is not in your hand")
    freed = exchanged(target.meld, command.card)
    if freed is None:
        raise RuleError("invalid_exchange", "no joker there stands for that card, or it is in "
                        "a set of three (docs/rules.md 3.5)")
    table = tuple((i, freed if i == command.meld else m) for i, m in table_of(state))
    _placement_leaves(state, seat, table, hand + (JOKER,), state.jokers_owed + 1)
    return [JOKER_EXCHANGED.event(seat=seat, meld=command.meld, card=command.card,
                                  result=freed.to_dict())]


# --- jobs ----------------------------------------------------------------------------------------


def _score_hand(state: RummyState, command: ScoreHand) -> list[Event]:
    if state.phase != SCORING:
        raise RuleError("nothing_to_score", "no ended round is waiting to be scored")
    return [HAND_SCORED.event(scoring.score_round(state))]


def _deal_hand(state: RummyState, command: DealHand) -> list[Event]:
    if state.phase != DEALING:
        raise RuleError("nothing_to_deal", "no round is due to be dealt")
    check_deck(state.options, command.deal.deck)
    dealer = state.results[-1]["next_dealer"] if state.results else state.dealer
    return [deal_event(state.hand_number + 1, dealer, state.seats, command.deal)]


def _complete_match(state: RummyState, command: CompleteMatch) -> list[Event]:
    if state.phase != COMPLETING:
        raise RuleError("match_not_finished", "the game is not over")
    return [MATCH_COMPLETED.event(scoring.final_result(state))]


_DECIDERS: dict[type, Any] = {
    Draw: _draw,
    LayDown: _lay_down,
    LayOff: _lay_off,
    ExchangeJoker: _exchange,
    Discard: _discard,
    ScoreHand: _score_hand,
    DealHand: _deal_hand,
    CompleteMatch: _complete_match,
}


decide = decider(_DECIDERS, "rummy")

