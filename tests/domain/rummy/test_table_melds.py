"""Table melds with declared jokers (docs/rules.md 3.2, 3.5) and rummy's meld values (3.4, 3.6)."""

from __future__ import annotations

import random
from itertools import combinations, product

import pytest

from domain.melds import Meld
from domain.rummy.table import best_opening, meld_value, minus_points
from domain.table_melds import (
    MeldError,
    declared,
    exchanged,
    hand_melds,
    is_valid,
    joker_readings,
    laid_off,
)


def meld(text: str, represents: str | None = None) -> Meld:
    return declared(text.split(), represents.split() if represents else None)


def refusal(text: str, represents: str | None = None) -> str:
    with pytest.raises(MeldError) as caught:
        meld(text, represents)
    return caught.value.code


class TestSetsAndRuns:
    def test_a_set_is_three_or_four_of_a_rank_in_different_suits(self):
        assert meld("7S 7C 7D").cards == ("7C", "7D", "7S")
        assert meld("7S 7C 7D 7H").kind == "set"
        assert refusal("7C 7C 7D") == "invalid_meld"   # two decks: a suit only once
        assert refusal("7C 7D") == "meld_too_short"

    def test_a_run_is_consecutive_in_one_suit_ace_low_or_high_but_no_wrap(self):
        assert meld("3S AS 2S").cards == ("AS", "2S", "3S")
        assert meld("AH QH KH").cards == ("QH", "KH", "AH")
        assert refusal("KH AH 2H") == "invalid_meld"
        assert refusal("5H 6H 8H") == "invalid_meld"
        assert refusal("5H 6H 7D") == "invalid_meld"

    def test_a_joker_stands_for_a_declared_card(self):
        run = meld("5H JK 7H", "5H 6H 7H")
        assert (run.cards, run.represents) == (("5H", "JK", "7H"), ("5H", "6H", "7H"))
        assert refusal("5H JK 7H") == "joker_not_declared"
        assert refusal("5H JK 7H", "5H 6H 8H") == "invalid_meld"
        assert refusal("5H 6H 7H", "5H 6H 8H") == "invalid_meld"  # a natural is itself


class TestJokerRules:
    def test_every_meld_has_fewer_jokers_than_natural_cards(self):
        assert refusal("5H JK JK", "5H 6H 7H") == "too_many_jokers"
        assert refusal("5H JK 7H JK", "5H 6H 7H 8H") == "too_many_jokers"
        assert refusal("9C JK 9D JK", "9C 9H 9D 9S") == "too_many_jokers"
        assert meld("5H JK 7H JK 9H", "5H 6H 7H 8H 9H").cards.count("JK") == 2

    def test_two_jokers_are_never_side_by_side_in_a_run(self):
        assert refusal("5H 6H JK JK 9H", "5H 6H 7H 8H 9H") == "adjacent_jokers"

    def test_a_joker_lay_off_needs_room_and_keeps_the_count_rule(self):
        run = meld("5H 6H 7H")
        assert joker_readings(run) == ("4H", "8H")
        assert laid_off(run, "JK") is None                   # undeclared
        assert laid_off(run, "JK", "8H").represents == ("5H", "6H", "7H", "8H")
        with_one = meld("5H JK 7H", "5H 6H 7H")
        assert joker_readings(with_one) == ()                # two jokers, two naturals
        assert joker_readings(meld("QH KH AH")) == ("JH",)   # nothing above a high ace
        assert joker_readings(meld("7C 7D 7S")) == ("7H",)

    def test_a_natural_lay_off_goes_to_a_free_suit_or_a_run_end(self):
        assert laid_off(meld("7C 7D 7S"), "7H").cards == ("7C", "7D", "7H", "7S")
        assert laid_off(meld("7C 7D 7S"), "7D") is None
        assert laid_off(meld("5H 6H 7H"), "4H").cards[0] == "4H"
        assert laid_off(meld("5H 6H 7H"), "9H") is None
        assert laid_off(meld("5H 6H 7H"), "8H", "9H") is None

    def test_a_joker_is_exchanged_from_a_run_or_a_set_of_four_only(self):
        run = meld("5H JK 7H JK 9H", "5H 6H 7H 8H 9H")
        assert exchanged(run, "8H").cards == ("5H", "JK", "7H", "8H", "9H")
        assert exchanged(run, "4H") is None
        assert exchanged(meld("9C 9D JK", "9C 9D 9H"), "9H") is None
        assert exchanged(meld("9C 9D JK 9S", "9C 9D 9H 9S"), "9H").cards == (
            "9C", "9D", "9H", "9S")


