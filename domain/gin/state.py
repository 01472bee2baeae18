"""Gin Rummy state and ``evolve``: the fold of stored events into the table as it stands.

``evolve`` never validates: stored events are facts. Every rule check lives in
``domain.gin.rules.decide``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain import controls
from domain.cards import deal, pip_value, rank_of, suit_of, without
from domain.events import (
    CARD_DISCARDED,
    CARD_DRAWN,
    HAND_DEALT,
    HAND_ENDED,
    HAND_SCORED,
    MATCH_COMPLETED,
    MATCH_CREATED,
)
from domain.evolving import evolver, replace
from domain.gin.options import GinOptions
from domain.knocking import HAND_KNOCKED, UPCARD_PASSED

# Phases (RULES.md 1.3-1.6, 1.10)
UPCARD = "upcard"          # the first upcard is being offered
DRAW = "draw"              # the seat on turn draws
DISCARD = "discard"        # the seat on turn discards, knocks or declares big gin
SCORING = "scoring"        # the hand has ended; the scoring step has not yet recorded it
DEALING = "dealing"        # scored; the next deal is due (appended with the score)
COMPLETING = "completing"  # the target is reached; the bonuses step has not yet run
COMPLETE = "complete"


def hand_size(players: int) -> int:
    """10 cards with two players, 7 with three or four (RULES.md 1.1, 1.8)."""
    return 10 if players == 2 else 7


@dataclass(frozen=True)
class GinState:
    """Everything the rules need to know about a gin match at one version."""

    options: GinOptions
    players: tuple[str, ...]
    phase: str = DEALING
    dealer: int = 0
    turn: int | None = None
    hand_number: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()
    discard_pile: tuple[str, ...] = ()
    upcard_offer: tuple[int, ...] = ()   # seats still to be offered the first upcard
    stock_only: bool = False             # both passed the upcard: the first draw is from stock
    taken_discard: str | None = None     # the card taken from the discard pile this turn
    turns: int = 0                       # discards made in this hand (the turn cap counts them)
    knock_limit: int = 10
    multiplier: int = 1                  # Oklahoma spade upcard doubles the hand's scores
    ending: Mapping[str, Any] | None = None    # how the hand ended, awaiting the scoring step
    commitment: str | None = None        # SHA-256 of this hand's seed (None in schema-1 logs)
    scores: tuple[int, ...] = ()
    hands_won: tuple[int, ...] = ()
    results: tuple[Mapping[str, Any], ...] = ()
    completion: Mapping[str, Any] | None = None
    rules_edition: int = 1               # docs/rules.md "Editions": fixed at creation

    @property
    def seats(self) -> int:
        return len(self.players)

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.seats




def _hand_limits(options: GinOptions, upcard: str | None) -> tuple[int, int]:
    """The hand's knock limit and score multiplier (Oklahoma, RULES.md 1.9)."""
    if not options.oklahoma or upcard is None or upcard == "JK":
        return options.knock_limit, 1
    if rank_of(upcard) == 0:
        limit = 0 if options.oklahoma_ace == "gin_only" else 1
    else:
        limit = pip_value(upcard)
    spades = options.oklahoma_spades_double and suit_of(upcard) == 3
    return limit, 2 if spades else 1


def _replace_hand(state: GinState, seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)




def _match_created(state: GinState, data: Mapping[str, Any]) -> GinState:
    players = tuple(data["players"])
    return replace(
        state,
        options=GinOptions(**data["options"]),
        players=players,
        dealer=data["first_dealer"],
        rules_edition=data["rules_edition"],
        scores=(0,) * len(players),
        hands_won=(0,) * len(players),
    )


