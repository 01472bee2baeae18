"""The gem deck (docs/rules.md 2.1), the dice (2.2) and Gem Parts (2.5), with examples 10 and 11."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.cards import RANKS, standard_deck
from domain.gem import GEM
from domain.gem.gems import (
    CARD_GEMS,
    GEMS,
    designated_diamond,
    gem_pool,
    gems_of,
    knock_limit,
    shows_all_gems,
)


class TestTheDeck:
    def test_every_card_carries_a_gem_and_each_king_two(self):
        assert set(CARD_GEMS) == set(standard_deck())
        assert {card: len(gems) for card, gems in CARD_GEMS.items() if len(gems) != 1} == {
            "KC": 2, "KD": 2, "KH": 2, "KS": 2}

    def test_each_gem_is_on_seven_cards(self):
        counts = Counter(gem for gems in CARD_GEMS.values() for gem in gems)
        assert counts == {gem: 7 for gem in GEMS}
        assert all(len(gem_pool(gem)) == 7 for gem in GEMS)

    @pytest.mark.parametrize("pair", ["A2", "34", "56", "78", "9T", "JQ"])
    def test_each_pair_of_ranks_holds_all_eight_gems(self, pair):
        cards = [rank + suit for rank in pair for suit in "CDHS"]
        assert sorted(g for card in cards for g in gems_of(card)) == sorted(GEMS)

    def test_the_four_kings_hold_all_eight_between_them(self):
        assert sorted(g for suit in "CDHS" for g in gems_of("K" + suit)) == sorted(GEMS)

    def test_the_initials_spell_gem_parts(self):
        assert "".join(gem[0] for gem in GEMS).upper() == "GEMPARTS"

    def test_the_table_reads_as_printed_in_the_rules(self):
        assert gems_of("AC") == ("gold",) and gems_of("9S") == ("sapphire",)
        assert gems_of("KC") == ("emerald", "ruby") and gems_of("KS") == ("amethyst", "gold")

    def test_the_variant_description_carries_every_cards_gems(self):
        described = GEM.describe()
        assert described["gems"] == list(GEMS)
        assert described["cards"]["KD"] == ["moonstone", "topaz"]
        assert len(described["cards"]) == 52


class TestDice:
    def test_example_10_dice_3_and_4_make_limit_7_and_the_seven_of_diamonds(self):
        assert (knock_limit((3, 4)), designated_diamond((3, 4))) == (7, "7D")

    def test_example_10_dice_6_and_5_make_limit_11_and_the_jack_of_diamonds(self):
        assert (knock_limit((6, 5)), designated_diamond((6, 5))) == (11, "JD")

    @pytest.mark.parametrize("total", range(2, 13))
    def test_every_sum_names_a_diamond(self, total):
        dice = (min(total - 1, 6), total - min(total - 1, 6))
        expected = "JD" if total >= 11 else RANKS[total - 1] + "D"
        assert designated_diamond(dice) == expected


class TestGemParts:
    def test_example_11_the_king_gives_only_one_of_its_gems(self):
        assert not shows_all_gems("AC AH AS 2C 2H 2S KC".split())

    def test_example_11_with_the_ace_of_diamonds_the_king_gives_ruby(self):
        assert shows_all_gems("AC AH AS 2C 2H 2S KC AD".split())

    def test_two_kings_can_fill_two_gaps(self):
        # gold, moonstone, pearl, amethyst, topaz, sapphire + KC (ruby) + KD? no: KD gives
        # moonstone or topaz, both held; emerald is still missing
        assert not shows_all_gems("AC AH AS 2C 2H 2S KC KD".split())
        assert shows_all_gems("AC AH AS 2C 2H 2S KC KH 7C".split())

    def test_a_hand_without_kings_needs_every_gem_on_its_own_cards(self):
        assert shows_all_gems("AC AD AH AS 2C 2D 2H 2S".split())
        assert not shows_all_gems("AC AD AH AS 2C 2D 2H 3S".split())  # 3S is topaz, like 2H
