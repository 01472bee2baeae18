"""Rummy and Rami turns, openings, jokers and round ends (docs/rules.md 3.1-3.6), given/when/then.

Two players with seat 0 dealing, so seat 1 plays first, unless a test says otherwise.
"""

from __future__ import annotations

from domain.cards import build_deck
from domain.evolving import replace
from domain.fairness import rebuilt_stock
from domain.rummy import RAMI, RUMMY
from domain.rummy.scoring import final_result, score_round
from domain.rummy.state import COMPLETE, COMPLETING, DRAW, PLAY, TableMeld
from domain.rummy.views import redact_event
from domain.steps import awaiting_step
from domain.table_melds import declared
from domain.viewer import Viewer
from tests.domain.rummy.support import SEED, given, job, play, refused, send

DRAW_STOCK = {"type": "draw", "source": "stock"}
DRAW_DISCARD = {"type": "draw", "source": "discard"}
EXAMPLE_13 = [{"cards": ["QH", "KH", "AH"]}, {"cards": ["7C", "7D", "7S"]}]
EXAMPLE_14 = [{"cards": ["AS", "2S", "3S"]}, {"cards": ["TD", "JD", "QD"]}]
JOKER_AS_KD = {"cards": ["TD", "JD", "QD", "JK"], "represents": ["TD", "JD", "QD", "KD"]}


def lay_down(*melds):
    return {"type": "lay_down", "melds": list(melds)}


def discard(card):
    return {"type": "discard", "card": card}


def same_melds(action, expected):
    """The same lay_down, whatever the order of its melds."""
    return (action["type"] == expected["type"]
            and sorted(map(str, action["melds"])) == sorted(map(str, expected["melds"])))


def turn(state, seat, card, source=DRAW_STOCK):
    """A plain turn: draw, then discard ``card``."""
    state, _ = send(state, seat, source)
    state, _ = send(state, seat, discard(card))
    return state


def position(state, seat, hand, melds=(), opened=True, phase=PLAY, **changes):
    """Given ``seat`` on turn with ``hand`` and these table melds (as (cards, represents))."""
    table = tuple(TableMeld(i, declared(c.split(), r.split() if r else None), seat)
                  for i, (c, r) in enumerate(melds, start=1))
    hands = tuple(tuple(hand.split()) if s == seat else h for s, h in enumerate(state.hands))
    flags = tuple(opened if s == seat else f for s, f in enumerate(state.opened))
    started = tuple(t + 1 for t in state.turns_started)
    return replace(state, hands=hands, table=table, next_meld_id=len(table) + 1, opened=flags,
                   phase=phase, turn=seat, turns_started=started, **changes)


class TestDeal:
    def test_every_player_gets_13_from_the_110_card_shoe_and_the_next_seat_starts(self):
        state = given(["", "", "", ""], upcard="9D", dealer=2)
        assert len(RUMMY.deck(state.options)) == 110
        assert sorted(RUMMY.deck(state.options)) == sorted(build_deck(2, 6))
        assert [len(hand) for hand in state.hands] == [13] * 4
        assert len(state.stock) == 110 - 4 * 13 - 1 and state.discard_pile == ("9D",)
        assert (state.phase, state.turn) == (DRAW, 3)

    def test_there_is_no_upcard_offer_the_first_player_may_draw_either(self):
        state = given(["", ""], upcard="9D")
        assert RUMMY.legal_actions(state, 1) == [DRAW_STOCK, DRAW_DISCARD]
        assert RUMMY.legal_actions(state, 0) == []
        assert refused(state, 0, DRAW_STOCK) == "not_your_turn"

    def test_taking_the_top_discard_and_putting_it_straight_back_ends_the_turn(self):
        state = turn(given(["", ""], upcard="9D"), 1, "9D", source=DRAW_DISCARD)
        assert (state.phase, state.turn, state.discard_pile) == (DRAW, 0, ("9D",))


