"""Hand scores and match bonuses: docs/rules.md 1.6, 1.8, 1.10 and worked examples 6-9."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.gin.options import GinOptions
from domain.gin.rules import CompleteMatch, Draw, Knock, PassUpcard, ScoreHand, solver_for
from domain.gin.scoring import match_bonuses, settle
from domain.gin.state import GinState
from tests.builders import act, gin_match

DEFAULTS = GinOptions()


class TestSettle:
    def test_example_6_gin_against_30(self):
        assert settle("gin", 0, 30, DEFAULTS) == ("gin", True, 55)
        assert settle("gin", 0, 30, replace(DEFAULTS, gin_bonus=20)) == ("gin", True, 50)

    def test_example_7_knock_8_against_5_is_an_undercut(self):
        assert settle("knock", 8, 5, DEFAULTS) == ("undercut", False, 28)

    def test_example_8_a_tie_is_an_undercut_unless_the_option_says_otherwise(self):
        assert settle("knock", 7, 7, DEFAULTS) == ("undercut", False, 25)
        assert settle("knock", 7, 7, replace(DEFAULTS, undercut_on_tie=False)) == ("tie", None, 0)

    def test_a_lower_knock_scores_the_difference(self):
        assert settle("knock", 3, 70, DEFAULTS) == ("knock", True, 67)

    @pytest.mark.parametrize("bonus, points", [(31, 31 + 12), (50, 50 + 12)])
    def test_big_gin_scores_its_bonus_plus_the_defender_deadwood(self, bonus, points):
        options = replace(DEFAULTS, big_gin_bonus=bonus)
        assert settle("big_gin", 0, 12, options) == ("big_gin", True, points)

    @pytest.mark.parametrize("bonus", [10, 20, 25])
    def test_the_undercut_bonus_is_an_option(self, bonus):
        assert settle("knock", 9, 4, replace(DEFAULTS, undercut_bonus=bonus)) == (
            "undercut", False, 5 + bonus)


def finished(scores, hands_won, **options) -> GinState:
    state = GinState(options=GinOptions(**options), players=("A", "B"), rules_edition=2)
    return replace(state, scores=tuple(scores), hands_won=tuple(hands_won), phase="completing",
                   results=({"knocker": 0},))


class TestMatchBonuses:
    def test_example_9(self):
        result = match_bonuses(finished([105, 60], [4, 3]))
        assert result["final_scores"] == [305, 135] and result["winner"] == 0
        assert result["bonuses"][0]["game"] == 100 and result["bonuses"][1]["line"] == 75

    def test_example_9_shutout(self):
        result = match_bonuses(finished([105, 0], [4, 0]))
        assert result["final_scores"] == [105 + 200 + 100, 0]
        assert result["bonuses"][0]["shutout"] is True

    def test_line_bonus_is_an_option(self):
        result = match_bonuses(finished([105, 60], [4, 3], line_bonus=20, game_bonus=100))
        assert result["final_scores"] == [105 + 100 + 80, 60 + 60]

    def test_with_more_players_the_highest_total_after_bonuses_wins(self):
        state = replace(finished([100, 95, 0], [1, 5, 0]), players=("A", "B", "C"))
        result = match_bonuses(state)
        assert result["final_scores"] == [100 + 100 + 25, 95 + 125, 0]
        assert result["winner"] == 0


LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"


def knocked(knocker_hand: str, draw: str, discard: str, defender: str = LOOSE,
            upcard: str = "3C", **options):
    state = gin_match([defender, knocker_hand], upcard=upcard, stock=draw, **options)
    state, _ = act(state, PassUpcard(1))
    state, _ = act(state, PassUpcard(0))
    state, _ = act(state, Draw(1, "stock"))
    state, _ = act(state, Knock(1, discard))
    return state


class TestShowdown:
    def test_the_defender_lays_off_a_chain_onto_the_knockers_run(self):
        # knocker: 7H 8H 9H, 4s, 2-3-4-5C... defender holds 6H and 5H: both lay off (chained)
        state = knocked("7H 8H 9H 4D 4S 4H JC QC KC 2S", draw="AS", discard="2S",
                        defender="6H 5H TD TS 9C 8C 2D 3D 7S 6S")
        _, events = act(state, ScoreHand())
        data = events[0].data
        defender = data["seats"][0]
        assert [layoff["card"] for layoff in defender["layoffs"]] == ["6H", "5H"]
        # knocker AS = 1; defender keeps TD TS 9C 8C 2D 3D 7S 6S = 55
        assert data["points"] == [0, 54] and data["result"] == "knock"

    def test_no_lay_offs_against_gin(self):
        state = knocked("7H 8H 9H 4D 4S 4H JC QC KC 2S", draw="TH", discard="2S",
                        defender="6H 5H TD TS 9C 8C 2D 3D 7S 6S")
        _, events = act(state, ScoreHand())
        data = events[0].data
        assert data["result"] == "gin" and data["seats"][0]["layoffs"] == []
        assert data["points"] == [0, 25 + 66]

    def test_an_undercut_scores_for_the_defender(self):
        state = knocked("7H 8H 9H 4D 4S 4H JC QC KC 9S", draw="AS", discard="AS",
                        defender="2C 3C 4C 5D 6D 7D TS JS QS AD", upcard="5C")
        _, events = act(state, ScoreHand())
        assert events[0].data["result"] == "undercut"
        # 9 against 1: laying 4C off onto the 4s would break the defender's 2-3-4C run
        assert events[0].data["points"] == [8 + 25, 0]

    def test_a_spade_upcard_doubles_the_hand_in_oklahoma(self):
        state = gin_match([LOOSE, "4D 4S 4H 9C TC JC QC KC 2H 5S"], upcard="9S", stock="AH",
                          oklahoma=True, oklahoma_spades_double=True)
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        state, _ = act(state, Knock(1, "5S"))
        _, events = act(state, ScoreHand())
        assert events[0].data["points"] == [0, 2 * 67]


class TestNextDealer:
    @pytest.mark.parametrize("policy, dealer", [("alternate", 1), ("winner", 1), ("loser", 0)])
    def test_next_dealer_policies(self, policy, dealer):
        state = knocked("4D 4S 4H 9C TC JC QC KC 2H 5S", draw="AH", discard="5S",
                        next_dealer=policy)
        _, events = act(state, ScoreHand())
        assert events[0].data["next_dealer"] == dealer

    @pytest.mark.parametrize("policy", ["alternate", "winner", "loser"])
    def test_a_tied_hand_is_dealt_again_by_the_same_dealer(self, policy):
        # docs/rules.md 1.3: nobody won (5 against 5, no undercut on a tie), so dealer 0 deals again
        state = knocked("7H 8H 9H 4D 4S 4H JC QC KC 5S", draw="AS", discard="AS",
                        defender="2C 3C 4C 9S 9D 9C 6D 7D 8D 5H", upcard="KD",
                        undercut_on_tie=False, next_dealer=policy)
        _, events = act(state, ScoreHand())
        assert events[0].data["result"] == "tie"
        assert events[0].data["next_dealer"] == 0


class TestThreePlayers:
    def test_each_defender_is_settled_separately_after_lay_offs_in_turn(self):
        hands = ["2C 3C 4C 8D 8H KS 4S", "5H 6H 7H 8C 3D JS TD", "AS 2S 3S 9D 9H 9C 4D"]
        state = gin_match(hands, upcard="KH", stock="2H", dealer=1)
        state, _ = act(state, PassUpcard(2))
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, Draw(2, "stock"))
        state, _ = act(state, Knock(2, "4D"))  # AS-3S, 9s; deadwood 2H = 2
        _, events = act(state, ScoreHand())
        data = events[0].data
        assert [layoff["card"] for layoff in data["seats"][0]["layoffs"]] == ["4S"]
        assert [(p["defender"], p["points"]) for p in data["pairings"]] == [(0, 24), (1, 29)]
        assert data["points"] == [0, 0, 53] and data["hand_winners"] == [2, 2]


class TestKnockersArrangement:
    """docs/rules.md 1.5 (ours): among equal arrangements, the one best for the knocker."""

    KNOCKER = "7C 7D 7S 7H 8H 9H TH AC 2C 3D"  # 7s + 7H-TH, or all four 7s + 8H-TH
    DEFENDER = "6H QS KS JD 9D QD KC 5C 4S 2S"  # 6H fits only the run 7H-TH

    def knocked(self, melds=None):
        state = gin_match([self.DEFENDER, self.KNOCKER], upcard="3H", stock="KH")
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        return act(state, Knock(1, "KH", melds))

    def test_the_engine_shows_the_four_sevens_so_6h_cannot_be_laid_off(self):
        state, events = self.knocked()
        shown = sorted(tuple(m["cards"]) for m in events[0].data["melds"])
        assert ("7C", "7D", "7H", "7S") in [tuple(sorted(cards)) for cards in shown]
        _, scored = act(state, ScoreHand())
        assert scored[0].data["seats"][0]["layoffs"] == []

    def test_a_submitted_equal_arrangement_is_shown_as_given(self):
        melds = (("7C", "7D", "7S"), ("7H", "8H", "9H", "TH"))
        state, events = self.knocked(melds)
        _, scored = act(state, ScoreHand())
        assert [lay["card"] for lay in scored[0].data["seats"][0]["layoffs"]] == ["6H"]


class TestJokers:
    DEFENDER = "JK 8C 2D 7D QD 5H 9H KS 3S 6S"  # no meld, not even with the joker

    def test_an_unmelded_joker_counts_its_option_value(self):
        state = gin_match([self.DEFENDER, "4D 4S 4H 9C TC JC QC KC 2H 5S"], upcard="3C",
                          jokers=1)
        assert solver_for(state.options).deadwood(state.hands[0]) == 15 + 60
        cheap = replace(state.options, joker_deadwood=5)
        assert solver_for(cheap).deadwood(state.hands[0]) == 5 + 60

    def test_a_joker_completes_a_meld_and_can_be_laid_off(self):
        # knocker: 4s, 9C-KC run, 2H AH; the defender lays off 8C and the joker
        state = gin_match([self.DEFENDER, "4D 4S 4H 9C TC JC QC KC 2H 5S"],
                          upcard="3C", stock="AH", jokers=1)
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        state, _ = act(state, Knock(1, "5S"))
        _, events = act(state, ScoreHand())
        defender = events[0].data["seats"][0]
        assert sorted(lay["card"] for lay in defender["layoffs"]) == ["8C", "JK"]
        assert defender["deadwood"] == 60 - 8
        assert events[0].data["points"] == [0, 52 - 3]


# --- a shared top score (docs/rules.md 1.8, 1.10; docs/rule-choices.md) ------------

KNOCKER = "4D 4S 4H 9C TC JC 5S"  # seat 1 draws KD and knocks it: 4s, 9C-JC, deadwood 5S
TIES_AT_5 = ["6S 7S 8S 9S TS 2D 3H", KNOCKER, "6H 7H 8H QS QH QD 5D"]
"""Three seats, dealer 0: both defenders hold exactly the knocker's 5 and undercut."""
PAYS_AND_TIES = ["6S 7S 8S 9S TS 5H TD", KNOCKER, "6H 7H 8H QS QH QD 5D",
                 "9H TH JH AS 3C 6D KS"]
