"""Gin Rummy turns, knocks and hand ends (docs/rules.md 1.3-1.5, 1.8, 1.9), given/when/then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.errors import RuleError
from domain.fairness import Deal
from domain.gin import GIN
from domain.gin.options import GinOptions
from domain.gin.rules import (
    CompleteMatch,
    DealHand,
    DeclareBigGin,
    Discard,
    Draw,
    Knock,
    PassUpcard,
    ScoreHand,
    check_deck,
    legal_actions,
    match_deck,
)
from domain.gin.state import COMPLETING, DEALING, DISCARD, DRAW, SCORING, UPCARD, GinState
from domain.viewer import Viewer
from tests.builders import act, gin_match

# Seat 1 (non-dealer) holds docs/rules.md example 1 (deadwood 7); seat 0 holds 70 of deadwood.
EXAMPLE_1 = "4D 4S 4H 9C TC JC QC KC 2H 5S"
LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"


def dealt(**options):
    return gin_match([LOOSE, EXAMPLE_1], upcard="3C", stock="AH 6C 8D 2S 7S", **options)


def rule_error(state, command) -> str:
    with pytest.raises(RuleError) as caught:
        act(state, command)
    return caught.value.code


class TestUpcardOffer:
    def test_the_non_dealer_is_offered_the_upcard_first(self):
        state = dealt()
        assert (state.phase, state.turn, state.discard_pile) == (UPCARD, 1, ("3C",))
        assert legal_actions(state, 1) == [{"type": "draw", "source": "discard"}, {"type": "pass"}]
        assert legal_actions(state, 0) == []

    def test_when_both_pass_the_non_dealer_draws_from_the_stock(self):
        state, _ = act(dealt(), PassUpcard(1))
        assert (state.phase, state.turn) == (UPCARD, 0)
        state, _ = act(state, PassUpcard(0))
        assert (state.phase, state.turn) == (DRAW, 1)
        assert legal_actions(state, 1) == [{"type": "draw", "source": "stock"}]
        assert rule_error(state, Draw(1, "discard")) == "must_draw_from_stock"
        state, events = act(state, Draw(1, "stock"))
        assert events[0].data == {"seat": 1, "source": "stock", "card": "AH"}
        assert state.phase == DISCARD

    def test_whoever_takes_the_upcard_discards_and_the_other_plays_next(self):
        state, _ = act(dealt(), PassUpcard(1))
        state, _ = act(state, Draw(0, "discard"))
        assert "3C" in state.hands[0] and state.phase == DISCARD
        state, _ = act(state, Discard(0, "KS"))
        assert (state.phase, state.turn, state.discard_pile) == (DRAW, 1, ("KS",))

    def test_the_stock_cannot_be_drawn_while_the_upcard_is_offered(self):
        assert rule_error(dealt(), Draw(1, "stock")) == "must_take_or_pass_upcard"


class TestTurn:
    def test_only_the_seat_on_turn_may_act(self):
        assert rule_error(dealt(), PassUpcard(0)) == "not_your_turn"

    def test_a_discard_must_come_from_the_hand(self):
        state, _ = act(dealt(), Draw(1, "discard"))
        assert rule_error(state, Discard(1, "AS")) == "card_not_in_hand"

    def test_the_card_just_taken_from_the_discard_pile_may_not_be_discarded(self):
        state, _ = act(dealt(), Draw(1, "discard"))
        assert rule_error(state, Discard(1, "3C")) == "must_not_discard_taken_card"
        assert {"type": "discard", "card": "3C"} not in legal_actions(state, 1)

    def test_nor_be_the_knock_discard(self):
        state, _ = act(dealt(), Draw(1, "discard"))
        assert rule_error(state, Knock(1, "3C")) == "must_not_discard_taken_card"

    def test_the_view_never_advises_discarding_the_card_just_taken(self):
        """KD melds with nothing, so it would be the best discard, but it was just taken."""
        state = gin_match([LOOSE, EXAMPLE_1], upcard="KD", stock="AH 6C 8D 2S 7S")
        state, _ = act(state, Draw(1, "discard"))
        assert GIN.view(state, Viewer.for_seat(1))["best_discard"] == {
            "deadwood": 12, "cards": ["5S"]}

    def test_an_option_allows_discarding_the_taken_card(self):
        state, _ = act(dealt(may_discard_taken_discard=True), Draw(1, "discard"))
        state, _ = act(state, Discard(1, "3C"))
        assert state.discard_pile[-1] == "3C"

    def test_drawing_is_not_possible_after_drawing(self):
        state, _ = act(dealt(), Draw(1, "discard"))
        assert rule_error(state, Draw(1, "stock")) == "wrong_phase"


def knocking_position(**options):
    """Seat 1 has drawn AH: discarding 5S leaves 4D 4S 4H, 9C-KC, 2H AH = deadwood 3."""
    state, _ = act(dealt(**options), PassUpcard(1))
    state, _ = act(state, PassUpcard(0))
    state, _ = act(state, Draw(1, "stock"))
    return state


class TestKnock:
    def test_knock_within_the_limit_ends_the_hand_for_scoring(self):
        state, events = act(knocking_position(), Knock(1, "5S"))
        assert [e.type for e in events] == ["HandKnocked"]
        assert events[0].data["kind"] == "knock" and events[0].data["deadwood"] == 3
        assert sorted(events[0].data["unmatched"]) == ["2H", "AH"]
        assert (state.phase, state.turn) == (SCORING, None)

    def test_legal_actions_list_exactly_the_knocks_within_the_limit(self):
        actions = legal_actions(knocking_position(), 1)
        knocks = [a["discard"] for a in actions if a["type"] == "knock"]
        # 9C or KC keeps a four-card run (deadwood 8); TC or a 4 breaks a meld (over 10)
        assert knocks == ["9C", "KC", "AH", "2H", "5S"]

    def test_knock_over_the_limit_is_refused(self):
        assert rule_error(knocking_position(), Knock(1, "4D")) == "deadwood_over_limit"

    def test_a_lower_knock_limit_is_a_match_option(self):
        assert rule_error(knocking_position(knock_limit=2), Knock(1, "5S")) == "deadwood_over_limit"

    def test_submitted_melds_must_reach_the_minimum_deadwood(self):
        state = knocking_position()
        runs_only = (("9C", "TC", "JC", "QC", "KC"),)
        assert rule_error(state, Knock(1, "5S", runs_only)) == "melds_not_minimal"
        bogus = (("9C", "TC", "2H"),)
        assert rule_error(state, Knock(1, "5S", bogus)) == "invalid_melds"
        shown = (("4D", "4S", "4H"), ("9C", "TC", "JC", "QC", "KC"))
        _, events = act(state, Knock(1, "5S", shown))
        assert len(events[0].data["melds"]) == 2

    def test_a_knock_with_no_deadwood_is_gin(self):
        state = gin_match([LOOSE, "4D 4S 4H 9C TC JC QC KC 2H 3H"], upcard="AH", stock="5C")
        state, _ = act(state, Draw(1, "discard"))
        _, events = act(state, Knock(1, "KC"))
        assert events[0].data["kind"] == "gin" and events[0].data["deadwood"] == 0


class TestKnockPreview:
    """A knock's melds are picked among equal arrangements by what the defender could lay
    off (docs/rules.md 1.5), which reads the defender's hidden hand: a preview of the knock
    (``Variant.check``) picks from the knocker's own cards only.

    Seat 1 draws 8D and knocks with it: 3C 4C 5C 4D 4H leave 8 of deadwood whether the
    clubs run (4D 4H unmatched) or the set of fours (3C 5C unmatched) is shown. A 6C in
    the defender's hand lays off onto the run only."""

    KNOCKER = "3C 4C 5C 4D 4H 9S TS JS QS KS"
    DEFENDER = "2D 7D 9D JD 6H QH 2H 7H KH"

    def position(self, sixth: str, stock: str) -> GinState:
        state = gin_match([f"{self.DEFENDER} {sixth}", self.KNOCKER], upcard="AH",
                          stock=f"8D {stock} 5D 9H")
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        return state

    def melds(self, events) -> list[list[str]]:
        return sorted(sorted(meld["cards"]) for meld in events[0].data["melds"])

    def test_the_knock_itself_shows_the_melds_the_defender_can_lay_off_least_onto(self):
        holding_6c = self.position("6C", stock="3S")
        assert ["4C", "4D", "4H"] in self.melds(GIN.decide(holding_6c, Knock(1, "8D")))

    def test_its_preview_is_the_same_whatever_the_defender_holds(self):
        holding_6c = self.position("6C", stock="3S")
        not_holding = self.position("3S", stock="6C")
        assert GIN.decide(holding_6c, Knock(1, "8D")) != GIN.decide(not_holding, Knock(1, "8D"))
        previews = [GIN.check(state, Knock(1, "8D")) for state in (holding_6c, not_holding)]
        assert previews[0] == previews[1]
        assert previews[0][0].data["deadwood"] == 8

    def test_a_preview_refuses_what_the_knock_refuses(self):
        state = self.position("6C", stock="3S")
        with pytest.raises(RuleError) as caught:
            GIN.check(state, Knock(1, "4D"))
        assert caught.value.code == "deadwood_over_limit"


