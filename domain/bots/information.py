"""What one seat knows (its information state) and deals consistent with it.

A seat's information state is the family state with every card the seat cannot see
turned face down: the other seats' hands keep only the cards everyone saw them take
(``known_cards``: from the discard pile, in rummy also a joker from the table), the rest
of each hand and the whole stock become ``HIDDEN``, and a secret that would let it
re-shuffle the deck (rummy's hand seed, for stock rebuilds) is blanked. What stays is
public: the discard pile (gin's and rummy's as everyone saw it grow, gem's spread), the
melds on the table, hand sizes and the stock count, scores, phase, turn, dealer,
options, the upcard offer, gem's dice and deep card that must meld, rummy's opened
seats and jokers owed. A seat's view (``Variant.view``) shows the same.

A bot level is handed an ``InfoState``, never the state it was built from, so it cannot
read another seat's cards: they are not there. The family's own functions still work on
``InfoState.table`` wherever they read only public cards and the seat's own (its
``legal_actions``, gin's and gem's ``best_discard``, ``decide`` and ``evolve`` of a draw
from the discard pile, a placement or a discard); a meld solver given a ``HIDDEN`` card
raises rather than guess.

``determinise`` deals the unseen cards at random into the face-down places: a full
family state the seat cannot tell from the real one, on which ``legal_actions``,
``decide`` and ``evolve`` run unchanged (information-set search samples many of them).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from domain.cards import sort_cards
from domain.evolving import replace
from domain.gem.state import GemState
from domain.gin.state import GinState
from domain.rummy.state import RummyState
from domain.variant import Variant

HIDDEN = "??"
"""A card the seat cannot see (face down in another hand or in the stock)."""

_SECRETS: dict[type, dict[str, Any]] = {
    GinState: {},
    GemState: {},
    RummyState: {"seed": ""},
}
"""Per family state, the secrets besides hidden cards a seat must not hold, blanked."""


@dataclass(frozen=True)
class InfoState:
    """Everything ``seat`` knows of a match, and nothing more.

    ``table`` is the family state as the seat sees it (see the module's docstring);
    ``unseen`` the cards behind its ``HIDDEN`` codes, as a sorted multiset: the match's
    deck less the seat's hand, the discard pile, the table's melds and the cards the
    others are known to hold. In rummy a rebuilt stock is made of discards the seat saw;
    they count as unseen again (where each went, stock or a hand, is no longer known).
    """

    variant: Variant
    seat: int
    table: Any
    unseen: tuple[str, ...]

    @property
    def hand(self) -> tuple[str, ...]:
        return self.table.hands[self.seat] if self.table.hands else ()

    @property
    def phase(self) -> str:
        return str(self.table.phase)

    @property
    def discard_pile(self) -> tuple[str, ...]:
        return tuple(self.table.discard_pile)

    @property
    def stock_count(self) -> int:
        return len(self.table.stock)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(hand) for hand in self.table.hands)

    def known(self, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` is known to hold (all of them for the seat itself)."""
        if seat == self.seat:
            return self.hand
        return known_cards(self.table)[seat]

    def opponents(self) -> tuple[int, ...]:
        """The other seats, clockwise from the one after this seat."""
        seats = self.table.seats
        return tuple((self.seat + i) % seats for i in range(1, seats))

    def legal_actions(self) -> list[dict[str, Any]]:
        """What the seat may play now: the family's ``legal_actions``, which read only the
        seat's own cards and public ones, so they are the same as on the real state."""
        return self.variant.legal_actions(self.table, self.seat)


def known_cards(state: Any) -> tuple[tuple[str, ...], ...]:
    """The family state's ``known_cards``, one (possibly empty) tuple per seat."""
    return state.known_cards or ((),) * len(state.hands)


def table_cards(state: Any) -> tuple[str, ...]:
    """The cards in melds on the table (rummy and rami; none in gin and gem)."""
    if isinstance(state, RummyState):
        return tuple(card for meld in state.table for card in meld.meld.cards)
    return ()


def information_state(variant: Variant, state: Any, seat: int) -> InfoState:
    """What ``seat`` knows of ``state`` (a gin, gem or rummy/rami state)."""
    secrets = _SECRETS.get(type(state))
    if secrets is None:
        raise TypeError(f"no information state for {type(state).__name__}")
    known = known_cards(state)
    hands = tuple(hand if other == seat else _face_down(hand, known[other])
                  for other, hand in enumerate(state.hands))
    table = replace(state, hands=hands, stock=(HIDDEN,) * len(state.stock), **secrets)
    seen = [*(state.hands[seat] if state.hands else ()), *state.discard_pile,
            *table_cards(state), *(card for other, cards in enumerate(known)
                                   if other != seat for card in cards)]
    return InfoState(variant, seat, table, _less(_deck_counts(variant, state.options), seen))


def _face_down(hand: tuple[str, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    """Another seat's hand as this seat sees it: its known cards, then face-down ones."""
    return tuple(known) + (HIDDEN,) * (len(hand) - len(known))


def _deck_counts(variant: Variant, options: Any) -> dict[str, int]:
    """How many of each card the match's deck holds, in display order."""
    return _counts(variant.name, options, variant.deck)


@lru_cache(maxsize=256)
def _counts(name: str, options: Any, deck: Callable[[Any], tuple[str, ...]]) -> dict[str, int]:
    """``_deck_counts``, kept for the last few options seen: every move builds an
    information state."""
    return dict(Counter(sort_cards(deck(options))))


def _less(deck: dict[str, int], seen: Iterable[str]) -> tuple[str, ...]:
    """The deck's cards less ``seen``, in display order."""
    left = dict(deck)
    for card in seen:
        left[card] -= 1
    return tuple(card for card, count in left.items() for _ in range(count))


def hidden_places(info: InfoState) -> int:
    """How many face-down cards the seat's table has: other hands' and the stock's."""
    return sum(hand.count(HIDDEN) for hand in info.table.hands) + info.stock_count


def determinise(info: InfoState, rng: random.Random) -> Any:
    """A full family state consistent with ``info``: the unseen cards shuffled by ``rng``
    and dealt into the other seats' face-down places, then the stock; every other field
    as the seat sees it, and in rummy a made-up hand seed (for a stock rebuild)."""
    cards = list(info.unseen)
    rng.shuffle(cards)
    hands, used = [], 0
    for hand in info.table.hands:
        face_down = hand.count(HIDDEN)
        hands.append(hand[:len(hand) - face_down] + tuple(cards[used:used + face_down]))
        used += face_down
    changes: dict[str, Any] = {"hands": tuple(hands), "stock": tuple(cards[used:])}
    if isinstance(info.table, RummyState):
        changes["seed"] = rng.randbytes(32).hex()
    return replace(info.table, **changes)
