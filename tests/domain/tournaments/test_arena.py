"""The arena: points with a streak, standings, and pairing whoever waits with the waiting
entrant nearest in score, never straight back against the last opponent while someone
else can come."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from domain.tournaments.arena import (
    ArenaScore,
    arena_points,
    arena_scores,
    arena_standings,
    pair_waiting,
)
from domain.tournaments.model import Result, table_points


def finished(wave: int, seats: Sequence[int], ranks: Sequence[int]) -> Result:
    """A table of wave ``wave`` that finished with the seats in these ranks."""
    return Result(wave, tuple(seats), table_points(ranks), tuple(0.0 for _ in seats))


def won(wave: int, winner: int, loser: int) -> Result:
    return finished(wave, (winner, loser), (0, 1))


def drew(wave: int, first: int, second: int) -> Result:
    return finished(wave, (first, second), (0, 0))


def run(entrant: int, outcomes: str) -> list[Result]:
    """Entrant's tables against fresh opponents: W a win, D a draw, L a loss."""
    results = []
    for wave, outcome in enumerate(outcomes, 1):
        opponent = 100 + wave
        ranks = {"W": (0, 1), "D": (0, 0), "L": (1, 0)}[outcome]
        results.append(finished(wave, (entrant, opponent), ranks))
    return results


def points_after_each(outcomes: str) -> list[float]:
    totals = [arena_scores(1, run(0, outcomes[:end]))[0].points
              for end in range(len(outcomes) + 1)]
    return [after - before for before, after in zip(totals, totals[1:], strict=False)]


def test_a_win_scores_two_a_draw_one_a_loss_nothing():
    scores = arena_scores(4, [won(1, 0, 1), drew(1, 2, 3)])
    assert [score.points for score in scores] == [2, 0, 1, 1]
    assert scores[0] == ArenaScore(0, 2.0, 1, 1, 1, False)


def test_two_wins_in_a_row_set_an_entrant_on_fire_and_its_next_win_scores_double():
    assert points_after_each("WWWLW") == [2, 2, 4, 0, 2]
    assert arena_scores(1, run(0, "WWWLW"))[0] == ArenaScore(0, 10.0, 5, 4, 1, False)
    assert arena_scores(1, run(0, "WW"))[0].on_fire
    assert points_after_each("WWWW") == [2, 2, 4, 4]


def test_a_draw_on_fire_scores_double_but_puts_the_fire_out():
    assert points_after_each("WWDWWW") == [2, 2, 2, 2, 2, 4]
    after_the_draw = arena_scores(1, run(0, "WWD"))[0]
    assert (after_the_draw.streak, after_the_draw.on_fire) == (0, False)


def test_a_loss_or_draw_before_the_fire_only_restarts_the_run():
    assert points_after_each("WDWLWW") == [2, 1, 2, 0, 2, 2]


def test_larger_tables_score_twice_the_match_points_to_the_half_point():
    assert [arena_points(p) for p in table_points((0, 1, 2))] == [2, 1, 0]
    assert [arena_points(p) for p in table_points((0, 1, 2, 3))] == [2, 1.5, 0.5, 0]
    assert [arena_points(p) for p in table_points((0, 0, 2))] == [1.5, 1.5, 0]
    assert [arena_points(p) for p in table_points((0, 1, 1, 1, 4))] == [2, 1, 1, 1, 0]
    assert arena_points(0.75, on_fire=True) == 3


def test_only_finishing_first_alone_at_a_larger_table_is_a_win():
    results = [finished(1, (0, 1, 2), (0, 1, 2)), finished(2, (0, 1, 2), (0, 0, 2)),
               finished(3, (0, 1, 2), (0, 1, 2)), finished(4, (0, 1, 2), (0, 1, 2))]
    first, second, third = arena_scores(3, results)
    assert (first.points, first.wins, first.streak) == (2 + 1.5 + 2 + 2, 3, 2)
    assert (second.points, second.wins) == (1 + 1.5 + 1 + 1, 0)
    assert (third.points, third.played) == (0, 4)