def _hand_dealt(state: GinState, data: Mapping[str, Any]) -> GinState:
    dealer = data["dealer"]
    hands, pile, stock = deal(data["deck"], state.seats, dealer, hand_size(state.seats))
    limit, multiplier = _hand_limits(state.options, pile[0] if pile else None)
    first = (dealer + 1) % state.seats
    return replace(
        state,
        phase=UPCARD, dealer=dealer, turn=first, hand_number=data["hand_number"],
        hands=hands, stock=stock, discard_pile=pile, upcard_offer=(first, dealer),
        stock_only=False, taken_discard=None, turns=0, knock_limit=limit,
        multiplier=multiplier, ending=None, commitment=data.get("commitment"),
    )


def _upcard_passed(state: GinState, data: Mapping[str, Any]) -> GinState:
    offer = state.upcard_offer[1:]
    if offer:
        return replace(state, upcard_offer=offer, turn=offer[0])
    first = state.next_seat(state.dealer)
    return replace(state, upcard_offer=(), phase=DRAW, turn=first, stock_only=True)


def _card_drawn(state: GinState, data: Mapping[str, Any]) -> GinState:
    seat, card = data["seat"], data["card"]
    hand = state.hands[seat] + (card,)
    if data["source"] == "stock":
        return replace(state, hands=_replace_hand(state, seat, hand), stock=state.stock[1:],
                       phase=DISCARD, turn=seat, taken_discard=None, stock_only=False,
                       upcard_offer=())
    return replace(state, hands=_replace_hand(state, seat, hand),
                   discard_pile=state.discard_pile[:-1], phase=DISCARD, turn=seat,
                   taken_discard=card, stock_only=False, upcard_offer=())


def _card_discarded(state: GinState, data: Mapping[str, Any]) -> GinState:
    seat, card = data["seat"], data["card"]
    return replace(
        state,
        hands=_replace_hand(state, seat, without(state.hands[seat], card)),
        discard_pile=state.discard_pile + (card,),
        phase=DRAW, turn=state.next_seat(seat), taken_discard=None, turns=state.turns + 1,
    )


def _hand_knocked(state: GinState, data: Mapping[str, Any]) -> GinState:
    seat, card = data["seat"], data.get("discard")
    if card is None:
        return replace(state, phase=SCORING, turn=None, ending=dict(data), taken_discard=None)
    return replace(
        state,
        hands=_replace_hand(state, seat, without(state.hands[seat], card)),
        discard_pile=state.discard_pile + (card,),
        phase=SCORING, turn=None, ending=dict(data), taken_discard=None,
    )


def _hand_ended(state: GinState, data: Mapping[str, Any]) -> GinState:
    return replace(state, phase=SCORING, turn=None, ending=dict(data), taken_discard=None)


def _hand_scored(state: GinState, data: Mapping[str, Any]) -> GinState:
    points = data["points"]
    scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
    won = tuple(w + data["hand_winners"].count(seat) for seat, w in enumerate(state.hands_won))
    over = max(scores) >= state.options.target and data["result"] != "draw"
    return replace(
        state,
        scores=scores, hands_won=won, results=state.results + (dict(data),),
        phase=COMPLETING if over else DEALING, turn=None,
    )


def _match_completed(state: GinState, data: Mapping[str, Any]) -> GinState:
    return replace(state, phase=COMPLETE, turn=None, completion=dict(data))


_HANDLERS: dict[str, Callable[[GinState, Mapping[str, Any]], GinState]] = {
    MATCH_CREATED.name: _match_created,
    HAND_DEALT.name: _hand_dealt,
    UPCARD_PASSED.name: _upcard_passed,
    CARD_DRAWN.name: _card_drawn,
    CARD_DISCARDED.name: _card_discarded,
    HAND_KNOCKED.name: _hand_knocked,
    HAND_ENDED.name: _hand_ended,
    HAND_SCORED.name: _hand_scored,
    MATCH_COMPLETED.name: _match_completed,
    **controls.HANDLERS,  # SeatForfeited, MatchAborted: any family alike
}


def initial_state() -> GinState:
    return GinState(options=GinOptions(), players=())


evolve = evolver(_HANDLERS)
"""Apply one stored event (unknown event types leave the state as it was)."""
