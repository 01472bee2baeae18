"""Elimination brackets (domain.tournaments.elimination), played out as examples of the rules.

Entrants are numbered by seed from 0; a bracket is played round by round the way a
tournament would: pair, record each table's result and each bye, pair again.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournaments.elimination import (
    BYE,
    FINAL,
    LOSERS,
    PLAYED,
    READY,
    VOID,
    WAITING,
    WINNERS,
    bracket,
    champion,
    drop_order,
    match_winner,
    pair,
    placings,
    seed_order,
)
from domain.tournaments.model import Bye, Pairing, Result, Table

Winner = Callable[[int, Table], int]


def better_seed(round_: int, table: Table) -> int:
    return min(table.seats)


def won_by(winner: int, table: Table, round_: int) -> Result:
    """The table's result with ``winner`` taking the match, in seat order."""
    points = tuple(1.0 if seat == winner else 0.0 for seat in table.seats)
    return Result(round_, table.seats, points, points)


class Event:
    """A bracket being played: its results and byes so far."""

    def __init__(self, entrants: int, *, double: bool = False,
                 withdrawn: frozenset[int] = frozenset()) -> None:
        self.entrants, self.double, self.withdrawn = entrants, double, withdrawn
        self.results: list[Result] = []
        self.byes: list[Bye] = []
        self.rounds: list[Pairing] = []

    def next(self) -> Pairing | None:
        return pair(self.entrants, self.results, self.byes, double=self.double,
                    withdrawn=self.withdrawn)

    def play(self, winner: Winner = better_seed) -> Pairing:
        """Pairs the next round and plays it: each table to ``winner``, each bye recorded."""
        pairing = self.next()
        assert pairing is not None
        round_ = len(self.rounds) + 1
        self.rounds.append(pairing)
        self.results += [won_by(winner(round_, table), table, round_) for table in pairing.tables]
        self.byes += [Bye(round_, entrant) for entrant in pairing.byes]
        return pairing

    def play_out(self, winner: Winner = better_seed) -> list[tuple[tuple[int, ...], ...]]:
        """Plays to the end; every round's tables, as seat tuples."""
        while self.next() is not None:
            self.play(winner)
        return [tuple(table.seats for table in pairing.tables) for pairing in self.rounds]

    def placings(self) -> tuple[tuple[int, ...], ...]:
        return placings(self.entrants, self.results, self.byes, double=self.double,
                        withdrawn=self.withdrawn)


def upsets(*wins: tuple[int, int]) -> Winner:
    """The better seed wins, except each (round, entrant) listed wins its table."""
    def winner(round_: int, table: Table) -> int:
        for upset_round, entrant in wins:
            if upset_round == round_ and entrant in table.seats:
                return entrant
        return min(table.seats)
    return winner


def at_random(rng: random.Random) -> Winner:
    def winner(round_: int, table: Table) -> int:
        return rng.choice(table.seats)
    return winner


def seats(pairing: Pairing | None) -> tuple[tuple[int, ...], ...]:
    assert pairing is not None
    return tuple(table.seats for table in pairing.tables)


# -- seeding ------------------------------------------------------------------------------


