"""Builders and playouts for the rummy tests: prepared deals, positions, random games.

The playout driver runs the jobs' commands itself (score, deal from a per-round seed,
bonuses), so the domain is exercised without Redis or the workers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from domain.bots.policies import PLACEMENTS, keen, of_type
from domain.cards import build_deck
from domain.errors import RuleError
from domain.events import Event
from domain.evolving import replay
from domain.fairness import Deal, hand_seed
from domain.rummy import RUMMY
from domain.rummy.state import RummyState
from domain.steps import awaiting_step, step_command
from domain.variant import Variant

SHOE = build_deck(2, 6)
SEED = bytes(range(32))


FILLER = "2C 5D 8H JS 3H 6S 9C QD 4S 7C TD KH AD".split()
"""Cards that make no meld together: what hands are topped up with."""


def prepared_deck(hands: Sequence[str], upcard: str, stock: str = "",
                  dealer: int = 0) -> tuple[str, ...]:
    """A whole shoe order that deals ``hands`` (by seat, space-separated) from ``dealer``.

    Hands may be shorter than 13 cards: they are topped up from ``FILLER`` (then from the
    shoe) so tests only spell out the cards that matter. ``stock`` is the stock's top.
    """
    seat_cards = [hand.split() for hand in hands]
    left = Counter(SHOE)
    left.subtract(card for hand in seat_cards for card in hand)
    left.subtract([upcard, *stock.split()])
    spare = [card for card in FILLER + list(SHOE) if card != "JK"]
    for hand in seat_cards:
        for card in spare:
            if len(hand) == 13:
                break
            if left[card] > 0 and card not in hand:
                hand.append(card)
                left[card] -= 1
    players = len(seat_cards)
    order = [seat_cards[(dealer + 1 + i) % players][i // players] for i in range(players * 13)]
    order += [upcard, *stock.split()]
    return tuple(order + list(left.elements()))


def given(hands: Sequence[str], upcard: str, stock: str = "", dealer: int = 0,
          variant: Variant = RUMMY, **options: Any) -> RummyState:
    """A game just dealt from a prepared shoe, ``options`` over the variant's defaults."""
    parsed = variant.parse_options({"first_dealer": dealer, **options}, len(hands))
    deal = Deal(prepared_deck(hands, upcard, stock, dealer), SEED, prepared=True)
    names = [f"P{seat}" for seat in range(len(hands))]
    return play(variant.initial_state(), variant.start_match(names, parsed, dealer, deal))


def play(state: RummyState, events: Sequence[Event], variant: Variant = RUMMY) -> RummyState:
    for event in events:
        state = variant.evolve(state, event)
    return state


def act(state: RummyState, command: object,
        variant: Variant = RUMMY) -> tuple[RummyState, list[Event]]:
    """Decide ``command`` and fold its events: (new state, events)."""
    events = variant.decide(state, command)
    return play(state, events, variant), events


def send(state: RummyState, seat: int, action: dict[str, Any],
         variant: Variant = RUMMY) -> tuple[RummyState, list[Event]]:
    """Play an action object as a client sends it."""
    return act(state, variant.command(seat, action), variant)


def refused(state: RummyState, seat: int, action: dict[str, Any],
            variant: Variant = RUMMY) -> str:
    """The ``RuleError`` code the action gets."""
    with pytest.raises(RuleError) as caught:
        send(state, seat, action, variant)
    return caught.value.code


def job(state: RummyState, name: str, variant: Variant = RUMMY,
        match_seed: bytes = SEED) -> list[Event]:
    """The events a job appends: its own, then the next deal when one falls due."""
    deal = None
    if name == "deal":
        deal = variant.new_deal(state.options, hand_seed(match_seed, state.hand_number + 1))
    events = variant.decide(state, step_command(name, deal))
    after = play(state, events, variant)
    if awaiting_step(after) == "deal":
        events += job(after, "deal", variant, match_seed)
    return events


# --- random games --------------------------------------------------------------------------


def new_game(rng: random.Random, players: int, variant: Variant = RUMMY,
             **options: Any) -> tuple[RummyState, list[Event], bytes]:
    match_seed = rng.randbytes(16)
    parsed = variant.parse_options(options, players)
    dealer = rng.randrange(players)
    deal = variant.new_deal(parsed, hand_seed(match_seed, 1))
    events = variant.start_match([f"P{s}" for s in range(players)], parsed, dealer, deal)
    return replay(variant, events), events, match_seed


def pick(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Random, but keen to place cards, so rounds end in reasonable time."""
    return keen(rng, actions, (of_type(*PLACEMENTS), 0.9))


def steps(rng: random.Random, state: RummyState, match_seed: bytes, variant: Variant = RUMMY,
          max_events: int = 20000) -> Iterator[tuple[RummyState, list[Event]]]:
    """Yield (state, events) after every command until the game completes."""
    produced = 0
    while state.phase != "complete" and produced < max_events:
        pending = awaiting_step(state)
        if pending is not None:
            events = job(state, pending, variant, match_seed)
        else:
            seat = state.turn
            assert seat is not None
            action = pick(rng, variant.legal_actions(state, seat))
            events = variant.decide(state, variant.command(seat, action))
        state = play(state, events, variant)
        produced += len(events)
        yield state, events
