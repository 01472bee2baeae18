"""Gem Rummy state and ``evolve``: the fold of stored events into the table as it stands.

``evolve`` never validates: stored events are facts. Every rule check lives in
``domain.gem.rules.decide``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.cards import deal
from domain.events import CARD_DRAWN, HAND_DEALT, HAND_SCORED, MATCH_CREATED
from domain.evolving import evolver, replace, seen_taken
from domain.gem.gems import designated_diamond, knock_limit
from domain.gem.options import GemOptions
from domain.knocking import COMPLETE, COMPLETING, DEALING, DISCARD, DRAW, SCORING, UPCARD
from domain.knocking.evolving import replace_hand, shared_handlers

__all__ = ["COMPLETE", "COMPLETING", "DEALING", "DISCARD", "DRAW", "HAND_SIZE", "SCORING",
           "UPCARD", "GemState", "evolve", "initial_state", "match_winner"]

HAND_SIZE = 11
"""docs/rules.md 2.2: eleven cards each, with two or three players."""


@dataclass(frozen=True)
class GemState:
    """Everything the rules need to know about a gem match at one version."""

    options: GemOptions
    players: tuple[str, ...]
    phase: str = DEALING
    dealer: int = 0
    turn: int | None = None
    hand_number: int = 0
    dice: tuple[int, ...] = ()
    commitment: str | None = None
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()
    discard_pile: tuple[str, ...] = ()      # bottom first; spread, so all of it is public
    upcard_offer: tuple[int, ...] = ()      # seats still to be offered the first upcard
    stock_only: bool = False                # both passed the upcard: the first draw is stock
    taken_discard: str | None = None        # the (deepest) card taken from the pile this turn
    must_meld: str | None = None            # a deep card that must stay in a meld (2.6)
    known_cards: tuple[tuple[str, ...], ...] = ()  # by seat: cards seen taken from the pile,
                                                   # not yet discarded (public)
    turns: int = 0                          # discards made in this hand (the turn cap)
    ending: Mapping[str, Any] | None = None
    scores: tuple[int, ...] = ()
    hands_won: tuple[int, ...] = ()
    results: tuple[Mapping[str, Any], ...] = ()
    completion: Mapping[str, Any] | None = None

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def knock_limit(self) -> int:
        """docs/rules.md 2.2: the dice sum."""
        return knock_limit(self.dice)

    @property
    def diamond(self) -> str | None:
        """The designated diamond of Queen's Diamonds this hand (docs/rules.md 2.2)."""
        return designated_diamond(self.dice) if self.dice else None

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.seats


def match_winner(scores: Sequence[int], last_points: Sequence[int], target: int) -> int | None:
    """docs/rules.md 2.5: who has won the match, or None while it goes on.

    Of the players at ``target`` or more the higher total wins; equal totals go to who
    scored more in the final hand; if they are still equal another hand is played.
    """
    reached = [s for s, score in enumerate(scores) if score >= target]
    if not reached:
        return None
    top = max(scores[s] for s in reached)
    leaders = [s for s in reached if scores[s] == top]
    best = max(last_points[s] for s in leaders)
    leaders = [s for s in leaders if last_points[s] == best]
    return leaders[0] if len(leaders) == 1 else None


def _match_created(state: GemState, data: Mapping[str, Any]) -> GemState:
    players = tuple(data["players"])
    return replace(state, options=GemOptions(**data["options"]), players=players,
                   dealer=data["first_dealer"], scores=(0,) * len(players),
                   hands_won=(0,) * len(players))


def _hand_dealt(state: GemState, data: Mapping[str, Any]) -> GemState:
    dealer = data["dealer"]
    hands, pile, stock = deal(data["deck"], state.seats, dealer, HAND_SIZE)
    first = (dealer + 1) % state.seats
    two = state.seats == 2  # docs/rules.md 2.6: three players have no upcard offer
    return replace(
        state,
        phase=UPCARD if two else DRAW, dealer=dealer, turn=first,
        hand_number=data["hand_number"], dice=tuple(data["dice"]),
        commitment=data.get("commitment"), hands=hands, stock=stock, discard_pile=pile,
        upcard_offer=(first, dealer) if two else (), stock_only=False, taken_discard=None,
        must_meld=None, known_cards=((),) * state.seats, turns=0, ending=None,
    )


def _card_drawn(state: GemState, data: Mapping[str, Any]) -> GemState:
    seat = data["seat"]
    if data["source"] == "stock":
        hand = state.hands[seat] + (data["card"],)
        return replace(state, hands=replace_hand(state, seat, hand), stock=state.stock[1:],
                       phase=DISCARD, turn=seat, taken_discard=None, must_meld=None,
                       stock_only=False, upcard_offer=())
    depth = data.get("depth", 1)
    taken = state.discard_pile[-depth:]
    deep = depth > 1 and state.options.deep_draw_must_meld
    return replace(state, hands=replace_hand(state, seat, state.hands[seat] + taken),
                   discard_pile=state.discard_pile[:-depth], phase=DISCARD, turn=seat,
                   taken_discard=data["card"], must_meld=data["card"] if deep else None,
                   known_cards=seen_taken(state.known_cards, seat, taken),
                   stock_only=False, upcard_offer=())


def _hand_scored(state: GemState, data: Mapping[str, Any]) -> GemState:
    points = data["points"]
    scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
    winner = data["winner"]
    won = tuple(w + (seat == winner) for seat, w in enumerate(state.hands_won))
    over = match_winner(scores, points, state.options.target) is not None
    return replace(state, scores=scores, hands_won=won, results=state.results + (dict(data),),
                   phase=COMPLETING if over else DEALING, turn=None)


_HANDLERS: dict[str, Callable[[GemState, Mapping[str, Any]], GemState]] = {
    MATCH_CREATED.name: _match_created,
    HAND_DEALT.name: _hand_dealt,
    CARD_DRAWN.name: _card_drawn,
    HAND_SCORED.name: _hand_scored,
    # the rest as gin folds them (forfeits and aborts too); a deep card's must_meld
    # ends with the turn (docs/rules.md 2.6)
    **shared_handlers({"must_meld": None}),
}


def initial_state() -> GemState:
    return GemState(options=GemOptions(), players=())


evolve = evolver(_HANDLERS)
"""Apply one stored event (unknown event types leave the state as it was)."""