def test_results_count_in_the_order_given_not_by_wave():
    wins_then_loss = run(0, "WWWLW")
    reordered = [wins_then_loss[i] for i in (0, 1, 3, 2, 4)]
    assert arena_scores(1, reordered)[0].points == 2 + 2 + 0 + 2 + 2
    backwards_waves = [Result(9 - r.round, r.seats, r.points, r.game_points)
                       for r in wins_then_loss]
    assert arena_scores(1, backwards_waves) == arena_scores(1, wins_then_loss)


def test_standings_go_by_points_then_wins_then_fewer_games_then_entry_order():
    results = [drew(1, 0, 1), drew(2, 0, 1), won(1, 2, 3), won(2, 4, 5), drew(3, 4, 5),
               won(3, 3, 5)]
    standings = arena_standings(7, results)
    assert [score.entrant for score in standings] == [4, 2, 3, 0, 1, 5, 6]
    assert [score.points for score in standings] == [3, 2, 2, 2, 2, 1, 0]


def test_the_first_wave_pairs_in_waiting_order():
    assert pair_waiting([3, 1, 0, 2], []) == ((3, 1), (0, 2))


def test_the_waiting_meet_the_entrant_nearest_in_score():
    results = [*run(0, "WWW"), *run(1, "W"), *run(2, "WW"), *run(3, "L")]
    points = [score.points for score in arena_scores(4, results)]
    assert points == [8, 2, 4, 0]
    assert pair_waiting([0, 1, 2, 3], results) == ((2, 0), (1, 3))


def test_no_immediate_rematch_while_another_waiting_entrant_can_be_met():
    results = [drew(1, 0, 1), drew(1, 2, 3)]
    assert pair_waiting([0, 1, 2, 3], results) == ((0, 2), (1, 3))
    assert pair_waiting([0, 1, 2], results) == ((0, 2),)


def test_last_opponents_left_alone_wait_while_others_play_then_meet_again():
    results = [won(1, 0, 1), won(1, 2, 3)]
    assert pair_waiting([0, 1], results, playing=2) == ()
    assert pair_waiting([0, 1], results, playing=0) == ((1, 0),)
    assert pair_waiting([0, 1, 2], results, playing=1) == ((0, 2),)


def test_an_odd_wave_leaves_the_latest_to_wait_waiting():
    assert pair_waiting([4, 0, 2, 1, 3], []) == ((4, 0), (2, 1))
    assert pair_waiting([5], []) == ()
    assert pair_waiting([], []) == ()


def test_the_latest_to_wait_keeps_waiting_even_when_nearest_in_score():
    results = [won(1, 0, 5), won(1, 2, 6)]
    assert pair_waiting([0, 1, 2], results) == ((1, 0),)


def test_seat_zero_goes_to_whoever_held_it_less():
    results = [won(1, 0, 1), won(2, 0, 2), won(3, 3, 4)]
    assert pair_waiting([0, 3], results) == ((3, 0),)
    assert pair_waiting([2, 1], results) == ((2, 1),)
    assert pair_waiting([4, 5], results) == ((4, 5),)


def test_the_same_waiting_and_results_give_the_same_tables():
    rng = random.Random(7)
    results = [finished(wave, rng.sample(range(12), 2), rng.choice([(0, 1), (0, 0)]))
               for wave in range(1, 40)]
    waiting = rng.sample(range(12), 9)
    first = pair_waiting(waiting, results)
    assert all(pair_waiting(list(waiting), list(results)) == first for _ in range(3))
    seated = {entrant for table in first for entrant in table}
    assert len(first) == 4 and len(seated) == 8 and seated < set(waiting)


def cost(tables: Sequence[Sequence[int]], waiting: Sequence[int], results: Sequence[Result],
         playing: int) -> tuple[float, ...] | None:
    """What the pairing rules weigh, most important first; None if not allowed."""
    place = {entrant: index for index, entrant in enumerate(waiting)}
    points = {score.entrant: score.points for score in arena_scores(20, results)}
    last = {e: set(result.seats) for result in results for e in result.seats}
    rematches = sum(any(last.get(e) == set(table) for e in table) for table in tables)
    if rematches and playing:
        return None
    seated = [e for table in tables for e in table]
    return (len(waiting) - len(seated), rematches, sum(place[e] for e in seated),
            sum(abs(points[a] - points[b]) for a, b in tables),
            sum(abs(place[a] - place[b]) for a, b in tables))


