"""The expert in rummy and rami: a few candidate moves, each played out on sampled deals
against the table's minus points (docs/rules.md 3.3-3.6).

A rummy turn is several actions (draw, lay down, lay off, exchange jokers, discard) and the
questions that decide a round are when to open, when to put jokers down, whether to lay
off now or keep cards for going out in one turn (going rummy doubles the others' minus
points), and what to throw. So at each action the expert weighs, besides what ``basic``
would play:

- holding back: discarding now (basic's discard) instead of opening or placing;
- keeping jokers: the first placement that puts no joker down, and an opening of natural
  cards only, when basic's placement or opening uses a joker;
- a joker exchange basic would not make yet;
- at a draw, the other source.

Each candidate is played on the same determinisations (so the deals that favour one
favour all): the candidate, the rest of the seat's turn and the next seat's turn (the
seat that may take its discard), both by the basic policy: a short horizon, since a
rummy turn through the rules costs a few milliseconds. Its value is then the table's
minus points from the seat's side: the others' mean less its own, or the round's score
if it ended (a seat that went out counts 0, a rummy doubles). Basic's own move is
played unless another beats it by ``MARGIN`` points on average.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from domain.bots.basic import rummy as basic
from domain.bots.information import InfoState, determinise
from domain.bots.policies import PLACEMENTS, STOCK, Action
from domain.cards import JOKER
from domain.errors import RuleError
from domain.rummy.rules import may_open_now
from domain.rummy.state import DRAW, PLAY, RummyState
from domain.rummy.table import best_opening, meld_action, minus_points
from domain.steps import ScoreHand
from domain.variant import Variant

ROLLOUTS = 12
"""Candidate playouts in the default budget (calibrated with bench/bot_moves.py)."""
MARGIN = 5.0
"""Minus points by which another move must beat basic's on average to be played. A
dozen short playouts rate moves with an error of several points, and basic's moves are
sound: measured against basic over 400 rounds, a margin of 1 lost 57% of them, 5
(with basic's discard alone) won 54%, 8 won 49%."""
DISCARDS = 1
"""Discards weighed, in basic's order: basic's own (weighing the next ones too spread
the playouts thinner than the differences between discards)."""
TAKE: Action = {"type": "draw", "source": "discard"}


def candidates(info: InfoState) -> list[Action]:
    """The moves worth weighing now, basic's first (see the module's docstring)."""
    legal = info.legal_actions()
    first = basic.play(info)
    out = [first]
    if info.phase == DRAW:
        out += [action for action in (STOCK, TAKE) if action in legal]
        return _unique(out)
    placing = [action for action in legal if action["type"] in PLACEMENTS]
    discards = sorted((action for action in legal if action["type"] == "discard"),
                      key=lambda action: basic.discard_order(info, action["card"]))
    out += discards[:DISCARDS]
    if _uses_joker(first):
        out += [action for action in placing if not _uses_joker(action)][:1]
        natural = natural_opening(info)
        if natural is not None:
            out.append(natural)
    out += [action for action in placing if action["type"] == "exchange_joker"][:1]
    return _unique(out)


def natural_opening(info: InfoState) -> Action | None:
    """An opening from the hand's natural cards alone, if it reaches the minimum."""
    table: RummyState = info.table
    if table.opened[info.seat] or not may_open_now(table, info.seat):
        return None
    naturals = [card for card in info.hand if card != JOKER]
    if len(naturals) < len(info.hand):
        best = best_opening(naturals)
        if best.melds and best.value >= table.options.opening_minimum:
            action = {"type": "lay_down", "melds": [meld_action(meld) for meld in best.melds]}
            try:
                info.variant.decide(table, info.variant.command(info.seat, action))
            except RuleError:
                return None
            return action
    return None


def _uses_joker(action: Action) -> bool:
    if action["type"] == "lay_down":
        return any(JOKER in meld["cards"] for meld in action["melds"])
    return action["type"] in PLACEMENTS and action.get("card") == JOKER


def _unique(actions: list[Action]) -> list[Action]:
    out: list[Action] = []
    for action in actions:
        if action not in out:
            out.append(action)
    return out


def values(info: InfoState, actions: Sequence[Action], rng: random.Random,
           samples: int) -> list[float]:
    """The mean minus-points margin (see the module's docstring) of each of ``actions``
    over ``samples`` determinisations, the same for every action."""
    totals = [0.0] * len(actions)
    for _ in range(samples):
        deal = determinise(info, rng)
        seed = rng.getrandbits(32)
        for index, action in enumerate(actions):
            totals[index] += outcome(info.variant, deal, info.seat, action,
                                     random.Random(seed))
    return [total / samples for total in totals]


def play(info: InfoState, rng: random.Random, rollouts: int) -> Action:
    """The expert's move: basic's unless a candidate beats it (see the docstring)."""
    found = candidates(info)
    if len(found) == 1:
        return found[0]
    samples = max(1, rollouts // len(found))
    scores = values(info, found, rng, samples)
    best = max(range(len(found)), key=lambda index: scores[index])
    return found[best] if scores[best] > scores[0] + MARGIN else found[0]


def outcome(variant: Variant, state: RummyState, seat: int, action: Action,
            rng: random.Random) -> float:
    """The seat's minus-points margin after ``action``, the rest of its turn and the next
    seat's turn (the one that may take its discard), both by the basic policy."""
    state = _apply(variant, state, action)
    after = state.next_seat(state.next_seat(seat))
    while state.phase in (DRAW, PLAY) and not (state.turn == after and state.phase == DRAW):
        state = _apply(variant, state, basic.play(_seen(variant, state)))
    return margin(variant, state, seat)


def margin(variant: Variant, state: RummyState, seat: int) -> float:
    """The others' mean minus points less the seat's: in hand, or as the round scored."""
    if state.phase in (DRAW, PLAY):
        points = [minus_points(hand) for hand in state.hands]
    else:
        (scored,) = variant.decide(state, ScoreHand())
        points = list(scored.data["points"])
    others = [value for other, value in enumerate(points) if other != seat]
    return sum(others) / len(others) - points[seat]


def _seen(variant: Variant, state: RummyState) -> InfoState:
    """The seat on turn's view for the basic policy, which reads only its own cards and
    the public ones: the determinised state itself serves."""
    if state.turn is None:
        raise ValueError("no seat is on turn")
    return InfoState(variant, state.turn, state, ())


def _apply(variant: Variant, state: Any, action: Action) -> Any:
    for event in variant.decide(state, variant.command(state.turn, action)):
        state = variant.evolve(state, event)
    return state
