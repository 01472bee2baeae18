"""Gin Rummy ``decide``: commands in, events out, or a ``RuleError`` (docs/rules.md 1.3-1.5).

What gin and gem share is ``domain.knocking``; here are gin's own rules: its draw, the
discard it blocks, its deck and deal. ``legal_actions`` lists exactly what ``decide``
accepts from a seat, as ready-to-send action objects, in a stable order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from domain import knocking
from domain.cards import build_deck, sort_cards, without
from domain.errors import RuleError
from domain.events import CARD_DRAWN, HAND_DEALT, MATCH_CREATED, RULES_EDITION, Event
from domain.fairness import Deal
from domain.gin import scoring
from domain.gin.options import GinOptions
from domain.gin.state import DISCARD, DRAW, UPCARD, GinState, hand_size
from domain.knocking import DeclareBigGin, Discard, Draw, Knock, PassUpcard
from domain.melds import MeldSolver, gin_solver
from domain.steps import CompleteMatch, DealHand, ScoreHand

__all__ = ["CompleteMatch", "DeclareBigGin", "Discard", "Draw", "DealHand", "Knock",
           "PassUpcard", "ScoreHand", "decide", "legal_actions", "match_deck", "start_match"]


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
    if not _same_cards(deck, _sorted_deck(options.decks, options.jokers)):
        raise RuleError("invalid_deck",
                        "the deck must hold exactly the match's cards "
                        f"({options.decks} pack(s), {options.jokers} joker(s)), each once per pack")


@cache
def _sorted_deck(decks: int, jokers: int) -> list[str]:
    """The match deck in sorted order, once per pack count: every deal is checked against
    it (comparing sorted lists costs a fraction of comparing two ``Counter``s)."""
    return sorted(build_deck(decks, jokers))


def _same_cards(deck: Sequence[str], expected: list[str]) -> bool:
    try:
        return sorted(deck) == expected
    except TypeError:  # something other than card codes: not the match's cards
        return False


# --- gin's own turn rules ---------------------------------------------------------------


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
    """The card docs/rules.md 1.4 keeps in hand this turn: the one just taken from the pile.

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
                        f"{card} was just taken from the discard pile (docs/rules.md 1.4)")
    return without(hand, card)


RULES = knocking.KnockingRules(
    game="gin",
    solver=lambda state: solver_for(state.options),
    draw=_draw,
    check_discard=_check_discard,
    score_hand=scoring.score_hand,
    check_deck=lambda state, deck: check_deck(state.options, deck),
    deal_event=deal_event,
    match_result=scoring.match_bonuses,
    not_at_end="the match has not reached its target",
)
decide = RULES.decide()
preview = RULES.preview()


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
    if solver.discard_deadwood(hand) <= state.knock_limit:
        actions += [{"type": "knock", "discard": card} for card in cards
                    if solver.deadwood(without(hand, card)) <= state.knock_limit]
    if options.big_gin_bonus is not None and solver.deadwood(hand) == 0:
        actions.append({"type": "big_gin"})
    return actions