"""Four seats, dealer 0: seat 0 pays the knocker 10 (15 deadwood), seat 2 undercuts with
5 (25), seat 3 pays 15 (20 deadwood): the knocker and seat 2 share the top, 25 each."""


def shared_top(hands, **options):
    state = gin_match(hands, upcard="2C", stock="KD", **options)
    state, _ = act(state, PassUpcard(1))
    state, _ = act(state, PassUpcard(0))
    state, _ = act(state, Draw(1, "stock"))
    state, _ = act(state, Knock(1, "KD"))
    return act(state, ScoreHand())


class TestASharedTopIsAWonHand:
    """docs/rules.md 1.8: every pairing a player wins is a won hand, so a hand whose top score
    is shared is not a drawn one (1.3 keeps the dealer only after a drawn hand)."""

    @pytest.mark.parametrize("policy, dealer", [("alternate", 1), ("winner", 2), ("loser", 1)])
    def test_three_players_both_defenders_undercut_by_tying(self, policy, dealer):
        _, events = shared_top(TIES_AT_5, next_dealer=policy)
        data = events[0].data
        assert [p["result"] for p in data["pairings"]] == ["undercut", "undercut"]
        assert data["points"] == [25, 0, 25] and data["hand_winners"] == [0, 2]
        # the winner is the first leader clockwise from the knocker (seat 1): seat 2
        assert data["winner"] == 2
        # loser: the knocker scored nothing
        assert data["next_dealer"] == dealer

    @pytest.mark.parametrize("policy, dealer", [("alternate", 1), ("winner", 1), ("loser", 3)])
    def test_four_players_one_defender_ties_another_pays(self, policy, dealer):
        _, events = shared_top(PAYS_AND_TIES, next_dealer=policy)
        data = events[0].data
        assert [(p["defender"], p["winner"], p["points"]) for p in data["pairings"]] == [
            (0, 1, 10), (2, 2, 25), (3, 1, 15)]
        assert data["points"] == [0, 25, 25, 0] and sorted(data["hand_winners"]) == [1, 1, 2]
        # the knocker comes first among the leaders
        assert data["winner"] == 1
        # loser: seats 0 and 3 scored nothing; seat 3 holds more deadwood (20 against 15)
        assert data["next_dealer"] == dealer

    def test_the_hands_won_count_every_pairing(self):
        state, _ = shared_top(PAYS_AND_TIES)
        assert state.hands_won == (0, 2, 1, 0) and state.phase == "dealing"

    @pytest.mark.parametrize("policy", ["alternate", "winner", "loser"])
    def test_edition_1_matches_keep_the_dealer_after_a_shared_top(self, policy):
        state = gin_match(TIES_AT_5, upcard="2C", stock="KD", next_dealer=policy)
        state = replace(state, rules_edition=1)
        for command in (PassUpcard(1), PassUpcard(0), Draw(1, "stock"), Knock(1, "KD")):
            state, _ = act(state, command)
        _, events = act(state, ScoreHand())
        assert events[0].data["winner"] is None and events[0].data["next_dealer"] == 0


