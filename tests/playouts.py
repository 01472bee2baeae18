"""Random legal-move playouts through the pure domain (property tests and the benchmark).

The driver plays what ``legal_actions`` offers, runs the system steps itself (score,
deal from the seed, bonuses: ``domain.steps``) and returns every event, so tests can
rebuild the state from the log at any step.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.events import Event
from domain.evolving import replay
from domain.fairness import MatchSecrets
from domain.gin import GIN
from domain.gin.rules import solver_for
from domain.steps import decide_step, pending_step
from domain.variant import Variant


def new_match(rng: random.Random, players: int = 2, variant: Variant = GIN,
              **options: Any) -> tuple[Any, list[Event], MatchSecrets]:
    seed = rng.randbytes(16)
    parsed = variant.parse_options(options, players)
    dealer = rng.randrange(players)
    secrets = MatchSecrets(seed)
    events = variant.start_match([f"P{s}" for s in range(players)], parsed, dealer,
                                variant.deal_for(parsed, secrets, 1))
    return replay(variant, events), events, secrets


def pick(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action, knocking whenever allowed so hands end in reasonable time."""
    enders = [a for a in actions if a["type"] in ("knock", "big_gin")]
    return rng.choice(enders) if enders and rng.random() < 0.8 else rng.choice(actions)


def pick_sensibly(rng: random.Random, actions: list[dict[str, Any]],
                  best: tuple[str, ...]) -> dict[str, Any]:
    """Still random, but like a beginner: knock when allowed, else a random best discard."""
    enders = [a for a in actions if a["type"] in ("knock", "big_gin")]
    if enders:
        return rng.choice(enders)
    good = [a for a in actions if a["type"] == "discard" and a["card"] in best]
    return rng.choice(good or actions)


def steps(rng: random.Random, state: Any, seed: MatchSecrets, variant: Variant = GIN,
          max_events: int = 5000, sensible: bool = False) -> Iterator[tuple[Any, list[Event]]]:
    """Yield (state, events) after every command until the match completes."""
    produced = 0
    while state.phase != "complete" and produced < max_events:
        step = pending_step(variant, state)
        if step is not None:
            events = decide_step(variant, state, step, seed)
        else:
            seat = state.turn
            actions = variant.legal_actions(state, seat)
            if sensible and state.phase == "discard":
                best = solver_for(state.options).best_discard(state.hands[seat])[1]
                action = pick_sensibly(rng, actions, best)
            else:
                action = pick(rng, actions)
            events = variant.decide(state, variant.command(seat, action))
        for event in events:
            state = variant.evolve(state, event)
        produced += len(events)
        yield state, events


def play_match(rng: random.Random, players: int = 2, **options: Any) -> tuple[Any, list[Event]]:
    """A whole random match: (final state, all events)."""
    state, log, seed = new_match(rng, players, **options)
    for state, events in steps(rng, state, seed):  # noqa: B007, B020 - keeps the final state
        log.extend(events)
    return state, log
