"""Card codes, decks and dealing as docs/rules.md section 0 describes them."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.cards import (
    JOKER,
    CardError,
    build_deck,
    card_at,
    card_index,
    deal,
    parse_card,
    parse_cards,
    pip_value,
    rank_of,
    sort_cards,
    standard_deck,
    suit_of,
)


@pytest.mark.parametrize(
    ("text", "code"),
    [("7H", "7H"), ("TD", "TD"), ("10D", "TD"), ("10d", "TD"), ("as", "AS"), (" kc ", "KC")],
)
def test_input_accepts_10_and_lower_case_and_output_is_canonical(text, code):
    assert parse_card(text) == code


def test_a_joker_is_jk_in_any_case():
    assert parse_card("jk") == JOKER
    assert parse_cards(["JK", "Jk", "10h"]) == ("JK", "JK", "TH")


@pytest.mark.parametrize("text", ["", "1D", "11H", "1OD", "XX", "7X", "77H", "JOKER", 7, None])
def test_anything_else_is_not_a_card(text):
    with pytest.raises(CardError):
        parse_card(text)


def test_ranks_suits_and_the_dense_index_round_trip():
    assert (rank_of("AC"), rank_of("TD"), rank_of("KS")) == (0, 9, 12)
    assert [suit_of(c) for c in ("2C", "2D", "2H", "2S")] == [0, 1, 2, 3]
    assert card_index("AC") == 0 and card_index("KS") == 51 and card_index("AD") == 13
    assert [card_at(card_index(card)) for card in standard_deck()] == list(standard_deck())


def test_gin_values_ace_one_pips_then_ten():
    assert [pip_value(r + "H") for r in "A23456789TJQK"] == [*range(1, 10), 10, 10, 10, 10]


@pytest.mark.parametrize(
    ("decks", "jokers", "size"), [(1, 0, 52), (1, 2, 54), (2, 0, 104), (2, 6, 110)]
)
def test_deck_sizes(decks, jokers, size):
    deck = build_deck(decks, jokers)
    assert len(deck) == size
    assert deck.count(JOKER) == jokers
    assert set(Counter(c for c in deck if c != JOKER).values()) == {decks}


def test_one_pack_holds_every_card_once_in_canonical_order():
    deck = standard_deck()
    assert len(set(deck)) == 52
    assert deck[:3] == ("AC", "2C", "3C") and deck[-1] == "KS"


def test_display_order_is_suit_then_rank_with_jokers_last():
    assert sort_cards(["JK", "2S", "KC", "AC", "TD"]) == ("AC", "KC", "TD", "2S", "JK")


def test_dealing_starts_after_the_dealer_one_card_at_a_time_clockwise():
    order = [f"{r}C" for r in "A23456789TJQK"] + [f"{r}D" for r in "A23456789TJQK"]
    hands, pile, stock = deal(order, players=3, dealer=1, hand_size=2)
    # Seat 2 (after dealer 1) gets the top card, then seat 0, then seat 1, round again.
    assert hands == (("2C", "5C"), ("3C", "6C"), ("AC", "4C"))
    assert pile == ("7C",)
    assert stock == tuple(order[7:])


def test_two_player_deal_turns_the_next_card_up_and_keeps_the_rest_in_order():
    deck = standard_deck()
    hands, pile, stock = deal(deck, players=2, dealer=0, hand_size=10)
    assert hands[1] == deck[0:20:2] and hands[0] == deck[1:20:2]
    assert pile == (deck[20],)
    assert stock == deck[21:]


def test_dealing_without_an_upcard_leaves_everything_in_the_stock():
    deck = standard_deck()
    hands, pile, stock = deal(deck, players=4, dealer=3, hand_size=13, upcard=False)
    assert hands[0] == deck[0:52:4]
    assert pile == () and stock == ()


def test_a_deck_too_short_for_the_deal_is_refused():
    with pytest.raises(ValueError):
        deal(standard_deck()[:20], players=2, dealer=0, hand_size=10)
