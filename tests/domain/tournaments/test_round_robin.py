"""Round-robin schedules: who meets whom, when, in which seat, and what the search for
rummy tables promises."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations, permutations

import pytest

from domain.tournaments import round_robin
from domain.tournaments.model import Pairing
from domain.tournaments.round_robin import lower_bound, rounds
from domain.tournaments.seating import table_sizes, unseated


def meetings(schedule: tuple[Pairing, ...]) -> Counter[tuple[int, int]]:
    return Counter(pair for pairing in schedule for table in pairing.tables
                   for pair in combinations(sorted(table.seats), 2))


def seat_counts(schedule: tuple[Pairing, ...], seat: int) -> Counter[int]:
    return Counter(table.seats[seat] for pairing in schedule for table in pairing.tables)


def test_berger_tables_for_six_are_fides():
    named = [[(a + 1, b + 1) for a, b in (table.seats for table in pairing.tables)]
             for pairing in rounds(6)]
    assert [sorted(pairs) for pairs in named] == [
        [(1, 6), (2, 5), (3, 4)],
        [(1, 2), (5, 3), (6, 4)],
        [(2, 6), (3, 1), (4, 5)],
        [(1, 4), (2, 3), (6, 5)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("entrants", [2, 4, 8, 10, 16])
def test_an_even_count_meets_everyone_once_in_n_minus_1_rounds(entrants):
    schedule = rounds(entrants)
    assert len(schedule) == entrants - 1
    assert all(sorted(pairing.entrants) == list(range(entrants)) and not pairing.byes
               for pairing in schedule)
    assert meetings(schedule) == Counter(dict.fromkeys(combinations(range(entrants), 2), 1))


@pytest.mark.parametrize("entrants", [3, 5, 7, 9, 15])
def test_an_odd_count_gives_everyone_one_bye_in_n_rounds(entrants):
    schedule = rounds(entrants)
    assert len(schedule) == entrants
    assert all(len(pairing.byes) == 1 and sorted(pairing.entrants) == list(range(entrants))
               for pairing in schedule)
    assert sorted(pairing.byes[0] for pairing in schedule) == list(range(entrants))
    assert meetings(schedule) == Counter(dict.fromkeys(combinations(range(entrants), 2), 1))


@pytest.mark.parametrize("entrants", range(2, 21))
def test_seat_0_alternates_game_by_game(entrants):
    schedule = rounds(entrants)
    seats: dict[int, list[int]] = {entrant: [] for entrant in range(entrants)}
    for pairing in schedule:
        for table in pairing.tables:
            for seat, entrant in enumerate(table.seats):
                seats[entrant].append(seat)
    repeats = {entrant: sum(a == b for a, b in zip(taken, taken[1:], strict=False))
               for entrant, taken in seats.items()}
    if entrants % 2:
        assert set(repeats.values()) == {0}
    else:
        assert sorted(repeats.values()) == [0, 0] + [1] * (entrants - 2)
    assert max(seat_counts(schedule, 0).values()) <= math.ceil(len(schedule) / 2)


@pytest.mark.parametrize("entrants", [4, 5])
def test_a_double_round_robin_plays_it_again_with_the_seats_swapped(entrants):
    single, double = rounds(entrants), rounds(entrants, double=True)
    assert len(double) == 2 * len(single) and double[:len(single)] == single
    for first, second in zip(single, double[len(single):], strict=True):
        assert second.byes == first.byes
        assert sorted(table.seats for table in second.tables) == sorted(
            table.seats[::-1] for table in first.tables)
    in_order = Counter(table.seats for pairing in double for table in pairing.tables)
    assert in_order == Counter(dict.fromkeys(permutations(range(entrants), 2), 1))


def test_tables_are_numbered_by_their_lowest_entrant():
    for pairing in rounds(8) + rounds(12, 4):
        assert [table.number for table in pairing.tables] == list(range(len(pairing.tables)))
        assert [min(table.seats) for table in pairing.tables] == sorted(
            min(table.seats) for table in pairing.tables)


def test_nobody_to_meet_is_no_round():
    assert rounds(0) == rounds(1) == rounds(1, 4) == ()
    with pytest.raises(ValueError):
        rounds(8, 7)


# --- rummy tables -------------------------------------------------------------------------

def test_tables_have_table_size_or_one_seat_fewer_and_byes_only_for_a_lone_entrant():
    assert table_sizes(12, 4) == (4, 4, 4)
    assert table_sizes(7, 3) == (3, 2, 2)
    assert table_sizes(14, 4) == (4, 4, 3, 3)
    assert table_sizes(9, 2) == (2, 2, 2, 2) and unseated(9, 2) == 1
    assert table_sizes(7, 6) == (4, 3)  # neither 6 + 1 nor 5 + 2: as even as possible
    assert all(unseated(n, size) == (n == 1) for n in range(1, 40) for size in range(3, 7))
    assert all(max(table_sizes(n, size)) - min(table_sizes(n, size)) <= 1
               and min(table_sizes(n, size)) >= 2 for n in range(2, 40) for size in range(3, 7))


def every_partition(entrants: int, sizes: tuple[int, ...]) -> set[tuple[tuple[int, ...], ...]]:
    found = set()
    for order in permutations(range(entrants)):
        tables, at = [], 0
        for size in sizes:
            tables.append(tuple(sorted(order[at:at + size])))
            at += size
        found.add(tuple(sorted(tables)))
    return found


def test_six_entrants_at_three_seats_need_four_rounds_and_one_pair_meets_in_all():
    schedule = rounds(6, 3)
    met = meetings(schedule)
    assert len(schedule) == 4 and len(met) == 15
    assert max(met.values()) == 4 and list(met.values()).count(4) == 1
    rounds_of = sorted(every_partition(6, (3, 3)))
    coverings = [chosen for count in (3, 4)
                 for chosen in combinations(rounds_of * count, count)
                 if len({pair for tables in chosen for table in tables
                         for pair in combinations(table, 2)}) == 15]
    assert coverings and min(len(chosen) for chosen in coverings) == 4
    assert min(max(Counter(pair for tables in chosen for table in tables
                           for pair in combinations(table, 2)).values())
               for chosen in coverings) == 4


def test_seven_entrants_at_three_seats_meet_once_or_twice():
    schedule = rounds(7, 3)
    assert all(sorted(len(table.seats) for table in pairing.tables) == [2, 2, 3]
               and not pairing.byes for pairing in schedule)
    met = meetings(schedule)
    assert len(schedule) == lower_bound(7, (3, 2, 2)) == 5
    assert len(met) == 21 and sorted(Counter(met.values()).items()) == [(1, 17), (2, 4)]


@pytest.mark.parametrize(("entrants", "table_size", "count"), [(9, 3, 4), (16, 4, 5), (25, 5, 6)])
def test_perfect_designs_meet_every_pair_exactly_once(entrants, table_size, count):
    schedule = rounds(entrants, table_size)
    assert len(schedule) == count == lower_bound(entrants, table_sizes(entrants, table_size))
    assert set(meetings(schedule).values()) == {1}
    assert len(meetings(schedule)) == entrants * (entrants - 1) // 2


@pytest.mark.parametrize(("entrants", "table_size"),
                         [(7, 3), (8, 3), (10, 3), (12, 4), (9, 4), (11, 5)])
def test_every_pair_meets_and_seat_0_and_the_last_seat_are_spread(entrants, table_size):
    schedule = rounds(entrants, table_size)
    assert len(meetings(schedule)) == entrants * (entrants - 1) // 2
    for pairing in schedule:
        assert sorted(pairing.entrants) == list(range(entrants)) and not pairing.byes
        assert sorted((len(table.seats) for table in pairing.tables), reverse=True) == list(
            table_sizes(entrants, table_size))
    for seat in (0, -1):
        counts = seat_counts(schedule, seat)
        assert max(counts.values()) - min(counts[entrant] for entrant in range(entrants)) <= 1


def test_a_double_rummy_round_robin_reverses_the_seats():
    single, double = rounds(8, 3), rounds(8, 3, double=True)
    assert double[:len(single)] == single
    for first, second in zip(single, double[len(single):], strict=True):
        assert sorted(table.seats for table in second.tables) == sorted(
            table.seats[::-1] for table in first.tables)


def test_the_schedule_is_the_same_every_time():
    first = rounds(10, 3)
    round_robin._rummy.cache_clear()
    assert rounds(10, 3) == first