def test_sixteen_entrants_open_in_the_standard_bracket_order() -> None:
    assert [seed + 1 for seed in seed_order(16)] == [
        1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert seats(pair(16, [], [])) == (
        (0, 15), (7, 8), (3, 12), (4, 11), (1, 14), (6, 9), (2, 13), (5, 10))


def test_eight_entrants_keep_the_top_two_seeds_apart_until_the_final() -> None:
    event = Event(8)
    assert event.play_out() == [((0, 7), (3, 4), (1, 6), (2, 5)), ((0, 3), (1, 2)), ((0, 1),)]


@pytest.mark.parametrize(("entrants", "tables", "byes"), [
    (5, ((3, 4),), (0, 1, 2)),
    (6, ((3, 4), (2, 5)), (0, 1)),
    (7, ((3, 4), (1, 6), (2, 5)), (0,)),
])
def test_short_fields_give_the_first_round_byes_to_the_top_seeds(
        entrants: int, tables: tuple[tuple[int, int], ...], byes: tuple[int, ...]) -> None:
    first = pair(entrants, [], [])
    assert first is not None
    assert seats(first) == tables
    assert first.byes == byes


def test_a_bye_sits_out_round_one_and_meets_a_winner_in_round_two() -> None:
    event = Event(5)
    assert event.play_out(upsets((1, 4))) == [((3, 4),), ((0, 4), (1, 2)), ((0, 1),)]
    assert event.byes == [Bye(1, 0), Bye(1, 1), Bye(1, 2)]


def test_one_entrant_is_champion_without_a_match_and_none_pairs_nothing() -> None:
    assert pair(1, [], []) is None
    assert placings(1, [], []) == ((0,),)
    assert pair(0, [], []) is None
    assert placings(0, [], []) == ()


# -- draws --------------------------------------------------------------------------------


def test_a_drawn_match_sends_on_the_entrant_with_more_game_points() -> None:
    drawn = Result(1, (3, 4), (0.5, 0.5), (80.0, 95.0))
    assert match_winner(drawn) == 4
    assert seats(pair(5, [drawn], [Bye(1, 0), Bye(1, 1), Bye(1, 2)])) == ((0, 4), (1, 2))


def test_a_draw_level_on_game_points_sends_on_the_better_seed() -> None:
    assert match_winner(Result(1, (4, 3), (0.5, 0.5), (90.0, 90.0))) == 3


def test_a_drawn_forfeit_ignores_its_game_points() -> None:
    assert match_winner(Result(1, (3, 4), (0.5, 0.5), (0.0, 50.0), forfeit=True)) == 3


# -- withdrawals --------------------------------------------------------------------------


def test_the_opponent_of_a_withdrawn_entrant_gets_a_bye_and_goes_on() -> None:
    event = Event(8)
    event.play(upsets((1, 4)))
    event.withdrawn = frozenset({4})
    second = event.play()
    assert seats(second) == ((1, 2),)
    assert second.byes == (0,)
    assert event.play_out() == [
        ((0, 7), (3, 4), (1, 6), (2, 5)), ((1, 2),), ((0, 1),)]
    assert event.placings() == ((0,), (1,), (2, 4), (3, 5, 6, 7))


def test_a_forfeit_recorded_instead_of_the_bye_decides_the_match_alike() -> None:
    first = [won_by(w, Table(0, s), 1) for w, s in
             ((0, (0, 7)), (4, (3, 4)), (1, (1, 6)), (2, (2, 5)))]
    forfeit = Result(2, (0, 4), (1.0, 0.0), (0.0, 0.0), forfeit=True)
    assert seats(pair(8, [*first, forfeit], [], withdrawn=frozenset({4}))) == ((1, 2),)


def test_a_withdrawn_entrant_is_never_seated_and_loses_again_in_the_losers_bracket() -> None:
    event = Event(8, double=True)
    event.play(upsets((1, 4)))
    event.withdrawn = frozenset({4})
    event.play_out()
    seated_after = {seat for pairing in event.rounds[1:] for table in pairing.tables
                    for seat in table.seats}
    assert 4 not in seated_after
    assert [pairing.byes for pairing in event.rounds] == [(), (0,), (5,), (), (), ()]
    assert event.placings()[0] == (0,)


def test_two_withdrawn_entrants_send_on_the_better_seed_without_a_table() -> None:
    withdrawn = frozenset({1, 2})
    assert seats(pair(4, [], [], withdrawn=withdrawn)) == ((0, 3),)
    second = pair(4, [won_by(0, Table(0, (0, 3)), 1)], [], withdrawn=withdrawn)
    assert second == Pairing((), (0,))
    assert pair(2, [], [], withdrawn=frozenset({0, 1})) is None


# -- double elimination -------------------------------------------------------------------


def test_double_elimination_of_four_won_by_the_winners_bracket_in_the_grand_final() -> None:
    event = Event(4, double=True)
    assert event.play_out(upsets((2, 2))) == [
        ((0, 3), (1, 2)),
        ((0, 1), (3, 2)),
        ((2, 1),),
        ((0, 1),),
    ]
    assert len(event.results) == 2 * 4 - 2
    assert event.placings() == ((0,), (1,), (2,), (3,))


def test_double_elimination_of_four_reset_when_the_losers_bracket_wins_the_final() -> None:
    event = Event(4, double=True)
    assert event.play_out(upsets((4, 1), (5, 1))) == [
        ((0, 3), (1, 2)),
        ((0, 1), (3, 2)),
        ((2, 1),),
        ((0, 1),),
        ((0, 1),),
    ]
    assert len(event.results) == 2 * 4 - 1
    assert event.placings() == ((1,), (0,), (2,), (3,))


def test_a_reset_won_by_the_winners_bracket_winner_makes_them_champion() -> None:
    event = Event(4, double=True)
    event.play_out(upsets((4, 1)))
    assert champion(4, event.results, event.byes, double=True) == 0
    assert event.placings() == ((0,), (1,), (2,), (3,))


def test_double_elimination_of_eight_played_out() -> None:
    event = Event(8, double=True)
    assert event.play_out() == [
        ((0, 7), (3, 4), (1, 6), (2, 5)),
        ((0, 3), (1, 2), (7, 4), (6, 5)),
        ((0, 1), (4, 2), (5, 3)),
        ((2, 3),),
        ((2, 1),),
        ((0, 1),),
    ]
    assert len(event.results) == 14
    assert event.placings() == ((0,), (1,), (2,), (3,), (4, 5), (6, 7))


def test_double_elimination_of_eight_with_the_reset() -> None:
    event = Event(8, double=True)
    rounds = event.play_out(upsets((6, 1), (7, 1)))
    assert rounds[5:] == [((0, 1),), ((0, 1),)]
    assert len(event.results) == 15
    assert event.placings() == ((1,), (0,), (2,), (3,), (4, 5), (6, 7))


def test_losers_of_the_winners_semi_finals_drop_in_crossed() -> None:
    """Round 3's losers' matches: the survivor of the top half's first-round losers meets
    the loser of the bottom semi-final, and the other way round."""
    event = Event(8, double=True)
    event.play_out()
    assert event.rounds[2].tables[1:] == (Table(1, (4, 2)), Table(2, (5, 3)))


def test_drop_order_reverses_then_swaps_halves_then_neighbours() -> None:
    losers = ("a", "b", "c", "d", "e", "f", "g", "h")
    assert drop_order(losers, 1) == losers
    assert drop_order(losers, 2) == ("h", "g", "f", "e", "d", "c", "b", "a")
    assert drop_order(losers, 3) == ("e", "f", "g", "h", "a", "b", "c", "d")
    assert drop_order(losers, 4) == ("b", "a", "d", "c", "f", "e", "h", "g")


def test_sixteen_entrants_drop_into_the_losers_bracket_crossed() -> None:
    drawn = bracket(16, [], [], double=True)
    index = {(m.side, m.round, m.number): i for i, m in enumerate(drawn.matches)}
    dropped = {
        round_: [drawn.matches[index[(LOSERS, round_, number)]].slots[1].feeder
                 for number in range(count)]
        for round_, count in ((2, 4), (4, 2), (6, 1))}
    assert dropped == {
        2: [index[(WINNERS, 2, number)] for number in (3, 2, 1, 0)],
        4: [index[(WINNERS, 3, number)] for number in (1, 0)],
        6: [index[(WINNERS, 4, 0)]],
    }


def test_no_losers_bracket_rematch_before_its_fourth_round_in_sixteen() -> None:
    for seed in range(12):
        event = Event(16, double=True)
        event.play_out(at_random(random.Random(seed)))
        drawn = bracket(16, event.results, event.byes, double=True)
        played = sorted((m for m in drawn.matches if m.status == PLAYED),
                        key=lambda m: m.decided_in or 0)
        met: set[frozenset[int | None]] = set()
        for match in played:
            pairing_ = frozenset(slot.entrant for slot in match.slots)
            if match.side == LOSERS and match.round <= 3:
                assert pairing_ not in met
            met.add(pairing_)


def test_byes_in_the_losers_bracket_are_taken_without_a_round() -> None:
    event = Event(5, double=True)
    assert event.play_out() == [
        ((3, 4),),
        ((0, 3), (1, 2)),
        ((0, 1), (4, 2)),
        ((2, 3),),
        ((2, 1),),
        ((0, 1),),
    ]
    assert len(event.results) == 2 * 5 - 2
    assert event.placings() == ((0,), (1,), (2,), (3,), (4,))


# -- placings and the drawn bracket -------------------------------------------------------


def test_single_elimination_places_losers_of_a_round_together() -> None:
    event = Event(8)
    event.play()
    assert event.placings() == ((0, 1, 2, 3), (4, 5, 6, 7))
    event.play_out()
    assert event.placings() == ((0,), (1,), (2, 3), (4, 5, 6, 7))


def test_double_elimination_partial_placings_keep_everyone_still_in_on_top() -> None:
    event = Event(8, double=True)
    event.play()
    event.play()
    assert event.placings() == ((0, 1, 2, 3, 4, 5), (6, 7))


def test_the_bracket_for_display() -> None:
    event = Event(4, double=True)
    event.play()
    drawn = bracket(4, event.results, event.byes, double=True)
    assert [(m.side, m.round, m.status) for m in drawn.matches] == [
        (WINNERS, 1, PLAYED), (WINNERS, 1, PLAYED), (WINNERS, 2, READY),
        (LOSERS, 1, READY), (LOSERS, 2, WAITING), (FINAL, 1, WAITING), (FINAL, 2, WAITING)]
    losers_final = drawn.matches[4]
    assert [(s.source, s.feeder, s.entrant) for s in losers_final.slots] == [
        ("winner", 3, None), ("loser", 2, None)]
    assert drawn.matches[0].winner == 0
    assert drawn.matches[0].decided_in == 1
    assert drawn.champion is None
    event.play_out()
    drawn = bracket(4, event.results, event.byes, double=True)
    assert drawn.matches[-1].status == VOID
    assert drawn.champion == 0


def test_the_drawn_bracket_shows_empty_slots_and_byes() -> None:
    drawn = bracket(5, [], [])
    first = drawn.matches[0]
    assert first.status == READY
    assert [(s.entrant, s.empty) for s in first.slots] == [(0, False), (None, True)]
    event = Event(5)
    event.play()
    drawn = bracket(5, event.results, event.byes)
    assert [m.status for m in drawn.matches[:4]] == [BYE, PLAYED, BYE, BYE]
    assert drawn.size == 8


def test_a_result_that_does_not_fit_the_bracket_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        pair(8, [won_by(0, Table(0, (0, 1)), 1)], [])
    with pytest.raises(ValueError, match="two seats"):
        match_winner(Result(1, (0, 1, 2), (1.0, 0.5, 0.0), (0.0, 0.0, 0.0)))


# -- properties ---------------------------------------------------------------------------

PROPERTY = settings(max_examples=200, deadline=None)


@PROPERTY
@given(entrants=st.integers(1, 20), double=st.booleans(), rng=st.randoms(use_true_random=False))
def test_a_bracket_played_to_the_end_crowns_one_champion(
        entrants: int, double: bool, rng: random.Random) -> None:
    lives = 2 if double else 1
    event = Event(entrants, double=double)
    losses: Counter[int] = Counter()
    while (pairing := event.next()) is not None:
        round_ = len(event.rounds) + 1
        event.rounds.append(pairing)
        for table in pairing.tables:
            assert all(losses[seat] < lives for seat in table.seats)
            if rng.random() < 0.2:
                game = (float(rng.randrange(3)), float(rng.randrange(3)))
                result = Result(round_, table.seats, (0.5, 0.5), game)
            else:
                result = won_by(rng.choice(table.seats), table, round_)
            event.results.append(result)
            loser, = (seat for seat in table.seats if seat != match_winner(result))
            losses[loser] += 1
        event.byes += [Bye(round_, entrant) for entrant in pairing.byes]
        assert all(losses[entrant] < lives for entrant in pairing.byes)
    matches = len(event.results)
    if double and entrants > 1:
        assert matches in (2 * entrants - 2, 2 * entrants - 1)
    else:
        assert matches == max(entrants - 1, 0)
    places = event.placings()
    crowned = champion(entrants, event.results, event.byes, double=double)
    assert places[0] == (crowned,)
    assert sorted(e for group in places for e in group) == list(range(entrants))
    assert [e for e in range(entrants) if losses[e] < lives] == [crowned]


@PROPERTY
@given(entrants=st.integers(2, 12), double=st.booleans(), rng=st.randoms(use_true_random=False))
def test_withdrawals_never_stall_the_bracket(
        entrants: int, double: bool, rng: random.Random) -> None:
    event = Event(entrants, double=double)
    while True:
        if rng.random() < 0.3:
            event.withdrawn |= {rng.randrange(entrants)}
        if event.next() is None:
            break
        before = len(event.rounds)
        pairing = event.play(at_random(rng))
        assert not set(pairing.entrants) & event.withdrawn
        assert len(event.rounds) == before + 1
        assert len(event.rounds) <= 4 * entrants
    assert len(event.placings()[0]) == 1
