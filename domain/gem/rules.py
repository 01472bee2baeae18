"""Gem Rummy ``decide``: commands in, events out, or a ``RuleError`` (docs/rules.md 2.2-2.6).

Played like two-player gin: what the two share is ``domain.knocking``. Here are gem's own
rules: its draw (with a ``depth`` for the three-player spread discard pile), the discards
a deep draw allows, its solver, deck and deal. ``legal_actions`` lists exactly what
``decide`` accepts from a seat, as ready-to-send action objects, in a stable order.
"""

from __future__ import annotations

from typing import Any

from domain import knocking
from domain.cards import pip_value, sort_cards, without
from domain.errors import RuleError
from domain.events import CARD_DRAWN, Event
from domain.gem import scoring
from domain.gem.dealing import check_deck, deal_event, match_deck, start_match
from domain.gem.gems import designated_diamond
from domain.gem.solver import gem_solver
from domain.gem.state import DISCARD, DRAW, UPCARD, GemState
from domain.knocking import DeclareBigGin, Discard, Draw, Knock, PassUpcard
from domain.melds import MeldSolver
from domain.steps import CompleteMatch, DealHand, ScoreHand

__all__ = ["CompleteMatch", "DeclareBigGin", "Discard", "Draw", "DealHand", "Knock",
           "PassUpcard", "ScoreHand", "decide", "legal_actions", "match_deck", "start_match"]


def solver_for(state: GemState) -> MeldSolver:
    """The solver of this hand: its designated diamond makes Queen's Diamonds."""
    return gem_solver(state.diamond or designated_diamond((1, 1)))


# --- gem's own turn rules ---------------------------------------------------------------


def _draw(state: GemState, command: Draw) -> list[Event]:
    knocking.require_turn(state, command.seat, (UPCARD, DRAW))
    if command.source == "stock":
        if state.phase == UPCARD:
            raise RuleError("must_take_or_pass_upcard",
                            "the first upcard is on offer: take it or pass")
        return [CARD_DRAWN.event(seat=command.seat, source="stock", card=state.stock[0])]
    if command.source != "discard":
        raise RuleError("unknown_source", "draw from the stock or the discard pile")
    depth = command.depth
    _check_depth(state, command.seat, depth)
    taken = state.discard_pile[-depth:]
    return [CARD_DRAWN.event(seat=command.seat, source="discard", card=taken[0], depth=depth,
                             cards=list(taken))]


def _check_depth(state: GemState, seat: int, depth: int) -> None:
    if state.stock_only:
        raise RuleError("must_draw_from_stock",
                        "both players passed the upcard: the first draw is from the stock")
    if depth < 1:
        raise RuleError("invalid_depth", "depth counts from 1, the top card")
    if not state.discard_pile:
        raise RuleError("discard_pile_empty", "the discard pile is empty")
    if depth > 1 and state.seats == 2:
        raise RuleError("deep_draw_not_allowed",
                        "only with three players may a card below the top be taken "
                        "(docs/rules.md 2.6)")
    if depth > len(state.discard_pile):
        raise RuleError("discard_pile_too_short",
                        f"the discard pile holds {len(state.discard_pile)} cards")
    if depth > 1 and not _deep_draw_allowed(state, seat, depth):
        raise RuleError("deep_card_cannot_meld",
                        f"{state.discard_pile[-depth]} would belong to no meld after your "
                        "discard (docs/rules.md 2.6)")


def _deep_draw_allowed(state: GemState, seat: int, depth: int) -> bool:
    """docs/rules.md 2.6: some turn ending keeps the deepest card taken in a meld."""
    if not state.options.deep_draw_must_meld:
        return True
    taken = state.discard_pile[-depth:]
    hand = state.hands[seat] + taken
    solver = solver_for(state)
    melded = set(solver.melded_cards(hand))
    deepest = taken[0]
    if deepest not in melded:
        return False  # fewer cards never make more melds
    if any(card not in melded for card in hand):
        return True  # discarding a card of no meld breaks none
    if any(deepest in solver.melded_cards(without(hand, card))
           for card in set(hand) if card != deepest):
        return True
    return state.options.big_gin_bonus is not None and solver.deadwood(hand) == 0


