"""Positions to put bots in: random states of every variant and seat count where a seat
must act, and the same states with the hidden cards dealt differently."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

from domain.bots.information import known_cards
from domain.bots.policies import ENDERS, PLACEMENTS, deep_draw, keen, of_type
from domain.evolving import replace
from domain.rummy.state import RummyState
from domain.steps import pending_step
from domain.variant import Variant
from domain.variants import VARIANTS
from tests.playouts import new_match, steps

TABLES = [(name, players) for name in sorted(VARIANTS)
          for players in range(VARIANTS[name].min_players, VARIANTS[name].max_players + 1)]
"""Every variant at every seat count it allows."""
LIVELY = of_type(*ENDERS, *PLACEMENTS)


def lively(rng: random.Random, variant: Variant, state: Any, seat: int) -> dict[str, Any]:
    """Random, but keen to end hands, place cards and draw deep: positions of every kind
    (opened seats, table melds, jokers owed, cards known to be taken) come up."""
    return keen(rng, variant.legal_actions(state, seat), (of_type("exchange_joker"), 0.9),
                (lambda a: LIVELY(a) or deep_draw(a), 0.6))


@cache
def positions(name: str, players: int, count: int = 12) -> tuple[Any, ...]:
    """``count`` states of a random ``name`` match of ``players`` where a seat must act,
    spread over the match (several hands); rummy's rare mid-turn positions with a joker
    to place again are picked more often."""
    variant, rng = VARIANTS[name], random.Random(f"{name}-{players}")
    found: list[Any] = []
    while len(found) < count:
        start, _, secrets = new_match(rng, players, variant)
        for state, _ in steps(rng, start, secrets, variant, max_events=4000, policy=lively):
            rare = getattr(state, "jokers_owed", 0) > 0  # mid-turn after an exchange
            if state.turn is not None and pending_step(variant, state) is None \
                    and rng.random() < (0.5 if rare else 0.08):
                found.append(state)
                if len(found) == count:
                    break
    return tuple(found)


def hidden_cards(state: Any, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the others' hands but for their known cards, and the
    stock."""
    hidden = list(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden += (Counter(hand) - Counter(known_cards(state)[other])).elements()
    return hidden


def twin(state: Any, seat: int, rng: random.Random) -> Any:
    """``state`` with the cards ``seat`` cannot see shuffled among the places they were in
    (the others' hands keep their sizes and known cards, the stock its count), and in
    rummy another secret seed: a state ``seat`` cannot tell from ``state``."""
    cards = hidden_cards(state, seat)
    rng.shuffle(cards)
    hands = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            hands.append(hand)
            continue
        known = known_cards(state)[other]
        size = len(hand) - len(known)
        hands.append(known + tuple(cards[:size]))
        cards = cards[size:]
    changes: dict[str, Any] = {"hands": tuple(hands), "stock": tuple(cards)}
    if isinstance(state, RummyState):
        changes["seed"] = rng.randbytes(32).hex()
    return replace(state, **changes)
