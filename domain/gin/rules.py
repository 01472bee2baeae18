"""Gin Rummy ``decide``: commands in, events out, or a ``RuleError`` (RULES.md 1.3-1.5).

``legal_actions`` lists exactly what ``decide`` accepts from a seat, as ready-to-send
action objects, in a stable order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain import knocking
from domain.cards import build_deck, sort_cards, without
from domain.errors import RuleError
from domain.events import (
    CARD_DRAWN,
    HAND_DEALT,
    HAND_SCORED,
    MATCH_COMPLETED,
    MATCH_CREATED,
    RULES_EDITION,
    Event,
)
from domain.evolving import decider
from domain.fairness import Deal
from domain.gin import scoring
from domain.gin.options import GinOptions
from domain.gin.state import (
    COMPLETING,
    DEALING,
    DISCARD,
    DRAW,
    SCORING,
    UPCARD,
    GinState,
    hand_size,
)
from domain.melds import MeldSolver, gin_solver
from domain.steps import CompleteMatch, DealHand, ScoreHand


@dataclass(frozen=True)
class PassUpcard:
    seat: int


@dataclass(frozen=True)
class Draw:
    seat: int
    source: str  # "stock" | "discard"


@dataclass(frozen=True)
class Discard:
    seat: int
    card: str


@dataclass(frozen=True)
class Knock:
    seat: int
    discard: str
    melds: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True)
class DeclareBigGin:
    seat: int


def solver_for(options: GinOptions) -> MeldSolver:
    return gin_solver(jokers=options.jokers > 0, joker_value=options.joker_deadwood)


def match_deck(options: GinOptions) -> tuple[str, ...]:
    return build_deck(options.decks, options.jokers)


def start_match(
    players: Sequence[str], options: GinOptions, first_dealer: int, deal: Deal, *,
    rules_edition: int = RULES_EDITION,
) -> list[Event]:
    """The events that open a match: its creation (under ``rules_edition``; the verifier
    passes a logged match's own) and the first deal."""
    check_deck(options, deal.deck)
    created = MATCH_CREATED.event(variant="gin", players=list(players),
                                  options=options.to_dict(), first_dealer=first_dealer,
                                  rules_edition=rules_edition)
    return [created, deal_event(1, first_dealer, len(players), deal)]


def deal_event(hand_number: int, dealer: int, players: int, deal: Deal) -> Event:
    """A deal records the whole deck order (replay never needs a random number) and the
    commitment to the seed it was shuffled from (schema 2; schema 1 had no commitment)."""
    return HAND_DEALT.event(hand_number=hand_number, dealer=dealer, players=players,
                            hand_size=hand_size(players), **deal.record())


def check_deck(options: GinOptions, deck: Sequence[str]) -> None:
    """A prepared deck must be exactly the match's cards, in some order."""
    if Counter(deck) != Counter(match_deck(options)):
        raise RuleError("invalid_deck",
                        "the deck must hold exactly the match's cards "
                        f"({options.decks} pack(s), {options.jokers} joker(s)), each once per pack")


# --- seat commands ---------------------------------------------------------------------






def _draw(state: GinState, command: Draw) -> list[Event]:
    knocking.require_turn(state, command.seat, (UPCARD, DRAW))
    if command.source == "stock":
        if state.phase == UPCARD:
            raise RuleError("must_take_or_pass_upcard",
                            "the first upcard is on offer: take it or pass")
        return [CARD_DRAWN.event(seat=command.seat, source="stock", card=state.stock[0])]
    if state.stock_only:
        raise RuleError("must_draw_from_stock",
                        "both players passed the upcard: the first draw is from the stock")
    if not state.discard_pile:
        raise RuleError("discard_pile_empty", "the discard pile is empty")
    return [CARD_DRAWN.event(seat=command.seat, source="discard",
                             card=state.discard_pile[-1])]


def _blocked_discard(state: GinState, hand: tuple[str, ...]) -> str | None:
    """The card RULES.md 1.4 keeps in hand this turn: the one just taken from the pile.

    With two decks a second copy of it may still go.
    """
    taken = state.taken_discard
    if taken is None or state.options.may_discard_taken_discard or hand.count(taken) != 1:
        return None
    return taken


def _check_discard(state: GinState, seat: int, card: str) -> tuple[str, ...]:
    """The hand left after discarding ``card``, if the rules allow that discard."""
    knocking.require_turn(state, seat, (DISCARD,))
    hand = state.hands[seat]
    if card not in hand:
        raise RuleError("card_not_in_hand", f"{card} is not in your hand")
    if card == _blocked_discard(state, hand):
        raise RuleError("must_not_discard_taken_card",
                        f"{card} was just taken from the discard pile (RULES.md 1.4)")
    return without(hand, card)











def _pass_upcard(state: GinState, command: PassUpcard) -> list[Event]:
    return knocking.pass_upcard(state, command.seat)


def _discard(state: GinState, command: Discard) -> list[Event]:
    _check_discard(state, command.seat, command.card)
    return knocking.discard(state, command.seat, command.card)


def _knock(state: GinState, command: Knock) -> list[Event]:
    rest = _check_discard(state, command.seat, command.discard)
    return knocking.knock(state, command.seat, command.discard, rest, command.melds,
                          solver_for(state.options))


def _big_gin(state: GinState, command: DeclareBigGin) -> list[Event]:
    return knocking.big_gin(state, command.seat, solver_for(state.options))



# --- system steps ----------------------------------------------------------------------


def _score_hand(state: GinState, command: ScoreHand) -> list[Event]:
    if state.phase != SCORING:
        raise RuleError("nothing_to_score", "no ended hand is waiting to be scored")
    return [HAND_SCORED.event(scoring.score_hand(state, solver_for(state.options)))]


def _deal_hand(state: GinState, command: DealHand) -> list[Event]:
    if state.phase != DEALING:
        raise RuleError("nothing_to_deal", "no hand is due to be dealt")
    check_deck(state.options, command.deal.deck)
    dealer = state.results[-1]["next_dealer"] if state.results else state.dealer
    return [deal_event(state.hand_number + 1, dealer, state.seats, command.deal)]


def _complete_match(state: GinState, command: CompleteMatch) -> list[Event]:
    if state.phase != COMPLETING:
        raise RuleError("match_not_finished", "the match has not reached its target")
    return [MATCH_COMPLETED.event(scoring.match_bonuses(state))]


_DECIDERS: dict[type, Any] = {
    PassUpcard: _pass_upcard,
    Draw: _draw,
    Discard: _discard,
    Knock: _knock,
    DeclareBigGin: _big_gin,
    ScoreHand: _score_hand,
    DealHand: _deal_hand,
    CompleteMatch: _complete_match,
}


decide = decider(_DECIDERS, "gin")


# --- legal actions ---------------------------------------------------------------------


def legal_actions(state: GinState, seat: int) -> list[dict[str, Any]]:
    """Every action ``seat`` may send now, sorted: draws, passes, discards, knocks, big gin."""
    if state.turn != seat:
        return []
    if state.phase == UPCARD:
        return [{"type": "draw", "source": "discard"}, {"type": "pass"}]
    if state.phase == DRAW:
        actions = [{"type": "draw", "source": "stock"}]
        if state.discard_pile and not state.stock_only:
            actions.append({"type": "draw", "source": "discard"})
        return actions
    if state.phase == DISCARD:
        return _discard_actions(state, seat)
    return []


def _discard_actions(state: GinState, seat: int) -> list[dict[str, Any]]:
    hand = state.hands[seat]
    options = state.options
    solver = solver_for(options)
    blocked = _blocked_discard(state, hand)
    cards = [card for card in sort_cards(set(hand)) if card != blocked]
    actions: list[dict[str, Any]] = [{"type": "discard", "card": card} for card in cards]
    # one search says whether any knock exists; only then is each discard checked
    if solver.best_discard(hand)[0] <= state.knock_limit:
        actions += [{"type": "knock", "discard": card} for card in cards
                    if solver.deadwood(without(hand, card)) <= state.knock_limit]
    if options.big_gin_bonus is not None and solver.deadwood(hand) == 0:
        actions.append({"type": "big_gin"})
    return actions

