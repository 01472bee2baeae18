"""The fast gin hand as a search uses it: made from a state or a deck, forked, stepped,
played out; and what it refuses to play."""

from __future__ import annotations

import random

import pytest

from domain.cards import build_deck
from domain.evolving import replay
from domain.fairness import Deal
from domain.gin import GIN
from domain.gin.options import GinOptions
from domain.gin.rules import start_match
from domain.simulation import GinHand, HandResult, Unsupported, greedy, knocker, moves, uniform
from domain.simulation.moves import CODES


def dealt(deck: list[str], dealer: int = 0, players: int = 2, **options):
    parsed = GIN.parse_options(options, players)
    events = start_match([f"P{s}" for s in range(players)], parsed, dealer,
                         Deal(tuple(deck), b"\x01" * 32))
    return replay(GIN, events)


def shuffled(seed: int, decks: int = 1, jokers: int = 0) -> list[str]:
    deck = list(build_deck(decks, jokers))
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("options", [{}, {"oklahoma": True, "oklahoma_spades_double": True}])
def test_a_hand_dealt_from_a_deck_order_is_the_hand_the_domain_deals(options):
    for seed in range(30):
        deck = shuffled(seed)
        state = dealt(deck, dealer=seed % 2, **options)
        order = [CODES.index(card) for card in deck]
        fresh = GinHand.deal(order, seed % 2, GinOptions(**options))
        from_state = GinHand.from_state(state)
        for field in ("hands", "stock", "pile", "turn", "phase", "offer", "knock_limit",
                      "multiplier", "dealer", "rules"):
            assert getattr(fresh, field) == getattr(from_state, field), field


def test_the_first_upcard_is_offered_to_the_non_dealer_then_the_dealer():
    hand = GinHand.from_state(dealt(shuffled(1), dealer=0))
    assert (hand.turn, hand.legal()) == (1, [moves.DRAW_DISCARD, moves.PASS])
    hand.apply(moves.PASS)
    assert (hand.turn, hand.legal()) == (0, [moves.DRAW_DISCARD, moves.PASS])
    hand.apply(moves.PASS)
    assert (hand.turn, hand.legal()) == (1, [moves.DRAW_STOCK])


def test_the_card_taken_from_the_pile_is_no_legal_discard():
    hand = GinHand.from_state(dealt(shuffled(2)))
    upcard = hand.pile[-1]
    hand.apply(moves.DRAW_DISCARD)
    legal = hand.legal()
    assert moves.DISCARD + upcard not in legal
    assert len([move for move in legal if move < moves.KNOCK]) == 10


def test_a_copy_is_independent_of_its_original():
    hand = GinHand.from_state(dealt(shuffled(3)))
    before = (hand.hands[:], hand.pile[:], hand.top, hand.phase)
    child = hand.copy()
    child.playout(random.Random(1))
    assert child.result is not None
    assert (hand.hands, hand.pile, hand.top, hand.phase) == before
    assert hand.result is None


def test_playouts_end_every_hand_with_a_result_that_adds_up():
    rng = random.Random(4)
    for seed in range(200):
        hand = GinHand.from_state(dealt(shuffled(seed), dealer=seed % 2))
        result = hand.playout(rng, knocker if seed % 2 else uniform)
        assert isinstance(result, HandResult)
        assert hand.legal() == []
        assert result.margin(0) == -result.margin(1)
        if result.result == "draw":
            assert result.points == (0, 0) and result.reason in ("stock_exhausted", "turn_cap")
        elif result.winner is not None:
            assert result.points[result.winner] > 0


def test_the_same_seed_plays_the_same_hand():
    state = dealt(shuffled(5))
    results = [GinHand.from_state(state).playout(random.Random(9)) for _ in range(2)]
    assert results[0] == results[1]


def test_moves_are_the_rules_action_objects():
    for move in range(moves.MOVES):
        assert moves.move(moves.action(move)) == move
    assert moves.action(moves.KNOCK + CODES.index("7H")) == {"type": "knock", "discard": "7H"}
    with pytest.raises(ValueError):
        moves.action(moves.MOVES)


@pytest.mark.parametrize(("players", "options", "words"), [
    (3, {}, "3 players"),
    (2, {"decks": 2}, "2 decks"),
    (2, {"jokers": 1}, "1 jokers"),
])
def test_a_table_the_engine_does_not_play_is_refused_with_the_reason(players, options, words):
    deck = shuffled(6, options.get("decks", 1), options.get("jokers", 0))
    state = dealt(deck, players=players, **options)
    with pytest.raises(Unsupported, match=words):
        GinHand.from_state(state)


def test_a_match_between_hands_has_no_hand_to_play():
    state = dealt(shuffled(7))
    hand = GinHand.from_state(state)
    while hand.result is None:
        move = uniform(hand, random.Random(1))
        for event in GIN.decide(state, GIN.command(state.turn, moves.action(move))):
            state = GIN.evolve(state, event)
        hand.apply(move)
    with pytest.raises(Unsupported, match="no hand is in play"):
        GinHand.from_state(state)


@pytest.mark.parametrize("policy", [uniform, knocker])
@pytest.mark.parametrize("options", [{}, {"may_discard_taken_discard": True}])
def test_a_random_playout_plays_the_moves_its_policy_picks_step_by_step(options, policy):
    for seed in range(300):
        state = dealt(shuffled(seed), dealer=seed % 2, **options)
        stepped = GinHand.from_state(state)
        rng = random.Random(seed)
        while stepped.result is None:
            stepped.apply(policy(stepped, rng))
        played = GinHand.from_state(state)
        assert played.playout(random.Random(seed), policy) == stepped.result
        assert (played.hands, played.pile, played.top) == \
            (stepped.hands, stepped.pile, stepped.top)


def test_greedy_players_play_legal_moves_and_end_most_hands_with_a_knock():
    rng = random.Random(8)
    knocked = 0
    for seed in range(200):
        hand = GinHand.from_state(dealt(shuffled(seed), dealer=seed % 2))
        while hand.result is None:
            move = greedy(hand, rng)
            assert move in hand.legal()
            hand.apply(move)
        knocked += hand.result.result != "draw"
    assert knocked > 150