class TestOpening:
    def test_example_13_opens_in_rummy_on_the_first_turn(self):
        state, _ = send(given(["", "QH KH AH 7C 7D 7S"], upcard="9D"), 1, DRAW_STOCK)
        state, events = send(state, 1, lay_down(*EXAMPLE_13))
        assert events[0].data["opening"] and events[0].data["value"] == 52
        assert state.opened == (False, True)
        assert [m.meld.cards for m in state.table] == [("QH", "KH", "AH"), ("7C", "7D", "7S")]
        assert [m.id for m in state.table] == [1, 2]

    def test_example_13_opens_in_rami_only_from_the_second_turn(self):
        state = given(["", "QH KH AH 7C 7D 7S"], upcard="9D", variant=RAMI)
        state, _ = send(state, 1, DRAW_STOCK, RAMI)
        assert refused(state, 1, lay_down(*EXAMPLE_13), RAMI) == "too_early_to_open"
        assert all(a["type"] == "discard" for a in RAMI.legal_actions(state, 1))
        state, _ = send(state, 1, discard("2C"), RAMI)
        state, _ = send(state, 0, DRAW_STOCK, RAMI)
        state, _ = send(state, 0, discard("2C"), RAMI)
        state, _ = send(state, 1, DRAW_STOCK, RAMI)
        assert same_melds(RAMI.legal_actions(state, 1)[0], lay_down(*EXAMPLE_13))
        state, events = send(state, 1, lay_down(*EXAMPLE_13), RAMI)
        assert events[0].data["value"] == 52 and state.opened[1]

    def test_example_14_36_points_cannot_open_and_the_placement_is_refused_whole(self):
        state, _ = send(given(["", "AS 2S 3S TD JD QD JK"], upcard="9D"), 1, DRAW_STOCK)
        assert refused(state, 1, lay_down(*EXAMPLE_14)) == "opening_too_low"
        assert refused(state, 1, lay_down(EXAMPLE_14[0])) == "opening_too_low"
        assert not state.table and len(state.hands[1]) == 14

    def test_example_14_with_a_joker_as_king_makes_40_enough_for_rummy_not_rami(self):
        """The joker run alone is worth 40; with A-2-3 beside it, 46: still short of 51."""
        state, _ = send(given(["", "AS 2S 3S TD JD QD JK"], upcard="9D"), 1, DRAW_STOCK)
        _, events = send(state, 1, lay_down(JOKER_AS_KD))
        assert events[0].data["value"] == 40
        rami = given(["", "AS 2S 3S TD JD QD JK"], upcard="9D", variant=RAMI)
        rami = turn(turn(rami, 1, "2C"), 0, "2C")
        rami, _ = send(rami, 1, DRAW_STOCK, RAMI)
        assert refused(rami, 1, lay_down(JOKER_AS_KD), RAMI) == "opening_too_low"
        assert refused(rami, 1, lay_down(EXAMPLE_14[0], JOKER_AS_KD), RAMI) == "opening_too_low"

    def test_the_seat_view_offers_the_best_opening_and_the_candidate_melds(self):
        state, _ = send(given(["", "QH KH AH 7C 7D 7S"], upcard="9D"), 1, DRAW_STOCK)
        seat = RUMMY.view(state, Viewer.for_seat(1))
        assert seat["opening"]["best_value"] == 52 and seat["opening"]["can_open_now"]
        assert {"cards": ["QH", "KH", "AH"], "kind": "run", "represents": ["QH", "KH", "AH"],
                "value": 31} in seat["meld_candidates"]
        assert same_melds(seat["legal_actions"][0], lay_down(*EXAMPLE_13))

    def test_the_seat_view_names_the_kinds_of_move_without_every_combination(self):
        state = given(["", "QH KH AH 7C 7D 7S"], upcard="9D")
        assert RUMMY.view(state, Viewer.for_seat(1))["moves"] == ["draw"]
        assert RUMMY.view(state, Viewer.for_seat(0))["moves"] == []
        state, _ = send(state, 1, DRAW_STOCK)
        assert RUMMY.view(state, Viewer.for_seat(1))["moves"] == ["lay_down", "discard"]
        state, _ = send(state, 1, lay_down(*EXAMPLE_13))
        assert RUMMY.view(state, Viewer.for_seat(1))["moves"] == ["discard"]

    def test_before_opening_no_lay_offs_and_no_joker_exchanges(self):
        state, _ = send(given(["", "QH KH AH 7C 7D 7S"], upcard="9D"), 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down(*EXAMPLE_13))
        state, _ = send(state, 1, discard("2C"))
        state = replace(state, hands=(state.hands[0] + ("JH", "7H"),) + state.hands[1:])
        state, _ = send(state, 0, DRAW_STOCK)
        assert refused(state, 0, {"type": "lay_off", "meld": 1, "card": "JH"}) == "not_opened"
        assert refused(state, 0, {"type": "exchange_joker", "meld": 1, "card": "JH"}) == (
            "not_opened")
        assert {a["type"] for a in RUMMY.legal_actions(state, 0)} == {"discard"}

    def test_once_opened_a_seat_lays_off_in_the_same_turn(self):
        state, _ = send(given(["", "QH KH AH 7C 7D 7S JH"], upcard="9D"), 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down(*EXAMPLE_13))
        assert {"type": "lay_off", "meld": 1, "card": "JH"} in RUMMY.legal_actions(state, 1)
        state, events = send(state, 1, {"type": "lay_off", "meld": 1, "card": "JH"})
        assert state.meld(1).meld.cards == ("JH", "QH", "KH", "AH")
        assert events[0].data["result"]["cards"] == ["JH", "QH", "KH", "AH"]


