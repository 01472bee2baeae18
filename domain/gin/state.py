"""Gin Rummy state and ``evolve``: the fold of stored events into the table as it stands.

``evolve`` never validates: stored events are facts. Every rule check lives in
``domain.gin.rules.decide``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.cards import deal, pip_value, rank_of, suit_of
from domain.events import CARD_DRAWN, HAND_DEALT, HAND_SCORED, MATCH_CREATED
from domain.evolving import evolver, replace, seen_taken
from domain.gin.options import GinOptions
from domain.knocking import COMPLETE, COMPLETING, DEALING, DISCARD, DRAW, SCORING, UPCARD
from domain.knocking.evolving import replace_hand, shared_handlers

__all__ = ["COMPLETE", "COMPLETING", "DEALING", "DISCARD", "DRAW", "SCORING", "UPCARD",
           "GinState", "evolve", "hand_size", "initial_state"]


def hand_size(players: int) -> int:
    """10 cards with two players, 7 with three or four (docs/rules.md 1.1, 1.8)."""
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
    known_cards: tuple[tuple[str, ...], ...] = ()  # by seat: cards seen taken from the pile,
                                                   # not yet discarded (public)
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


def hand_limits(options: GinOptions, upcard: str | None) -> tuple[int, int]:
    """The hand's knock limit and score multiplier (Oklahoma, docs/rules.md 1.9)."""
    if not options.oklahoma or upcard is None or upcard == "JK":
        return options.knock_limit, 1
    if rank_of(upcard) == 0:
        limit = 0 if options.oklahoma_ace == "gin_only" else 1
    else:
        limit = pip_value(upcard)
    spades = options.oklahoma_spades_double and suit_of(upcard) == 3
    return limit, 2 if spades else 1


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
    limit, multiplier = hand_limits(state.options, pile[0] if pile else None)
    first = (dealer + 1) % state.seats
    return replace(
        state,
        phase=UPCARD, dealer=dealer, turn=first, hand_number=data["hand_number"],
        hands=hands, stock=stock, discard_pile=pile, upcard_offer=(first, dealer),
        stock_only=False, taken_discard=None, known_cards=((),) * state.seats, turns=0,
        knock_limit=limit, multiplier=multiplier, ending=None,
        commitment=data.get("commitment"),
    )


def _card_drawn(state: GinState, data: Mapping[str, Any]) -> GinState:
    seat, card = data["seat"], data["card"]
    hand = state.hands[seat] + (card,)
    if data["source"] == "stock":
        return replace(state, hands=replace_hand(state, seat, hand), stock=state.stock[1:],
                       phase=DISCARD, turn=seat, taken_discard=None, stock_only=False,
                       upcard_offer=())
    return replace(state, hands=replace_hand(state, seat, hand),
                   discard_pile=state.discard_pile[:-1], phase=DISCARD, turn=seat,
                   taken_discard=card, known_cards=seen_taken(state.known_cards, seat, (card,)),
                   stock_only=False, upcard_offer=())


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


_HANDLERS: dict[str, Callable[[GinState, Mapping[str, Any]], GinState]] = {
    MATCH_CREATED.name: _match_created,
    HAND_DEALT.name: _hand_dealt,
    CARD_DRAWN.name: _card_drawn,
    HAND_SCORED.name: _hand_scored,
    **shared_handlers(),  # the rest as gem folds them, forfeits and aborts too
}


def initial_state() -> GinState:
    return GinState(options=GinOptions(), players=())


evolve = evolver(_HANDLERS)
"""Apply one stored event (unknown event types leave the state as it was)."""