def every_pairing(waiting: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Every way to seat some of the waiting in pairs."""
    if len(waiting) < 2:
        return [[]]
    first, rest = waiting[0], waiting[1:]
    ways = every_pairing(rest)
    for partner in rest:
        others = [e for e in rest if e != partner]
        ways += [[(first, partner), *way] for way in every_pairing(others)]
    return ways


def test_two_seat_pairing_is_the_best_by_the_documented_rules():
    rng = random.Random(11)
    for _ in range(150):
        results = [finished(wave, rng.sample(range(6), 2), rng.choice([(0, 1), (0, 0)]))
                   for wave in range(1, rng.randrange(1, 12))]
        waiting = rng.sample(range(6), rng.randrange(2, 6))
        playing = rng.choice([0, 2])
        tables = pair_waiting(waiting, results, playing=playing)
        best = min(c for way in every_pairing(waiting)
                   if (c := cost(way, waiting, results, playing)) is not None)
        assert cost(tables, waiting, results, playing) == best, (waiting, results, playing)


def test_a_wave_of_hundreds_pairs_everyone_nearest_in_score():
    results = [won(1, entrant, entrant + 1) for entrant in range(0, 300, 2)]
    waiting = list(range(300))
    tables = pair_waiting(waiting, results)
    assert len(tables) == 150
    points = {score.entrant: score.points for score in arena_scores(300, results)}
    assert all(points[a] == points[b] for a, b in tables)
    assert tables[:3] == ((0, 2), (1, 3), (4, 6))


def test_a_simulated_arena_pairs_finishers_at_once_and_never_into_a_rematch():
    """Six entrants at two-seat tables that finish in the order they opened, every third
    one drawn: whoever finishes meets someone new as soon as anyone else is free."""
    results: list[Result] = []
    playing: list[tuple[int, tuple[int, ...]]] = []
    waiting, wave = list(range(6)), 0
    while len(results) < 40:
        opened = pair_waiting(waiting, results, playing=2 * len(playing))
        last = {e: set(result.seats) for result in results for e in result.seats}
        assert not any(last.get(e) == set(table) for table in opened for e in table)
        if opened:
            wave += 1
            playing += [(wave, table) for table in opened]
            waiting = [e for e in waiting if not any(e in table for table in opened)]
        assert len(waiting) in (0, 2)
        opened_in, table = playing.pop(0)
        results.append(finished(opened_in, table, (0, 0) if len(results) % 3 == 2 else (0, 1)))
        waiting += table
    assert sum(score.played for score in arena_scores(6, results)) == 80


def test_three_seat_tables_group_the_nearest_scores():
    results = [finished(1, (0, 1, 2), (0, 1, 2)), finished(1, (3, 4, 5), (0, 1, 2))]
    assert [s.points for s in arena_scores(6, results)] == [2, 1, 0, 2, 1, 0]
    assert pair_waiting([0, 2, 4, 3, 1, 5], results, table_size=3) == ((4, 0, 3), (2, 1, 5))


def test_three_seat_tables_seat_the_longest_waiting_and_avoid_a_repeat():
    results = [finished(1, (0, 1, 2), (0, 1, 2))]
    assert pair_waiting([0, 1, 2, 3], results, table_size=3) == ((1, 3, 0),)
    assert pair_waiting([0, 1, 2], results, table_size=3, playing=3) == ()
    assert pair_waiting([0, 1, 2], results, table_size=3) == ((1, 2, 0),)
    assert pair_waiting([5, 6, 7, 8, 9], [], table_size=3) == ((5, 6, 7),)


def test_only_two_to_six_seats_and_each_entrant_once():
    with pytest.raises(ValueError):
        pair_waiting([0, 1], [], table_size=7)
    with pytest.raises(ValueError):
        pair_waiting([0, 1, 0], [])