class TestJokers:
    def test_an_exchanged_joker_must_be_placed_before_the_turn_ends(self):
        state, _ = send(given(["", "5H JK 7H KC KD KS 6H"], upcard="9D"), 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down(
            {"cards": ["5H", "JK", "7H"], "represents": ["5H", "6H", "7H"]},
            {"cards": ["KC", "KD", "KS"]}))
        exchange = {"type": "exchange_joker", "meld": 1, "card": "6H"}
        assert exchange in RUMMY.legal_actions(state, 1)
        state, _ = send(state, 1, exchange)
        assert state.meld(1).meld.cards == ("5H", "6H", "7H") and "JK" in state.hands[1]
        assert refused(state, 1, discard("2C")) == "joker_must_be_placed"
        assert not [a for a in RUMMY.legal_actions(state, 1) if a["type"] == "discard"]
        assert RUMMY.view(state, Viewer.for_seat(1))["jokers_to_place"] == 1
        assert "discard" not in RUMMY.view(state, Viewer.for_seat(1))["moves"]
        state, _ = send(state, 1, {"type": "lay_off", "meld": 2, "card": "JK",
                                   "represents": "KH"})
        state, _ = send(state, 1, discard("2C"))
        assert state.turn == 0

    def test_a_joker_leaves_a_set_only_when_the_set_has_four_cards(self):
        state = position(given(["", ""], upcard="9D"), 1, "9H 2C 3D",
                         [("9C 9D JK", "9C 9D 9H"), ("9C 9D JK 9S", "9C 9D 9H 9S"),
                          ("5S 6S 7S", None)])
        assert refused(state, 1, {"type": "exchange_joker", "meld": 1, "card": "9H"}) == (
            "invalid_exchange")
        exchanges = [a for a in RUMMY.legal_actions(state, 1) if a["type"] == "exchange_joker"]
        assert exchanges == [{"type": "exchange_joker", "meld": 2, "card": "9H"}]

    def test_an_exchange_is_refused_when_the_freed_joker_could_not_be_placed(self):
        state = position(given(["", ""], upcard="9D"), 1, "9H 2C",
                         [("9C 9D JK 9S", "9C 9D 9H 9S")])
        assert refused(state, 1, {"type": "exchange_joker", "meld": 1, "card": "9H"}) == (
            "joker_cannot_be_placed")

    def test_a_joker_is_discarded_only_as_the_last_card_or_from_a_hand_of_jokers(self):
        state = given(["", ""], upcard="9D")
        assert refused(position(state, 1, "JK 2C"), 1, discard("JK")) == "joker_discard"
        assert RUMMY.legal_actions(position(state, 1, "JK 2C"), 1) == [discard("2C")]
        assert RUMMY.legal_actions(position(state, 1, "JK JK"), 1) == [discard("JK")]
        _, events = send(position(state, 1, "JK"), 1, discard("JK"))
        assert events[-1].type == "HandEnded" and events[-1].data["winner"] == 1

    def test_joker_melds_keep_fewer_jokers_than_naturals(self):
        state = position(given(["", ""], upcard="9D"), 1, "5H JK JK 9H 2C 6H")
        assert refused(state, 1, lay_down({"cards": ["5H", "JK", "JK"],
                                           "represents": ["5H", "6H", "7H"]})) == (
            "too_many_jokers")
        assert refused(state, 1, lay_down({"cards": ["5H", "6H", "JK", "JK", "9H"],
                                           "represents": ["5H", "6H", "7H", "8H", "9H"]})) == (
            "adjacent_jokers")
        assert refused(state, 1, lay_down({"cards": ["5H", "JK", "6H"]})) == (
            "joker_not_declared")

    def test_a_placement_must_keep_a_card_for_the_discard(self):
        state = position(given(["", ""], upcard="9D"), 1, "5H 6H 7H")
        assert refused(state, 1, lay_down({"cards": ["5H", "6H", "7H"]})) == "must_keep_a_card"
        assert RUMMY.legal_actions(state, 1) == [discard(c) for c in ("5H", "6H", "7H")]


