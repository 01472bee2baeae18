"""A determinisation deals the cards a seat cannot see at random, and is a state the seat
cannot tell from the real one: same cards in all, same public table, same legal moves."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain.bots.information import determinise, information_state, table_cards
from domain.bots.policies import keen, of_type
from domain.rummy.state import RummyState
from domain.steps import pending_step
from domain.variants import VARIANTS
from tests.domain.bots.support import TABLES, positions


def every_card(state):
    return Counter([*(card for hand in state.hands for card in hand), *state.stock,
                    *state.discard_pile, *table_cards(state)])


@pytest.mark.parametrize("name,players", TABLES)
def test_a_determinisation_keeps_what_the_seat_knows_and_deals_the_rest(name, players):
    variant, rng = VARIANTS[name], random.Random(f"{name}{players}")
    for state in positions(name, players):
        for seat in range(players):
            info = information_state(variant, state, seat)
            dealt = determinise(info, rng)
            assert every_card(dealt) == Counter(variant.deck(state.options))
            assert dealt.hands[seat] == state.hands[seat]
            assert (dealt.discard_pile, table_cards(dealt)) == (state.discard_pile,
                                                                table_cards(state))
            for other in info.opponents():
                assert Counter(state.known_cards[other]) <= Counter(dealt.hands[other])
            assert [len(hand) for hand in dealt.hands] == [len(hand) for hand in state.hands]
            assert len(dealt.stock) == len(state.stock)
            assert information_state(variant, dealt, seat) == info
            assert variant.legal_actions(dealt, seat) == variant.legal_actions(state, seat)


def test_rummy_deals_are_determinised_with_a_made_up_seed():
    state = positions("rummy", 3)[0]
    dealt = determinise(information_state(VARIANTS["rummy"], state, 0), random.Random(1))
    assert isinstance(dealt, RummyState)
    assert len(dealt.seed) == 64 and dealt.seed != state.seed


def test_determinisations_differ_from_one_another_and_repeat_for_one_seed():
    state = positions("gin", 2)[0]
    info = information_state(VARIANTS["gin"], state, 0)
    deals = {determinise(info, random.Random(seed)).stock for seed in range(5)}
    assert len(deals) == 5
    assert determinise(info, random.Random(3)) == determinise(info, random.Random(3))


@pytest.mark.parametrize("name,players", TABLES)
def test_the_rules_play_on_from_a_determinisation_unchanged(name, players):
    """Every seat's moves, stock draws and stock rebuilds included, until the hand ends."""
    variant, rng = VARIANTS[name], random.Random(players)
    for state in positions(name, players)[:4]:
        dealt = determinise(information_state(variant, state, state.turn), rng)
        for _ in range(60):
            if pending_step(variant, dealt) is not None:
                break
            seat = dealt.turn
            action = keen(rng, variant.legal_actions(dealt, seat),
                          (of_type("knock", "big_gin", "lay_down", "lay_off"), 0.5))
            for event in variant.decide(dealt, variant.command(seat, action)):
                dealt = variant.evolve(dealt, event)
