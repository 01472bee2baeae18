"""Gem Rummy deals, turns, knocks and hand ends (docs/rules.md 2.2-2.4, 2.6), given/when/then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.cards import standard_deck
from domain.errors import RuleError
from domain.fairness import Deal, roll_dice
from domain.gem import GEM
from domain.gem.options import GemOptions
from domain.gem.rules import DeclareBigGin, Discard, Draw, Knock, PassUpcard, legal_actions
from domain.gem.state import DISCARD, DRAW, SCORING, UPCARD
from tests.domain.gem.builders import act, gem_match, job

# Two players, dealer 0. Seat 1 melds a gold stash, a club run and Queen's Diamonds
# (QH with 7D, the diamond of dice 3 + 4) and keeps 2H AS: deadwood 3.
KNOCKER = "4D 5H 8S JD 5C 6C 7C QH 7D 2H AS"
LOOSE = "TC 8C 2D 9D 6H 3S 9S KH QC JS 4C"  # no meld of any kind: 81
ALL_MELDED = "AC 4D 5H 8S JD KS 5C 6C 7C QH 7D"  # six gold (KS through gold), a run, QH 7D
BIG_GIN = "4D 5H 8S JD 5C 6C 7C QH 7D 2H 2S"  # 2C completes a set of twos


def two(hand: str = KNOCKER, stock: str = "9H AH 3D", **options):
    return gem_match([LOOSE, hand], upcard="KD", stock=stock, **options)


def to_discard(hand: str = KNOCKER, stock: str = "9H AH 3D", **options):
    """Both pass the upcard; seat 1 draws the top of the stock."""
    state, _ = act(two(hand, stock, **options), PassUpcard(1))
    state, _ = act(state, PassUpcard(0))
    state, _ = act(state, Draw(1, "stock"))
    return state


def rule_error(state, command) -> str:
    with pytest.raises(RuleError) as caught:
        act(state, command)
    return caught.value.code


class TestDealAndDice:
    def test_the_deal_records_the_dice_and_what_they_decide(self):
        state = two()
        assert (state.dice, state.knock_limit, state.diamond) == ((3, 4), 7, "7D")
        assert [len(hand) for hand in state.hands] == [11, 11]

    def test_dice_not_fixed_are_rolled_from_the_hands_seed(self):
        seed = b"\x01" * 32
        events = GEM.start_match(["A", "B"], GemOptions(), 0, Deal(standard_deck(), seed))
        assert events[1].data["dice"] == list(roll_dice(seed))
        assert events[1].data["knock_limit"] == sum(roll_dice(seed))

    @pytest.mark.parametrize("dice", [[0, 3], [3, 7], [3], [3, 4, 5], ["3", 4], [True, 2], 7])
    def test_fixed_dice_must_be_two_dice(self, dice):
        deal = Deal(standard_deck(), b"\x01" * 32, fixed={"dice": dice})
        with pytest.raises(RuleError) as caught:
            GEM.start_match(["A", "B"], GemOptions(), 0, deal)
        assert caught.value.code == "invalid_dice"

    def test_a_prepared_deck_must_be_the_52_cards(self):
        deal = Deal(standard_deck()[:-1] + ("AC",), b"\x01" * 32)
        with pytest.raises(RuleError) as caught:
            GEM.start_match(["A", "B"], GemOptions(), 0, deal)
        assert caught.value.code == "invalid_deck"


class TestTwoPlayers:
    def test_the_upcard_is_offered_as_in_gin(self):
        state = two()
        assert (state.phase, state.turn) == (UPCARD, 1)
        assert legal_actions(state, 1) == [{"type": "draw", "source": "discard"}, {"type": "pass"}]

    def test_there_is_no_deep_draw_with_two_players(self):
        state, _ = act(two(), PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        state, _ = act(state, Discard(1, "9H"))
        assert rule_error(state, Draw(0, "discard", 2)) == "deep_draw_not_allowed"
        assert all("depth" not in action for action in legal_actions(state, 0))

    def test_the_card_taken_from_the_pile_may_not_be_discarded(self):
        state, _ = act(two(), Draw(1, "discard"))
        assert rule_error(state, Discard(1, "KD")) == "must_not_discard_taken_card"


class TestKnock:
    def test_a_knock_needs_deadwood_at_most_the_dice_sum(self):
        state = to_discard()  # drew 9H
        assert [a for a in legal_actions(state, 1) if a["type"] == "knock"] == [
            {"type": "knock", "discard": "9H"}]
        assert rule_error(state, Knock(1, "2H")) == "deadwood_over_limit"  # AS 9H: 10 > 7
        state, events = act(state, Knock(1, "9H"))
        assert events[0].data["kind"] == "knock" and events[0].data["deadwood"] == 3
        assert [m["kind"] for m in events[0].data["melds"]] == ["run", "stash", "queens_diamonds"]
        assert state.phase == SCORING

    def test_the_same_cards_cannot_knock_under_smaller_dice(self):
        # dice 1 + 2: limit 3 and the designated diamond is 3D, so QH 7D no longer melds
        state = to_discard(dice=(1, 2))
        assert not [a for a in legal_actions(state, 1) if a["type"] == "knock"]

    def test_gin_is_all_eleven_melded_after_the_discard(self):
        state = to_discard(ALL_MELDED)  # draws 9H
        state, events = act(state, Knock(1, "9H"))
        assert (events[0].data["kind"], events[0].data["deadwood"]) == ("gin", 0)

    def test_big_gin_is_all_twelve_melded_without_a_discard(self):
        state = to_discard(BIG_GIN, stock="2C AH 3D")
        assert legal_actions(state, 1)[-1] == {"type": "big_gin"}
        state, events = act(state, DeclareBigGin(1))
        assert (events[0].data["kind"], events[0].data["discard"]) == ("big_gin", None)
        assert len(state.hands[1]) == 12

    def test_big_gin_needs_every_card_melded(self):
        assert rule_error(to_discard(), DeclareBigGin(1)) == "not_big_gin"

    def test_submitted_melds_may_show_a_stash(self):
        state = to_discard()
        melds = (("4D", "5H", "8S", "JD"), ("5C", "6C", "7C"), ("QH", "7D"))
        _, events = act(state, Knock(1, "9H", melds))
        assert {m["kind"] for m in events[0].data["melds"]} == {"stash", "run", "queens_diamonds"}


class TestKnockPreview:
    """As in gin (docs/rules.md 1.5, 2.4): a knock shows, among equal arrangements, the one
    the defenders can lay off least onto, which reads their hidden hands; its preview
    (``Variant.check``) picks from the knocker's cards alone. With dice 5 + 5, seat 1 knocks
    8D: 3C 4C 5C 4D 4H 2S leave 10 whether the clubs run or the fours are shown, and a 6C
    in the defender's hand lays off onto the run only."""

    def position(self, sixth: str, stock: str):
        defender = f"2D 7D 9D JD 6H QH 2H 7H KH 8C {sixth}"
        state = gem_match([defender, "3C 4C 5C 4D 4H 9S TS JS QS KS 2S"], upcard="AH",
                          stock=f"8D {stock} 5D 9H", dice=(5, 5))
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        return state

    def test_only_the_knock_itself_depends_on_the_defenders_hand(self):
        holding_6c, not_holding = self.position("6C", "3S"), self.position("3S", "6C")
        knocks = [GEM.decide(state, Knock(1, "8D")) for state in (holding_6c, not_holding)]
        previews = [GEM.check(state, Knock(1, "8D")) for state in (holding_6c, not_holding)]
        assert knocks[0] != knocks[1]
        assert previews[0] == previews[1] and previews[0][0].data["deadwood"] == 10


