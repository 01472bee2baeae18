"""Test builders: prepared decks and matches in a given position, as the rules deal them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from domain.cards import build_deck
from domain.events import Event
from domain.fairness import Deal
from domain.gin import GIN
from domain.gin.options import GinOptions
from domain.gin.state import GinState


def prepared_deck(hands: Sequence[str], upcard: str, stock: str = "", dealer: int = 0,
                  decks: int = 1, jokers: int = 0) -> list[str]:
    """A whole deck order that deals ``hands`` (by seat, space-separated codes) from ``dealer``.

    ``stock`` lists the top of the stock; the remaining cards follow in canonical order.
    """
    seat_cards = [hand.split() for hand in hands]
    players, size = len(seat_cards), len(seat_cards[0])
    order = [seat_cards[(dealer + 1 + i) % players][i // players] for i in range(players * size)]
    order += [upcard] + stock.split()
    left = Counter(build_deck(decks, jokers)) - Counter(order)
    rest = []
    for card in build_deck(decks, jokers):
        if left[card] > 0:
            rest.append(card)
            left[card] -= 1
    return order + rest


def gin_match(hands: Sequence[str], upcard: str, stock: str = "", dealer: int = 0,
              **options: Any) -> GinState:
    """A gin match just dealt from a prepared deck, with ``options`` over the defaults."""
    parsed = GinOptions.parse(options, len(hands))
    deck = prepared_deck(hands, upcard, stock, dealer, parsed.decks, parsed.jokers)
    names = [f"P{seat}" for seat in range(len(hands))]
    deal = Deal(deck, b"prepared", prepared=True)
    return play(GIN.initial_state(), GIN.start_match(names, parsed, dealer, deal))


def play(state: GinState, events: Sequence[Event]) -> GinState:
    for event in events:
        state = GIN.evolve(state, event)
    return state


def act(state: GinState, command: object) -> tuple[GinState, list[Event]]:
    """Decide ``command`` and fold its events: (new state, events)."""
    events = GIN.decide(state, command)
    return play(state, events), events
