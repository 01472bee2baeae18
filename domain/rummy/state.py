"""Rummy/Rami state and ``evolve``: the fold of stored events into the table as it stands.

``evolve`` never validates: stored events are facts. Every rule lives in
``domain.rummy.rules.decide``. Events that change a table meld carry the meld as it
becomes (``result``), so a client following the stream can keep its table without the
rules, and replay needs none either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain import controls
from domain.cards import JOKER, deal
from domain.events import (
    CARD_DISCARDED,
    CARD_DRAWN,
    HAND_DEALT,
    HAND_ENDED,
    HAND_SCORED,
    MATCH_COMPLETED,
    MATCH_CREATED,
)
from domain.evolving import evolver, replace, seen_taken
from domain.melds import Meld
from domain.rummy.events import CARD_LAID_OFF, JOKER_EXCHANGED, MELDS_LAID_DOWN, STOCK_REBUILT
from domain.rummy.options import RummyOptions

# Phases (docs/rules.md 3.3, 3.6)
DRAW = "draw"              # the seat on turn draws
PLAY = "play"              # drawn: lay down, lay off, exchange jokers, then discard
SCORING = "scoring"        # the round has ended; the scoring step has not yet recorded it
DEALING = "dealing"        # scored; the next deal is due (appended with the score)
COMPLETING = "completing"  # the game is over; the bonuses step has not yet recorded it
COMPLETE = "complete"

HAND_SIZE = 13


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table: its id (stable for the round) and its cards."""

    id: int
    meld: Meld
    owner: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "owner": self.owner, **self.meld.to_dict()}


@dataclass(frozen=True)
class RummyState:
    """Everything the rules need to know about a rummy or rami game at one version."""

    variant: str
    options: RummyOptions
    players: tuple[str, ...]
    phase: str = DEALING
    dealer: int = 0
    turn: int | None = None
    hand_number: int = 0
    seed: str = ""                      # the hand's secret seed (hex): stock rebuilds
    commitment: str = ""
    rebuilds: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()
    discard_pile: tuple[str, ...] = ()
    table: tuple[TableMeld, ...] = ()
    next_meld_id: int = 1
    opened: tuple[bool, ...] = ()
    turns_started: tuple[int, ...] = ()  # each seat's turns in this round (rami opens on 2)
    opened_now: bool = False             # the seat on turn opened in this turn (going rummy)
    jokers_owed: int = 0                 # jokers freed this turn and not yet placed (3.5)
    known_cards: tuple[tuple[str, ...], ...] = ()  # by seat: cards seen taken (the top
                                         # discard, a joker from the table), still held
    turns: int = 0                       # discards in this round (the turn cap counts them)
    ending: Mapping[str, Any] | None = None
    scores: tuple[int, ...] = ()         # minus points so far, by seat
    rounds_played: int = 0               # scored rounds (a void round does not count)
    results: tuple[Mapping[str, Any], ...] = ()
    completion: Mapping[str, Any] | None = None

    @property
    def seats(self) -> int:
        return len(self.players)

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.seats

    def meld(self, meld_id: int) -> TableMeld | None:
        return next((m for m in self.table if m.id == meld_id), None)