class TestDrawnHand:
    def test_the_hand_is_drawn_when_a_discard_leaves_two_cards_in_the_stock(self):
        state = to_discard()
        state = replace(state, stock=state.stock[:2])
        state, events = act(state, Discard(1, "9H"))
        assert events[-1].data == {"result": "draw", "reason": "stock_exhausted"}
        state, scored = job(state, "scoring")
        assert scored[0].data["points"] == [0, 0] and scored[0].data["next_dealer"] == 0
        state, dealt = job(state, "deal")
        assert dealt[0].data["dealer"] == 0 and dealt[0].data["hand_number"] == 2


# Three players, dealer 0: seat 1 plays first. The pile, bottom first: 6S (the upcard),
# then 5D, TH, 2S. Seat 1 holds 8H 9H (TH makes a run) and 8H JC (sapphire; 2S and 5D
# make a stash of four). 6S fits nothing.
SEAT_0 = "QC QD QH 2H 3C 4D 5C 6H 7D 8C 9D"
SEAT_1 = "8H 9H 2C 3D 4S 6C 7S JC KD QS AD"
SEAT_2 = "AC 2D 3H 4C 5H 6D 7C 8D 9S TS JH"


def three(**options):
    return gem_match([SEAT_0, SEAT_1, SEAT_2], upcard="6S", discards="5D TH 2S", **options)


