"""Random legal-move playouts through the pure domain (property tests and the benchmark).

The driver plays what a policy picks from ``legal_actions`` (random ones from
``domain.bots.policies``, or the bots of ``domain.bots``), runs the system steps itself
(score, deal from the seed, bonuses: ``domain.steps``) and returns every event, so tests
can rebuild the state from the log at any step.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from domain.bots import choose
from domain.bots.policies import ENDERS, discarding, keen, of_type
from domain.events import Event
from domain.evolving import replay
from domain.fairness import MatchSecrets
from domain.gin import GIN
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


Policy = Callable[[random.Random, Variant, Any, int], dict[str, Any]]
"""How a seat on turn picks its action: (rng, variant, state, seat) -> action."""


def keen_to_end(rng: random.Random, variant: Variant, state: Any, seat: int) -> dict[str, Any]:
    """A random legal action, knocking most of the time it may, so hands end in
    reasonable time."""
    return keen(rng, variant.legal_actions(state, seat), (of_type(*ENDERS), 0.8))


def sensibly(rng: random.Random, variant: Variant, state: Any, seat: int) -> dict[str, Any]:
    """Still random, but like a beginner: knock when allowed, else a random best discard."""
    advice = variant.best_discard(state, seat) if state.phase == "discard" else None
    best = (advice or {}).get("cards", ())
    return keen(rng, variant.legal_actions(state, seat), (of_type(*ENDERS), 1.0),
                (discarding(best), 1.0))


def bots(*levels: str) -> Policy:
    """Seat ``s`` played by the bot of ``levels[s]`` (``domain.bots``), seeded from ``rng``."""

    def policy(rng: random.Random, variant: Variant, state: Any, seat: int) -> dict[str, Any]:
        return choose(levels[seat], variant, state, seat, rng.randbytes(8))

    return policy


def steps(rng: random.Random, state: Any, seed: MatchSecrets, variant: Variant = GIN,
          max_events: int = 5000, policy: Policy = keen_to_end
          ) -> Iterator[tuple[Any, list[Event]]]:
    """Yield (state, events) after every command until the match completes."""
    produced = 0
    while state.phase != "complete" and produced < max_events:
        step = pending_step(variant, state)
        if step is not None:
            events = decide_step(variant, state, step, seed)
        else:
            seat = state.turn
            action = policy(rng, variant, state, seat)
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