def _set(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return values[:seat] + (value,) + values[seat + 1 :]


def _take(hand: tuple[str, ...], cards: list[str]) -> tuple[str, ...]:
    left = list(hand)
    for card in cards:
        left.remove(card)
    return tuple(left)


def meld_from_dict(data: Mapping[str, Any]) -> Meld:
    return Meld(data["kind"], tuple(data["cards"]), tuple(data["represents"]))


def _match_created(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    players = tuple(data["players"])
    return replace(state, variant=data["variant"], options=RummyOptions(**data["options"]),
                   players=players, dealer=data["first_dealer"], scores=(0,) * len(players))


def _hand_dealt(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    dealer = data["dealer"]
    hands, pile, stock = deal(data["deck"], state.seats, dealer, data["hand_size"])
    return replace(
        state, phase=DRAW, dealer=dealer, turn=(dealer + 1) % state.seats,
        hand_number=data["hand_number"], seed=data.get("seed") or "",
        commitment=data.get("commitment") or "",
        rebuilds=0, hands=hands, stock=stock, discard_pile=pile, table=(), next_meld_id=1,
        opened=(False,) * state.seats, turns_started=(0,) * state.seats, opened_now=False,
        jokers_owed=0, known_cards=((),) * state.seats, turns=0, ending=None,
    )


def _card_drawn(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    seat, card = data["seat"], data["card"]
    hands = _set(state.hands, seat, state.hands[seat] + (card,))
    started = _set(state.turns_started, seat, state.turns_started[seat] + 1)
    piles: dict[str, Any] = ({"stock": state.stock[1:]} if data["source"] == "stock"
                             else {"discard_pile": state.discard_pile[:-1],
                                   "known_cards": seen_taken(state.known_cards, seat, (card,))})
    return replace(state, hands=hands, turns_started=started, phase=PLAY, turn=seat,
                   opened_now=False, jokers_owed=0, **piles)


def _placed(state: RummyState, seat: int, cards: list[str]) -> dict[str, Any]:
    """What placing ``cards`` from the hand changes: the hand, and the jokers owed."""
    return {"hands": _set(state.hands, seat, _take(state.hands[seat], cards)),
            "jokers_owed": max(0, state.jokers_owed - cards.count(JOKER)),
            "known_cards": seen_taken(state.known_cards, seat, gone=cards)}


def _melds_laid_down(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    seat = data["seat"]
    new = tuple(TableMeld(m["id"], meld_from_dict(m), seat) for m in data["melds"])
    cards = [card for m in data["melds"] for card in m["cards"]]
    changes = _placed(state, seat, cards)
    if data.get("opening"):
        changes.update(opened=_set(state.opened, seat, True), opened_now=True)
    return replace(state, table=state.table + new,
                   next_meld_id=max(m.id for m in new) + 1, **changes)


def _with_meld(state: RummyState, meld_id: int, result: Mapping[str, Any]) -> tuple[TableMeld, ...]:
    return tuple(TableMeld(m.id, meld_from_dict(result), m.owner) if m.id == meld_id else m
                 for m in state.table)


def _card_laid_off(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    changes = _placed(state, data["seat"], [data["card"]])
    return replace(state, table=_with_meld(state, data["meld"], data["result"]), **changes)


def _joker_exchanged(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    seat = data["seat"]
    hand = _take(state.hands[seat], [data["card"]]) + (JOKER,)
    known = seen_taken(state.known_cards, seat, (JOKER,), gone=(data["card"],))
    return replace(state, table=_with_meld(state, data["meld"], data["result"]),
                   hands=_set(state.hands, seat, hand), jokers_owed=state.jokers_owed + 1,
                   known_cards=known)


def _card_discarded(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    seat, card = data["seat"], data["card"]
    return replace(state, hands=_set(state.hands, seat, _take(state.hands[seat], [card])),
                   discard_pile=state.discard_pile + (card,), phase=DRAW,
                   turn=state.next_seat(seat), turns=state.turns + 1, opened_now=False,
                   jokers_owed=0, known_cards=seen_taken(state.known_cards, seat, gone=(card,)))


def _stock_rebuilt(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    return replace(state, stock=tuple(data["stock"]), discard_pile=state.discard_pile[-1:],
                   rebuilds=data["rebuild"])


def _hand_ended(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    return replace(state, phase=SCORING, turn=None, ending=dict(data))


def _hand_scored(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    scores = tuple(s + p for s, p in zip(state.scores, data["points"], strict=True))
    played = state.rounds_played + (data["result"] != "void")
    return replace(state, scores=scores, rounds_played=played,
                   results=state.results + (dict(data),), turn=None,
                   phase=COMPLETING if data["game_over"] else DEALING)


def _match_completed(state: RummyState, data: Mapping[str, Any]) -> RummyState:
    return replace(state, phase=COMPLETE, turn=None, completion=dict(data))


_HANDLERS: dict[str, Callable[[RummyState, Mapping[str, Any]], RummyState]] = {
    MATCH_CREATED.name: _match_created,
    HAND_DEALT.name: _hand_dealt,
    CARD_DRAWN.name: _card_drawn,
    MELDS_LAID_DOWN.name: _melds_laid_down,
    CARD_LAID_OFF.name: _card_laid_off,
    JOKER_EXCHANGED.name: _joker_exchanged,
    CARD_DISCARDED.name: _card_discarded,
    STOCK_REBUILT.name: _stock_rebuilt,
    HAND_ENDED.name: _hand_ended,
    HAND_SCORED.name: _hand_scored,
    MATCH_COMPLETED.name: _match_completed,
    **controls.HANDLERS,  # SeatForfeited, MatchAborted: any family alike
}


def initial_state() -> RummyState:
    return RummyState(variant="", options=RummyOptions(), players=())


evolve = evolver(_HANDLERS)
"""Apply one stored event (unknown event types leave the state as it was)."""