class TestThreePlayers:
    def test_the_first_player_simply_draws_there_is_no_upcard_offer(self):
        state = gem_match([SEAT_0, SEAT_1, SEAT_2], upcard="6S")
        assert (state.phase, state.turn, state.upcard_offer) == (DRAW, 1, ())
        assert legal_actions(state, 1) == [{"type": "draw", "source": "stock"},
                                           {"type": "draw", "source": "discard"}]

    def test_a_deeper_card_is_offered_only_if_it_can_meld(self):
        assert legal_actions(three(), 1) == [
            {"type": "draw", "source": "stock"},
            {"type": "draw", "source": "discard"},
            {"type": "draw", "source": "discard", "depth": 2},  # TH: 8H 9H TH
            {"type": "draw", "source": "discard", "depth": 3},  # 5D: 8H JC 2S 5D sapphire
        ]  # not depth 4: 6S melds with nothing
        assert rule_error(three(), Draw(1, "discard", 4)) == "deep_card_cannot_meld"
        assert rule_error(three(), Draw(1, "discard", 5)) == "discard_pile_too_short"

    def test_a_deep_draw_takes_every_card_above_and_the_hand_grows(self):
        state, events = act(three(), Draw(1, "discard", 3))
        assert events[0].data == {"seat": 1, "source": "discard", "card": "5D", "depth": 3,
                                  "cards": ["5D", "TH", "2S"]}
        assert state.discard_pile == ("6S",) and len(state.hands[1]) == 14
        assert (state.phase, state.must_meld) == (DISCARD, "5D")

    def test_no_discard_may_break_the_deep_cards_meld(self):
        state, _ = act(three(), Draw(1, "discard", 3))
        discards = {a["card"] for a in legal_actions(state, 1) if a["type"] == "discard"}
        assert discards == {"2C", "6C", "AD", "3D", "KD", "9H", "TH", "4S", "7S", "QS"}
        assert rule_error(state, Discard(1, "5D")) == "must_not_discard_taken_card"
        for card in ("8H", "JC", "2S"):
            assert rule_error(state, Discard(1, card)) == "deep_card_must_meld"
        state, _ = act(state, Discard(1, "KD"))
        assert len(state.hands[1]) == 13 and state.turn == 2 and state.must_meld is None

    def test_the_top_card_needs_no_meld(self):
        state, _ = act(three(), Draw(1, "discard"))
        assert state.must_meld is None
        discards = {a["card"] for a in legal_actions(state, 1) if a["type"] == "discard"}
        assert discards == set(SEAT_1.split())  # all but 2S, the card just taken

    def test_without_the_meld_rule_any_depth_may_be_taken(self):
        state = three(deep_draw_must_meld=False)
        assert {"type": "draw", "source": "discard", "depth": 4} in legal_actions(state, 1)
        state, _ = act(state, Draw(1, "discard", 4))
        assert rule_error(state, Discard(1, "6S")) == "must_not_discard_taken_card"

    def test_a_knocks_discard_must_keep_the_deep_card_melded_too(self):
        state, _ = act(three(), Draw(1, "discard", 3))
        assert rule_error(state, Knock(1, "8H")) == "deep_card_must_meld"
