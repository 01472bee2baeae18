"""A seat's information state holds its own cards and what is public, nothing else; the
cards a seat is seen to take from the discard pile are public until it parts with them."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain.bots.information import HIDDEN, hidden_places, information_state
from domain.evolving import replace
from domain.gin import GIN
from domain.knocking import Discard, Draw, PassUpcard
from domain.rummy import RUMMY
from domain.rummy.state import PLAY, TableMeld
from domain.table_melds import declared
from domain.variants import VARIANTS
from tests.builders import act, gin_match
from tests.domain.bots.support import TABLES, hidden_cards, positions, twin
from tests.domain.gem import builders as gem
from tests.domain.rummy.support import given, send

DRAW_STOCK = {"type": "draw", "source": "stock"}
EXAMPLE_1 = "4D 4S 4H 9C TC JC QC KC 2H 5S"
LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"


class TestKnownCards:
    def test_a_gin_card_taken_from_the_pile_is_known_until_it_is_discarded(self):
        state = gin_match([LOOSE, EXAMPLE_1], upcard="3C", stock="AH 6C 8D 2S 7S")
        state, _ = act(state, Draw(1, "discard"))
        assert state.known_cards == ((), ("3C",))
        state, _ = act(state, Discard(1, "2H"))
        state, _ = act(state, Draw(0, "discard"))
        assert state.known_cards == (("2H",), ("3C",))
        state, _ = act(state, Discard(0, "KS"))
        state, _ = act(state, Draw(1, "stock"))
        state, _ = act(state, Discard(1, "3C"))
        assert state.known_cards == (("2H",), ())

    def test_a_card_drawn_from_the_stock_is_not_known(self):
        state = gin_match([LOOSE, EXAMPLE_1], upcard="3C", stock="AH 6C 8D 2S 7S")
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        assert state.known_cards == ((), ())

    def test_a_deep_gem_draw_makes_every_card_taken_known(self):
        state = gem.gem_match(["AC 2C 3C 5D 6D 8H 9H JS QS KH 4S",
                               "AD 2D 3D 5H 6H 8S 9S JC QC KD 4H",
                               "AH 2H 3H 5S 6S 8C 9C JD QD KS 4D"],
                              upcard="7C", discards="7D 7H 4C", dealer=2)
        state, _ = gem.act(state, Draw(0, "discard", depth=3))
        assert state.known_cards == (("7D", "7H", "4C"), (), ())

    def test_a_rummy_card_taken_is_known_until_it_is_laid_on_the_table(self):
        state = given(["QH KH AH 7C 7D", "7S"], upcard="9D")
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, {"type": "discard", "card": "7S"})
        state, _ = send(state, 0, {"type": "draw", "source": "discard"})
        assert state.known_cards == (("7S",), ())
        state, _ = send(state, 0, {"type": "lay_down", "melds": [
            {"cards": ["QH", "KH", "AH"]}, {"cards": ["7C", "7D", "7S"]}]})
        assert state.known_cards == ((), ())

    def test_a_joker_taken_from_the_table_is_known_until_it_is_placed_again(self):
        state = given(["6H 9S", ""], upcard="9D")
        run = declared(["5H", "JK", "7H"], ["5H", "6H", "7H"])
        state = replace(state, table=(TableMeld(1, run, 1),), next_meld_id=2,
                        opened=(True, True), phase=PLAY, turn=0)
        state, _ = send(state, 0, {"type": "exchange_joker", "meld": 1, "card": "6H"})
        assert state.known_cards == (("JK",), ())
        state, _ = send(state, 0, {"type": "lay_off", "meld": 1, "card": "JK",
                                   "represents": "8H"})
        assert state.known_cards == ((), ())


@pytest.mark.parametrize("name,players", TABLES)
def test_a_seat_sees_its_hand_and_the_public_cards_and_nothing_else(name, players):
    variant = VARIANTS[name]
    for state in positions(name, players):
        for seat in range(players):
            info = information_state(variant, state, seat)
            assert info.hand == state.hands[seat]
            assert info.stock_count == len(state.stock) and set(info.table.stock) <= {HIDDEN}
            for other in info.opponents():
                shown = [card for card in info.table.hands[other] if card != HIDDEN]
                assert shown == list(state.known_cards[other])
                assert len(info.table.hands[other]) == len(state.hands[other])
            assert info.discard_pile == state.discard_pile
            assert Counter(info.unseen) == Counter(hidden_cards(state, seat))
            assert len(info.unseen) == hidden_places(info)
            assert getattr(info.table, "seed", "") == ""
            assert info.legal_actions() == variant.legal_actions(state, seat)


@pytest.mark.parametrize("name,players", TABLES)
def test_states_that_differ_only_in_hidden_cards_give_one_information_state(name, players):
    variant, rng = VARIANTS[name], random.Random(players)
    for state in positions(name, players):
        seat = state.turn
        other = twin(state, seat, rng)
        assert other != state or not hidden_cards(state, seat)
        assert information_state(variant, other, seat) == information_state(variant, state, seat)


def test_the_melds_on_the_table_are_seen_cards():
    state = given(["5H 6H 7H", ""], upcard="9D", opening_minimum=0)
    state, _ = send(state, 1, DRAW_STOCK)
    state, _ = send(state, 1, {"type": "discard", "card": state.hands[1][0]})
    state, _ = send(state, 0, DRAW_STOCK)
    state, _ = send(state, 0, {"type": "lay_down", "melds": [{"cards": ["5H", "6H", "7H"]}]})
    unseen = Counter(information_state(RUMMY, state, 1).unseen)
    held = Counter(state.hands[1])
    assert [unseen[card] + held[card] for card in ("5H", "6H", "7H")] == [1, 1, 1]


def test_only_gin_gem_and_rummy_states_have_an_information_state():
    with pytest.raises(TypeError):
        information_state(GIN, object(), 0)
