"""Gem test builders: matches dealt from prepared decks and fixed dice, random playouts."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from domain.bots.policies import ENDERS, deep_draw, keen, of_type
from domain.events import Event
from domain.fairness import Deal, hand_seed
from domain.gem import GEM
from domain.gem.options import GemOptions
from domain.gem.state import GemState
from domain.steps import awaiting_step, step_command
from tests.builders import prepared_deck

SEED = b"\x07" * 32


def gem_match(hands: Sequence[str], upcard: str, stock: str = "", dealer: int = 0,
              dice: tuple[int, int] = (3, 4), discards: str = "", **options: Any) -> GemState:
    """A gem match just dealt from a prepared deck with fixed ``dice``.

    ``discards`` (three players) are cards put on the discard pile above the upcard, as if
    discarded, bottom first: a spread pile to draw deep from.
    """
    parsed = GemOptions.parse(options, len(hands))
    deck = prepared_deck(hands, upcard, stock, dealer)
    names = [f"P{seat}" for seat in range(len(hands))]
    deal = Deal(tuple(deck), SEED, prepared=True, fixed={"dice": list(dice)})
    state = play(GEM.initial_state(), GEM.start_match(names, parsed, dealer, deal))
    if discards:
        state = with_discards(state, discards.split())
    return state


def with_discards(state: GemState, cards: Sequence[str]) -> GemState:
    """``state`` with ``cards`` moved from the stock onto the discard pile (a position
    reached by earlier turns, built directly)."""
    stock = tuple(card for card in state.stock if card not in cards)
    assert len(stock) == len(state.stock) - len(cards), "discards must come from the stock"
    return replace(state, stock=stock, discard_pile=state.discard_pile + tuple(cards))


def play(state: GemState, events: Sequence[Event]) -> GemState:
    for event in events:
        state = GEM.evolve(state, event)
    return state


def act(state: GemState, command: object) -> tuple[GemState, list[Event]]:
    """Decide ``command`` and fold its events: (new state, events)."""
    events = GEM.decide(state, command)
    return play(state, events), events


def job(state: GemState, name: str, seed: bytes = SEED) -> tuple[GemState, list[Event]]:
    """Run a background job's command (``deal`` shuffles the next hand from ``seed``)."""
    deal = GEM.new_deal(state.options, hand_seed(seed, state.hand_number + 1)) \
        if name == "deal" else None
    return act(state, step_command(name, deal))


# --- random playouts ---------------------------------------------------------------------


def new_match(rng: random.Random, players: int = 2,
              **options: Any) -> tuple[GemState, list[Event], bytes]:
    seed = rng.randbytes(16)
    parsed = GEM.parse_options(options, players)
    events = GEM.start_match([f"P{s}" for s in range(players)], parsed, rng.randrange(players),
                             GEM.new_deal(parsed, hand_seed(seed, 1)))
    return play(GEM.initial_state(), events), events, seed


def pick(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action, knocking mostly, and drawing deep often, so that hands end
    and deep draws happen."""
    return keen(rng, actions, (of_type(*ENDERS), 0.8), (deep_draw, 0.5))


def steps(rng: random.Random, state: GemState, seed: bytes,
          max_events: int = 3000) -> Iterator[tuple[GemState, list[Event]]]:
    """Yield (state, events) after every command until the match completes."""
    produced = 0
    while state.phase != "complete" and produced < max_events:
        name = awaiting_step(state)
        if name is not None:
            state, events = job(state, name, seed)
        else:
            seat = state.turn
            assert seat is not None
            action = pick(rng, GEM.legal_actions(state, seat))
            state, events = act(state, GEM.command(seat, action))
        produced += len(events)
        yield state, events
