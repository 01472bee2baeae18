"""Deadwood on masks (one deck, no jokers) against the brute force of test_melds.py, on
hands crowded with sets and runs, which is where the choice of sets matters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import card_index, pip_value, sort_cards, standard_deck
from domain.mask_deadwood import MaskDeadwood, pip_deadwood
from tests.domain.test_melds import brute_deadwood, brute_discard

PIP = pip_deadwood()
CROWDED = [card for card in standard_deck() if card[0] in "3456"]
"""Every suit of four ranks: nearly every card fits a set and a run."""
ENDS = [card for card in standard_deck() if card[0] in "A23JQK"]
DENSE = [card for card in standard_deck() if card[0] in "A23456789"]
PROPERTY = settings(max_examples=300, deadline=None)


def mask(cards: list[str]) -> int:
    return sum(1 << card_index(card) for card in cards)


def codes(bits: int) -> tuple[str, ...]:
    return sort_cards(card for card in standard_deck() if bits >> card_index(card) & 1)


def hands(deck: list[str], low: int, high: int):
    return st.integers(low, high).flatmap(
        lambda size: st.lists(st.sampled_from(deck), min_size=size, max_size=size, unique=True))


@PROPERTY
@given(st.one_of(hands(CROWDED, 3, 12), hands(ENDS, 3, 12), hands(DENSE, 8, 12)))
def test_deadwood_and_the_best_discard_are_the_brute_force_minimum(cards):
    assert PIP.deadwood(mask(cards)) == brute_deadwood(cards)
    least, best = brute_discard(cards)
    assert PIP.discard_deadwood(mask(cards)) == least
    assert PIP.best_discards(mask(cards)) == (least, mask(list(best)))


@PROPERTY
@given(hands(CROWDED, 4, 12), st.integers(0, 20))
def test_the_discards_within_a_limit_are_those_that_leave_at_most_it(cards, limit):
    within = {card for card in cards
              if brute_deadwood([c for c in cards if c != card]) <= limit}
    assert codes(PIP.discards_within(mask(cards), limit)) == sort_cards(within)


def test_other_card_values_are_honoured_even_zero():
    values = [0 if rank == 5 else pip_value(standard_deck()[rank]) * (1 + suit % 2)
              for suit in range(4) for rank in range(13)]
    tables = MaskDeadwood(values)
    cards = ["6C", "6D", "6H", "5H", "7H", "KS", "2D"]
    loose = {"KS": 20, "2D": 4}
    assert tables.deadwood(mask(cards)) == sum(loose.values())
    assert tables.discard_deadwood(mask(cards)) == 4


def test_an_empty_hand_has_no_deadwood_and_no_discard():
    assert PIP.deadwood(0) == 0
    assert PIP.discard_deadwood(0) > 1000
