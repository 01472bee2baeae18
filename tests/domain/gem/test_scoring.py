"""Gem Rummy showdowns and scores (docs/rules.md 2.5, 2.6), with example 12, given/when/then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.gem.options import GemOptions
from domain.gem.rules import Draw, Knock, PassUpcard
from domain.gem.scoring import settle
from domain.gem.state import COMPLETE, COMPLETING, DEALING, match_winner
from tests.domain.gem.builders import act, gem_match, job

DEFAULTS = GemOptions()


class TestSettle:
    def test_the_knocker_scores_the_difference(self):
        assert settle("knock", 3, 59, DEFAULTS) == ("knock", True, 56)

    def test_example_12_a_tie_is_no_undercut_and_the_knocker_gets_the_minimum_11(self):
        assert settle("knock", 6, 6, DEFAULTS) == ("knock", True, 11)

    def test_a_small_difference_is_raised_to_the_minimum(self):
        assert settle("knock", 5, 9, DEFAULTS) == ("knock", True, 11)
        assert settle("knock", 5, 9, GemOptions(min_knock_score=0)) == ("knock", True, 4)

    def test_an_undercut_is_a_flat_25(self):
        assert settle("knock", 8, 5, DEFAULTS) == ("undercut", False, 25)

    def test_an_undercut_may_add_the_difference(self):
        options = GemOptions(undercut_adds_difference=True)
        assert settle("knock", 8, 5, options) == ("undercut", False, 28)

    def test_gin_is_25_plus_the_others_deadwood(self):
        assert settle("gin", 0, 30, DEFAULTS) == ("gin", True, 55)

    def test_big_gin_is_35_plus_the_others_deadwood(self):
        assert settle("big_gin", 0, 30, DEFAULTS) == ("big_gin", True, 65)


# Two players, dealer 0, dice 3 + 4 (limit 7, designated diamond 7D). Seat 1 draws 9H and
# knocks with 2H AS (3): a run 5C-7C, a gold stash 4D 5H 8S JD and Queen's Diamonds QH 7D.
KNOCKER = "4D 5H 8S JD 5C 6C 7C QH 7D 2H AS"
LOOSE = "TC 8C 2D 9D 6H 3S 9S KH QC JS 4C"  # 81, no meld


def knocked(knocker: str = KNOCKER, other: str = LOOSE, upcard: str = "KD", **options):
    state = gem_match([other, knocker], upcard=upcard, stock="9H AH 3D", **options)
    state, _ = act(state, PassUpcard(1))
    state, _ = act(state, PassUpcard(0))
    state, _ = act(state, Draw(1, "stock"))
    state, _ = act(state, Knock(1, "9H"))
    return state


def scored(state):
    state, events = job(state, "scoring")
    return state, events[0].data


class TestTwoPlayerShowdown:
    def test_lay_offs_onto_a_stash_and_a_run_but_none_onto_queens_diamonds(self):
        _, result = scored(knocked())
        other = result["seats"][0]
        laid = {layoff["card"] for layoff in other["layoffs"]}
        assert laid == {"TC", "8C", "4C"}  # TC is gold; 8C and 4C extend 5C-7C
        assert "QC" in other["unmatched"]  # a queen, but Queen's Diamonds takes nothing
        assert other["deadwood"] == 81 - 10 - 8 - 4
        stash = next(m for m in result["table"] if m["kind"] == "stash")
        assert sorted(stash["cards"]) == sorted(["TC", "4D", "JD", "5H", "8S"])

    def test_the_knocker_scores_the_difference_and_deals_next(self):
        state, result = scored(knocked())
        assert result["pairings"] == [{"defender": 0, "result": "knock", "winner": 1,
                                       "points": 56, "knocker_deadwood": 3,
                                       "defender_deadwood": 59}]
        assert (result["points"], result["gem_parts"], result["winner"]) == ([0, 56], [0, 0], 1)
        assert (state.phase, state.scores, result["next_dealer"]) == (DEALING, (0, 56), 1)
        state, events = job(state, "deal")
        assert events[0].data["dealer"] == 1 and state.turn == 0

    def test_gem_parts_16_to_the_knocker_and_8_to_the_other(self):
        # The knocker's KC sits in the emerald stash yet gives ruby, and KD gives moonstone.
        # The other's 5S (emerald) is laid off onto that stash and still counts for it.
        knocker = "7C KC AD JH 4D 5D 6D JD QD KD 2H"  # deadwood 2
        other = "TC 8C 2D 5S 6H 3S 9S KH QC JS 4C"  # 77, all eight gems (KH as pearl)
        _, result = scored(knocked(knocker, other, upcard="TS"))
        assert [layoff["card"] for layoff in result["seats"][0]["layoffs"]] == ["5S"]
        assert result["pairings"][0]["points"] == 72 - 2
        assert result["gem_parts"] == [8, 16]
        assert result["points"] == [8, 70 + 16]
        assert result["winner"] == 1

    def test_gin_allows_no_lay_offs(self):
        state = gem_match([LOOSE, "AC 4D 5H 8S JD KS 5C 6C 7C QH 7D"], upcard="KD",
                          stock="9H AH 3D")
        state, _ = act(state, PassUpcard(1))
        state, _ = act(state, PassUpcard(0))
        state, _ = act(state, Draw(1, "stock"))
        state, _ = act(state, Knock(1, "9H"))
        _, result = scored(state)
        assert result["seats"][0]["layoffs"] == [] and result["seats"][0]["deadwood"] == 81
        assert result["pairings"][0]["points"] == 25 + 81 and result["result"] == "gin"

    def test_an_undercut_wins_the_hand_and_the_deal(self):
        # the other holds three melds and 2S: 2 < 3
        other = "TC TD TH TS JC JH JS 6D 6H 6S 2S"
        _, result = scored(knocked(other=other))
        assert result["pairings"][0]["result"] == "undercut"
        assert result["points"] == [25, 0] and result["next_dealer"] == 0


class TestMatchEnd:
    def test_the_first_to_110_wins(self):
        state = knocked()
        state = replace(state, scores=(50, 60))
        state, result = scored(state)
        assert state.scores == (50, 116) and state.phase == COMPLETING
        state, events = job(state, "bonuses")
        assert state.phase == COMPLETE
        assert events[0].data["winner"] == 1 and events[0].data["final_scores"] == [50, 116]

    def test_below_the_target_the_match_goes_on(self):
        state, _ = scored(replace(knocked(), scores=(50, 50)))
        assert state.phase == DEALING

    @pytest.mark.parametrize("scores, last, winner", [
        ((115, 120), (8, 48), 1),          # both past 110: the higher total
        ((120, 120), (8, 48), 1),          # equal totals: more in the final hand
        ((120, 120, 30), (25, 25, 0), None),  # still equal: another hand
        ((100, 109), (0, 40), None),       # nobody there yet
        ((130, 90, 125), (30, 0, 40), 0),  # one past the target is enough
    ])
    def test_who_wins_when_several_reach_the_target(self, scores, last, winner):
        assert match_winner(scores, last, 110) == winner


# Three players, dealer 0; seat 1 plays first, draws 9H and knocks with 2H (2).
# Table: emerald stash 7C KC AD JH, runs 4D-6D and JD-KD.
# Seat 2 (first to lay off) holds 3D and 4H; seat 0 holds 2D, which fits only after 3D,
# and 5S (emerald), and melds the rest: it undercuts.
GEM_KNOCKER = "7C KC AD JH 4D 5D 6D JD QD KD 2H"
SEAT_0 = "2D 5S 7S 8S 9S TC TH TS QC QH QS"
SEAT_2 = "3D 4H 6C 8C AS 3H 6S 8H JC JS KS"


def three_player_showdown(**options):
    state = gem_match([SEAT_0, GEM_KNOCKER, SEAT_2], upcard="9D", stock="9H AH", **options)
    state, _ = act(state, Draw(1, "stock"))
    state, _ = act(state, Knock(1, "9H"))
    return scored(state)


class TestThreePlayerShowdown:
    def test_lay_offs_go_round_one_card_at_a_time_clockwise_from_the_knocker(self):
        _, result = three_player_showdown()
        seat_0, seat_2 = result["seats"][0], result["seats"][2]
        assert sorted(layoff["card"] for layoff in seat_2["layoffs"]) == ["3D", "4H"]
        assert sorted(layoff["card"] for layoff in seat_0["layoffs"]) == ["2D", "5S"]
        run = next(m for m in result["table"] if m["cards"][0] == "2D")
        assert run["cards"] == ["2D", "3D", "4D", "5D", "6D"]  # 2D after seat 2's 3D

    def test_each_non_knocker_is_settled_separately(self):
        _, result = three_player_showdown()
        assert [(p["defender"], p["result"], p["winner"], p["points"])
                for p in result["pairings"]] == [(0, "undercut", 0, 25), (2, "knock", 1, 60)]

    def test_gem_parts_once_per_player_and_the_winner_without_them(self):
        _, result = three_player_showdown()
        assert result["gem_parts"] == [8, 16, 0]  # the knocker's 16 once, not per pairing
        assert result["points"] == [25 + 8, 60 + 16, 0]
        assert result["winner"] == 1 and result["next_dealer"] == 1