def _blocked_discard(state: GemState) -> str | None:
    """The card docs/rules.md 1.4 and 2.6 keep in hand this turn: the (deepest) card taken."""
    if state.options.may_discard_taken_discard and state.must_meld is None:
        return None
    return state.taken_discard


def _check_discard(state: GemState, seat: int, card: str) -> tuple[str, ...]:
    """The hand left after discarding ``card``, if the rules allow that discard."""
    knocking.require_turn(state, seat, (DISCARD,))
    hand = state.hands[seat]
    if card not in hand:
        raise RuleError("card_not_in_hand", f"{card} is not in your hand")
    if card == _blocked_discard(state):
        raise RuleError("must_not_discard_taken_card",
                        f"{card} was just taken from the discard pile (docs/rules.md 1.4, 2.6)")
    rest = without(hand, card)
    if state.must_meld is not None and state.must_meld not in solver_for(state).melded_cards(rest):
        raise RuleError("deep_card_must_meld",
                        f"without {card}, {state.must_meld} belongs to no meld (docs/rules.md 2.6)")
    return rest


RULES = knocking.KnockingRules(
    game="gem",
    solver=solver_for,
    draw=_draw,
    check_discard=_check_discard,
    score_hand=scoring.score_hand,
    check_deck=lambda state, deck: check_deck(deck),
    deal_event=deal_event,
    match_result=scoring.match_result,
    not_at_end="the match has no winner yet",
)
decide = RULES.decide()
preview = RULES.preview()


# --- legal actions ---------------------------------------------------------------------


def legal_actions(state: GemState, seat: int) -> list[dict[str, Any]]:
    """Every action ``seat`` may send now, sorted: draws (top first, then deeper), passes,
    discards, knocks, big gin."""
    if state.turn != seat:
        return []
    if state.phase == UPCARD:
        return [{"type": "draw", "source": "discard"}, {"type": "pass"}]
    if state.phase == DRAW:
        return _draw_actions(state, seat)
    if state.phase == DISCARD:
        return _discard_actions(state, seat)
    return []


def _draw_actions(state: GemState, seat: int) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [{"type": "draw", "source": "stock"}]
    if not state.discard_pile or state.stock_only:
        return actions
    actions.append({"type": "draw", "source": "discard"})
    if state.seats > 2:
        actions += [{"type": "draw", "source": "discard", "depth": depth}
                    for depth in range(2, len(state.discard_pile) + 1)
                    if _deep_draw_allowed(state, seat, depth)]
    return actions


def _discard_actions(state: GemState, seat: int) -> list[dict[str, Any]]:
    hand = state.hands[seat]
    solver = solver_for(state)
    blocked = _blocked_discard(state)
    cards = [card for card in sort_cards(set(hand)) if card != blocked]
    if state.must_meld is not None:
        cards = [card for card in cards
                 if state.must_meld in solver.melded_cards(without(hand, card))]
    actions: list[dict[str, Any]] = [{"type": "discard", "card": card} for card in cards]
    # one search says whether any knock exists; only then is each discard checked
    if cards and solver.best_discard(hand)[0] <= state.knock_limit:
        actions += [{"type": "knock", "discard": card} for card in cards
                    if _deadwood_without(solver, hand, card) <= state.knock_limit]
    if state.options.big_gin_bonus is not None and solver.deadwood(hand) == 0:
        actions.append({"type": "big_gin"})
    return actions


def _deadwood_without(solver: MeldSolver, hand: tuple[str, ...], card: str) -> int:
    """Deadwood after discarding ``card``. A card of no meld is deadwood in every
    arrangement, so dropping it takes just its value off: no search (a three-player hand
    can hold twenty cards)."""
    if card not in solver.melded_cards(hand):
        return solver.deadwood(hand) - pip_value(card)
    return solver.deadwood(without(hand, card))

