"""The fast gin engine plays the domain's rules: over 10,000 random hands, in every state
both list the same legal moves in the same order, a move leaves both in the same state,
and every hand ends with the result and points the scoring step records.

Hands are dealt by the domain (``start_match``), under every option the engine plays, and
played by a mix of random players: most discard their best card and knock whenever they
may, or only for gin (so knocks, gin, big gin and undercuts are common), some play at
random (so hands run out of stock, or reach a small turn cap).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from domain.cards import build_deck
from domain.evolving import replay
from domain.fairness import Deal
from domain.gin import GIN
from domain.gin.rules import start_match
from domain.gin.state import GinState
from domain.mask_deadwood import pip_deadwood
from domain.simulation import GinHand
from domain.simulation import moves as m
from domain.steps import ScoreHand

HANDS = 10_000
SETTINGS: list[dict[str, Any]] = [
    {},
    {},
    {"knock_limit": 5},
    {"may_discard_taken_discard": True},
    {"big_gin_bonus": None},
    {"undercut_on_tie": False},
    {"undercut_on_tie": False, "knock_limit": 7},
    {"oklahoma": True, "oklahoma_spades_double": True},
    {"oklahoma": True, "oklahoma_ace": "one"},
    {"max_turns": 14},
    {"gin_bonus": 20, "undercut_bonus": 10, "big_gin_bonus": 50},
]
STYLES = ("greedy",) * 6 + ("gin",) * 2 + ("random",) * 2
TABLES = pip_deadwood()
CODES = m.CODES
INDEX = {code: index for index, code in enumerate(CODES)}
BIT = {code: 1 << index for code, index in INDEX.items()}


def dealt(rng: random.Random, options: dict[str, Any]) -> GinState:
    """A hand dealt by the domain's own start of a match."""
    parsed = GIN.parse_options(options, 2)
    deck = list(build_deck())
    rng.shuffle(deck)
    events = start_match(["Ann", "Bob"], parsed, rng.randrange(2),
                         Deal(tuple(deck), rng.randbytes(32)))
    return replay(GIN, events)


def snapshot(hand: GinHand) -> tuple:
    """What the rules read of a hand in play (the stock by its size: both take its top)."""
    return (hand.hands, hand.stock_count, hand.pile, hand.phase, hand.turn, hand.offer,
            hand.stock_only, hand.taken, hand.turns, hand.dealer)


def domain_snapshot(state: GinState) -> tuple:
    taken = state.taken_discard
    return ([sum(BIT[card] for card in hand) for hand in state.hands], len(state.stock),
            [INDEX[card] for card in state.discard_pile], state.phase, state.turn,
            state.upcard_offer, state.stock_only, -1 if taken is None else INDEX[taken],
            state.turns, state.dealer)


def pick(rng: random.Random, style: str, hand: GinHand, legal: list[int]) -> int:
    """A move in one of three styles of random play.

    ``greedy`` takes the discard when that lowers its deadwood, discards a card that
    leaves the least, and knocks whenever it may (short hands, many showdowns); ``gin``
    plays the same but only ever goes gin or big gin; ``random`` plays any move, but
    knocks 4 times in 5 when it may and draws from the stock 3 times in 4 (hands that
    mostly run out of stock).
    """
    enders = [move for move in legal if m.KNOCK <= move < m.DRAW_STOCK or move == m.BIG_GIN]
    if style == "random":
        if hand.phase == "draw" and rng.random() < 0.75:
            return m.DRAW_STOCK
        return rng.choice(enders if enders and rng.random() < 0.8 else legal)
    cards = hand.hands[hand.turn]
    if style == "gin":
        enders = [move for move in enders
                  if move == m.BIG_GIN or not TABLES.deadwood(cards ^ 1 << (move - m.KNOCK))]
        enders = enders[-1:]  # big gin before gin
    if enders:
        return rng.choice(enders)
    if m.DRAW_DISCARD in legal:
        better = TABLES.discard_deadwood(cards | 1 << hand.pile[-1]) < TABLES.deadwood(cards)
        return m.DRAW_DISCARD if better else legal[-1] if hand.phase == "upcard" else legal[0]
    if legal[0] >= m.KNOCK:
        return legal[0]
    _, best = TABLES.best_discards(cards)
    return rng.choice([move for move in legal if best >> move & 1] or legal)


def scored(state: GinState) -> dict[str, Any]:
    return GIN.decide(state, ScoreHand())[0].data


def expected(score: dict[str, Any]) -> tuple:
    pairing = score["pairings"][0] if score["pairings"] else {}
    return (score["result"], tuple(score["points"]), score["winner"], score["knocker"],
            pairing.get("knocker_deadwood"), pairing.get("defender_deadwood"),
            score["reason"] if score["result"] == "draw" else None)


def play_both(rng: random.Random, options: dict[str, Any], style: str) -> tuple[str, int]:
    """One hand on both engines, compared at every step; (result, moves made)."""
    state = dealt(rng, options)
    hand = GinHand.from_state(state)
    assert [CODES[card] for card in hand.stock] == list(state.stock)
    assert (hand.knock_limit, hand.multiplier) == (state.knock_limit, state.multiplier)
    made = 0
    while hand.result is None:
        assert snapshot(hand) == domain_snapshot(state)
        legal = hand.legal()
        assert [m.action(move) for move in legal] == GIN.legal_actions(state, state.turn)
        move = pick(rng, style, hand, legal)
        for event in GIN.decide(state, GIN.command(state.turn, m.action(move))):
            state = GIN.evolve(state, event)
        hand.apply(move)
        made += 1
    assert state.phase == "scoring"
    result = hand.result
    assert (result.result, result.points, result.winner, result.knocker,
            result.knocker_deadwood, result.defender_deadwood, result.reason) \
        == expected(scored(state))
    return result.result if result.reason is None else result.reason, made


@pytest.mark.slow
def test_ten_thousand_random_hands_play_move_by_move_as_the_domain_plays_them():
    rng = random.Random(2025)
    endings: Counter[str] = Counter()
    made = 0
    for _ in range(HANDS):
        ending, moves_made = play_both(rng, rng.choice(SETTINGS), rng.choice(STYLES))
        endings[ending] += 1
        made += moves_made
    # every way a hand can end was played, many times
    for ending in ("knock", "gin", "big_gin", "undercut", "tie", "stock_exhausted",
                   "turn_cap"):
        assert endings[ending] >= 10, endings
    assert made > 30 * HANDS