class TestBigGin:
    EXAMPLE_5 = "AC 2C 3C 4D 5D 6D 7D 8H 9H TH"

    def position(self, **options):
        defender = "5C 7C 9D JD 6H QH 8S KS 3S TS"
        state = gin_match([defender, self.EXAMPLE_5], upcard="JH", stock="2D", **options)
        state, _ = act(state, Draw(1, "discard"))
        return state

    def test_eleven_cards_that_all_meld_may_declare_big_gin(self):
        state = self.position()
        assert {"type": "big_gin"} in legal_actions(state, 1)
        state, events = act(state, DeclareBigGin(1))
        assert events[0].data["kind"] == "big_gin" and events[0].data["discard"] is None
        assert state.phase == SCORING

    def test_big_gin_needs_every_card_to_meld(self):
        assert rule_error(knocking_position(), DeclareBigGin(1)) == "not_big_gin"

    def test_when_disabled_the_player_discards_and_goes_gin(self):
        state = self.position(big_gin_bonus=None)
        assert {"type": "big_gin"} not in legal_actions(state, 1)
        assert rule_error(state, DeclareBigGin(1)) == "big_gin_disabled"
        _, events = act(state, Knock(1, "7D"))
        assert events[0].data["kind"] == "gin"


class TestDrawnHand:
    def test_a_discard_leaving_two_stock_cards_draws_the_hand(self):
        state = knocking_position()
        state = replace(state, stock=("6C", "8D"))
        state, events = act(state, Discard(1, "5S"))
        assert [e.type for e in events] == ["CardDiscarded", "HandEnded"]
        assert events[1].data == {"result": "draw", "reason": "stock_exhausted"}
        assert state.phase == SCORING

    def test_the_turn_cap_draws_the_hand(self):
        state, _ = act(dealt(max_turns=2), PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        state, events = act(state, Discard(1, "5S"))
        assert [e.type for e in events] == ["CardDiscarded"]
        state, _ = act(state, Draw(0, "stock"))
        state, events = act(state, Discard(0, "KS"))
        assert events[-1].data == {"result": "draw", "reason": "turn_cap"}


class TestJobs:
    def test_scoring_then_dealing_then_playing_on(self):
        state, _ = act(knocking_position(), Knock(1, "5S"))
        state, events = act(state, ScoreHand())
        assert events[0].data["points"] == [0, 67] and state.phase == DEALING
        deck = tuple(sorted(state.stock + state.discard_pile + sum(state.hands, ())))
        state, events = act(state, DealHand(Deal(deck, b"hand 2")))
        assert state.hand_number == 2 and state.dealer == 1 and state.phase == UPCARD
        assert state.turn == 0

    def test_score_and_deal_refuse_when_nothing_is_due(self):
        assert rule_error(dealt(), ScoreHand()) == "nothing_to_score"
        assert rule_error(dealt(), DealHand(Deal((), b""))) == "nothing_to_deal"
        assert rule_error(dealt(), CompleteMatch()) == "match_not_finished"

    def test_reaching_the_target_waits_for_the_bonuses(self):
        state, _ = act(knocking_position(target=50), Knock(1, "5S"))
        state, _ = act(state, ScoreHand())
        assert state.phase == COMPLETING
        state, events = act(state, CompleteMatch())
        assert events[0].data["winner"] == 1
        assert events[0].data["final_scores"] == [0, 67 + 200 + 25]  # shutout + one line


class TestOklahoma:
    @pytest.mark.parametrize("upcard, limit", [("7D", 7), ("KD", 10), ("AD", 0)])
    def test_the_upcard_sets_the_knock_limit(self, upcard, limit):
        state = gin_match([LOOSE, EXAMPLE_1], upcard=upcard, oklahoma=True)
        assert state.knock_limit == limit

    def test_an_ace_upcard_may_allow_a_knock_of_one(self):
        state = gin_match([LOOSE, EXAMPLE_1], upcard="AD", oklahoma=True, oklahoma_ace="one")
        assert state.knock_limit == 1

    def test_a_spade_upcard_doubles_the_hand_when_chosen(self):
        state = gin_match([LOOSE, EXAMPLE_1], upcard="9S", oklahoma=True,
                          oklahoma_spades_double=True)
        assert (state.knock_limit, state.multiplier) == (9, 2)


class TestThreePlayers:
    def test_seven_cards_and_the_offer_goes_to_the_next_player_then_the_dealer(self):
        state = gin_match(["2C 3C 4C 9D 9H KS QD", "5H 6H 7H 8C 8D JS TD", "AS 2S 3S 4S 5D 6D 7C"],
                          upcard="KH", dealer=1)
        assert [len(hand) for hand in state.hands] == [7, 7, 7]
        assert state.upcard_offer == (2, 1) and state.turn == 2
        state, _ = act(state, PassUpcard(2))
        state, _ = act(state, Draw(1, "discard"))
        state, _ = act(state, Discard(1, "JS"))
        assert state.turn == 2  # clockwise from the taker


class TestPreparedDecks:
    @pytest.mark.parametrize("deck", [
        tuple(match_deck(GinOptions())[:-1]) + ("AC",),  # a card twice, one missing
        tuple(match_deck(GinOptions())[:-1]),  # one card short
        tuple(match_deck(GinOptions())[:-1]) + (7,),  # not a card code
    ])
    def test_a_deck_that_is_not_the_match_s_cards_is_refused(self, deck):
        with pytest.raises(RuleError) as caught:
            check_deck(GinOptions(), deck)
        assert caught.value.code == "invalid_deck"

    def test_the_match_s_cards_in_any_order_are_accepted(self):
        options = GinOptions(jokers=2, decks=2)
        check_deck(options, tuple(reversed(match_deck(options))))