class TestLastCard:
    def given_one_card(self, card, top, melds):
        state = given(["", ""], upcard="9D")
        return position(state, 1, card, melds, phase=DRAW, discard_pile=("4C", top))

    def test_the_top_discard_is_refused_when_it_would_let_the_seat_go_out(self):
        state = self.given_one_card("6C", "QS", [("8S 9S TS JS", None)])
        assert refused(state, 1, DRAW_DISCARD) == "last_card_rule"
        assert RUMMY.legal_actions(state, 1) == [DRAW_STOCK]

    def test_going_out_through_a_joker_exchange_counts_too(self):
        state = self.given_one_card("6H", "2D", [("5H JK 7H", "5H 6H 7H")])
        assert refused(state, 1, DRAW_DISCARD) == "last_card_rule"

    def test_the_top_discard_may_be_taken_when_it_does_not_help_to_go_out(self):
        state = self.given_one_card("6C", "7D", [("8S 9S TS JS", None)])
        assert RUMMY.legal_actions(state, 1) == [DRAW_STOCK, DRAW_DISCARD]


GOES_RUMMY = "JH QH KH AH 5C 5D 5S 8S 9S TS 2D 3D TH"
LEFT = "JK AS KD 5C 2C 5D 8H JS 3H 6S 9C QD 4S"  # 103 minus points