class TestValues:
    def test_example_13_queen_king_ace_and_three_sevens_make_52(self):
        assert meld_value(meld("QH KH AH")) == 31
        assert meld_value(meld("7C 7D 7S")) == 21

    def test_example_14_a_low_ace_counts_one_and_a_joker_its_card(self):
        assert meld_value(meld("AS 2S 3S")) + meld_value(meld("TD JD QD")) == 36
        assert meld_value(meld("TD JD QD JK", "TD JD QD KD")) == 40
        assert meld_value(meld("AC AD AS")) == 33

    def test_example_15_minus_points_left_in_hand(self):
        assert minus_points(["JK", "AS", "KD", "5C"]) == 46


class TestCandidates:
    def test_the_hand_offers_every_set_and_run_it_holds(self):
        found = {m.cards for m in hand_melds("5H 6H 7H 8H 7C 7D".split())}
        assert found == {("5H", "6H", "7H"), ("6H", "7H", "8H"), ("5H", "6H", "7H", "8H"),
                         ("7C", "7D", "7H")}

    def test_jokers_complete_pairs_with_declared_cards(self):
        found = {(m.cards, m.represents) for m in hand_melds(["5H", "7H", "JK"])}
        assert found == {(("5H", "JK", "7H"), ("5H", "6H", "7H"))}

    def test_the_best_opening_is_exact_and_keeps_a_card(self):
        best = best_opening("QH KH AH 7C 7D 7S 2C".split())
        assert best.value == 52 and len(best.melds) == 2
        all_meld = best_opening("QH KH AH 7C 7D 7S".split())
        assert all_meld.value == 31  # a card must stay for the discard: only one meld goes


CARDS = [rank + suit for rank in "A23456789TJQK" for suit in "CDHS"]


def from_the_rules(hand: list[str]) -> set[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every meld of ``hand`` by the definition alone, kept when there are jokers enough and
    ``declared`` accepts it: each set of 3 or 4 suits of a rank, a joker for any of its
    cards (the natural may be wanted elsewhere), and each stretch of a suit, ace low or
    high, the hand's card where it holds one and a joker in each gap."""
    jokers, found = hand.count("JK"), set()
    candidates = []
    for rank in "A23456789TJQK":
        for size in (3, 4):
            for suits in combinations("CDHS", size):
                represents = [rank + suit for suit in suits]
                for wild in product((False, True), repeat=size):
                    cards = ["JK" if w else card for w, card in zip(wild, represents, strict=True)]
                    candidates.append((cards, represents))
    ranks = "A23456789TJQKA"
    for suit in "CDHS":
        for low in range(12):
            for high in range(low + 2, min(low + 13, 14)):
                represents = [ranks[p] + suit for p in range(low, high + 1)]
                candidates.append(([c if c in hand else "JK" for c in represents], represents))
    for cards, represents in candidates:
        naturals = [card for card in cards if card != "JK"]
        if (all(card in hand for card in naturals) and cards.count("JK") <= jokers
                and is_valid(cards, represents)):
            laid = declared(cards, represents)
            found.add((laid.cards, laid.represents))
    return found


class TestAgainstTheDefinition:
    """The shortcuts of the meld search and of lay-offs give what the rules alone give."""

    @pytest.mark.parametrize("seed", range(40))
    def test_a_hand_offers_exactly_the_melds_the_rules_allow(self, seed):
        rng = random.Random(seed)
        hand = rng.sample(CARDS * 2, rng.randint(6, 14)) + ["JK"] * rng.randint(0, 3)
        found = {(m.cards, m.represents) for m in hand_melds(hand)}
        assert found == from_the_rules(hand)

    @pytest.mark.parametrize("seed", range(20))
    def test_a_card_is_laid_off_exactly_when_the_grown_meld_is_valid(self, seed):
        rng = random.Random(seed)
        hand = rng.sample(CARDS, 12) + ["JK"] * rng.randint(0, 2)
        for table_meld in hand_melds(hand):
            for card in CARDS:
                grown = (table_meld.cards + (card,), table_meld.represents + (card,))
                expected = declared(*grown) if is_valid(*grown) else None
                assert laid_off(table_meld, card) == expected, (table_meld, card)