class TestSeveralPlayersPassTheTargetInOneHand:
    """docs/rules.md 1.10 *(ours)*: one winner takes the game bonus: the most hand points, then
    the first clockwise from the final hand's knocker; the shutout looks at every other
    seat."""

    def test_tied_at_the_target_the_first_clockwise_from_the_knocker_wins(self):
        state, _ = shared_top(TIES_AT_5, target=25)
        assert state.phase == "completing"
        _, events = act(state, CompleteMatch())
        result = events[0].data
        assert [(b["game"], b["shutout"], b["line"]) for b in result["bonuses"]] == [
            (0, False, 25), (0, False, 0), (100, False, 25)]
        assert result["final_scores"] == [50, 0, 150]
        assert result["winner"] == 2 and result["winners"] == [2]

    def test_the_most_hand_points_wins_before_the_knockers_order(self):
        state = replace(finished([130, 0, 120], [2, 0, 1]), players=("A", "B", "C"),
                        results=({"knocker": 1},))
        result = match_bonuses(state)
        assert [b["game"] for b in result["bonuses"]] == [100, 0, 0]

    def test_a_shutout_needs_every_other_seat_at_zero(self):
        state = replace(finished([130, 0, 0], [2, 0, 0]), players=("A", "B", "C"),
                        results=({"knocker": 0},))
        assert match_bonuses(state)["bonuses"][0]["shutout"] is True

    def test_with_two_players_the_one_who_reached_the_target_wins(self):
        # docs/rules.md 1.10: seat 1 won seven small hands, seat 0 reached 100 with one big gin
        state = replace(finished([100, 95], [1, 7]), results=({"knocker": 0},))
        result = match_bonuses(state)
        assert result["final_scores"] == [100 + 100 + 25, 95 + 175]
        assert result["winner"] == 0 and result["winners"] == [0]

    def test_edition_1_matches_paid_every_seat_level_at_the_top(self):
        state, _ = shared_top(TIES_AT_5, target=25)
        _, events = act(replace(state, rules_edition=1), CompleteMatch())
        result = events[0].data
        assert [b["shutout"] for b in result["bonuses"]] == [True, False, True]
        assert result["final_scores"] == [250, 0, 250] and result["winner"] is None