class TestRoundEnd:
    def test_going_rummy_doubles_the_others_minus_points(self):
        state = given([LEFT, GOES_RUMMY], upcard="9D", stock="4D", rounds=2)
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down({"cards": ["JH", "QH", "KH", "AH"]},
                                           {"cards": ["5C", "5D", "5S"]},
                                           {"cards": ["8S", "9S", "TS"]},
                                           {"cards": ["2D", "3D", "4D"]}))
        state, events = send(state, 1, discard("TH"))
        assert events[-1].data == {"result": "out", "reason": "out", "winner": 1, "rummy": True}
        assert awaiting_step(state) == "scoring"
        events = job(state, "scoring")
        scored = events[0].data
        assert scored["points"] == [206, 0] and scored["seats"][0]["minus_points"] == 103
        state = play(state, events)
        assert state.scores == (206, 0) and state.hand_number == 2 and state.dealer == 1

    def test_a_winner_who_opened_earlier_does_not_go_rummy(self):
        hand = GOES_RUMMY.replace("TH", "7C")
        state = given([LEFT, hand], upcard="9D", stock="4D 2H TH")
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down({"cards": ["JH", "QH", "KH", "AH"]},
                                           {"cards": ["5C", "5D", "5S"]},
                                           {"cards": ["8S", "9S", "TS"]}))
        state, _ = send(state, 1, discard("7C"))
        state = turn(state, 0, "2C")
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down({"cards": ["2D", "3D", "4D"]}))
        state, events = send(state, 1, discard("TH"))
        assert events[-1].data["rummy"] is False
        assert job(state, "scoring")[0].data["points"] == [103, 0]

    def test_example_15_joker_ace_king_five_left_is_46_or_92_after_rummy(self):
        state = position(given(["", ""], upcard="9D"), 0, "JK AS KD 5C")
        for rummy, points in ((False, 46), (True, 92)):
            ending = {"result": "out", "reason": "out", "winner": 1, "rummy": rummy}
            ended = replace(state, hands=(state.hands[0], ()), ending=ending)
            assert score_round(ended)["points"] == [points, 0]

    def test_the_game_ends_after_its_rounds_and_the_lowest_total_wins(self):
        state = given([LEFT, GOES_RUMMY], upcard="9D", stock="4D", rounds=1)
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down({"cards": ["JH", "QH", "KH", "AH"]},
                                           {"cards": ["5C", "5D", "5S"]},
                                           {"cards": ["8S", "9S", "TS"]},
                                           {"cards": ["2D", "3D", "4D"]}))
        state, _ = send(state, 1, discard("TH"))
        state = play(state, job(state, "scoring"))
        assert state.phase == COMPLETING and awaiting_step(state) == "bonuses"
        state = play(state, job(state, "bonuses"))
        assert state.phase == COMPLETE
        assert state.completion == {"winner": 1, "winners": [1], "final_scores": [206, 0],
                                    "rounds_played": 1}

    def test_the_penalty_limit_ends_the_game_early(self):
        state = given([LEFT, GOES_RUMMY], upcard="9D", stock="4D", rounds=10, penalty_limit=200)
        state, _ = send(state, 1, DRAW_STOCK)
        state, _ = send(state, 1, lay_down({"cards": ["JH", "QH", "KH", "AH"]},
                                           {"cards": ["5C", "5D", "5S"]},
                                           {"cards": ["8S", "9S", "TS"]},
                                           {"cards": ["2D", "3D", "4D"]}))
        state, _ = send(state, 1, discard("TH"))
        assert play(state, job(state, "scoring")).phase == COMPLETING

    def test_equal_lowest_totals_share_the_win(self):
        state = replace(given(["", "", ""], upcard="9D"), scores=(30, 10, 10))
        assert final_result(state)["winners"] == [1, 2]
        assert final_result(state)["winner"] is None

    def test_default_rounds_are_one_per_player(self):
        assert RUMMY.parse_options({}, 5).rounds == 5
        assert RAMI.parse_options({}, 3).opening_minimum == 51


class TestStockAndTurnCap:
    def test_an_empty_stock_is_rebuilt_from_the_discards_under_the_top_card(self):
        state = replace(given(["", ""], upcard="9D"), stock=("4C",),
                        discard_pile=("2C", "3C", "9D"))
        state, _ = send(state, 1, DRAW_STOCK)
        state, events = send(state, 1, discard("4C"))
        rebuilt = events[-1]
        assert rebuilt.type == "StockRebuilt"
        assert rebuilt.data["stock"] == list(rebuilt_stock(("2C", "3C", "9D"), SEED, 1))
        assert state.stock == tuple(rebuilt.data["stock"]) and state.discard_pile == ("4C",)
        shown = redact_event(rebuilt, Viewer.for_seat(0))
        assert shown == {"rebuild": 1, "count": 3}
        assert "stock" in redact_event(rebuilt, Viewer.full())

    def test_a_stock_that_cannot_be_rebuilt_voids_the_round(self):
        state = replace(given(["", ""], upcard="9D"), stock=("4C",), discard_pile=())
        state, _ = send(state, 1, DRAW_STOCK)
        _, events = send(state, 1, discard("4C"))
        assert events[-1].data["result"] == "void"
        assert events[-1].data["reason"] == "stock_exhausted"

    def test_the_turn_cap_voids_the_round_and_the_same_dealer_deals_again(self):
        state = given(["", ""], upcard="9D", max_turns=2)
        state = turn(turn(state, 1, "2C"), 0, "2C")
        assert state.ending["reason"] == "turn_cap"
        state = play(state, job(state, "scoring"))
        scored = state.results[-1]
        assert (scored["result"], scored["points"], scored["next_dealer"]) == ("void", [0, 0], 0)
        assert (state.rounds_played, state.hand_number, state.dealer) == (0, 2, 0)
