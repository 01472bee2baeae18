"""Standings and tie-breaks (domain.tournaments.standings), with the numbers worked by hand."""

from __future__ import annotations

import pytest

from domain.tournaments.model import Bye, Result, table_points
from domain.tournaments.standings import (
    DEFAULT_TIE_BREAKS,
    TIE_BREAKS,
    Standing,
    standings,
)


def beats(round_: int, winner: int, loser: int, game: tuple[float, float] = (0.0, 0.0)) -> Result:
    return Result(round_, (winner, loser), (1.0, 0.0), game)


def draws(round_: int, first: int, second: int,
          game: tuple[float, float] = (0.0, 0.0)) -> Result:
    return Result(round_, (first, second), (0.5, 0.5), game)


def order(lines: tuple[Standing, ...]) -> list[tuple[int, int]]:
    """(rank, entrant) line by line."""
    return [(line.rank, line.entrant) for line in lines]


def values(lines: tuple[Standing, ...], name: str) -> dict[int, float]:
    return {line.entrant: line.tie_breaks[name] for line in lines}


ROUND_ROBIN = [
    beats(1, 0, 1), draws(1, 2, 3),
    draws(2, 0, 2), beats(2, 1, 3),
    beats(3, 3, 0), beats(3, 1, 2),
]
"""Four entrants, everyone meets everyone. Totals: 0 1.5, 1 2.0, 2 1.0, 3 1.5."""


def test_a_round_robin_worked_by_hand() -> None:
    """Buchholz in a round robin is everyone else's total: 6 minus one's own. 0 and 3 are
    level on 1.5 and on Buchholz 4.5. Sonneborn-Berger: 0 beat 1 (2.0) and drew 2 (half
    of 1.0) for 2.5; 3 drew 2 (0.5) and beat 0 (1.5) for 2.0. So 0 is placed ahead,
    though 3 won their meeting."""
    lines = standings(4, ROUND_ROBIN, [])
    assert order(lines) == [(1, 1), (2, 0), (3, 3), (4, 2)]
    assert [line.points for line in lines] == [2.0, 1.5, 1.5, 1.0]
    assert values(lines, "buchholz") == {1: 4.0, 0: 4.5, 3: 4.5, 2: 5.0}
    assert values(lines, "sonneborn_berger") == {1: 2.5, 0: 2.5, 3: 2.0, 2: 1.5}
    assert [(line.played, line.wins, line.byes) for line in lines] == [
        (3, 2, 0), (3, 1, 0), (3, 1, 0), (3, 0, 0)]


def test_head_to_head_counts_the_points_scored_within_the_tied_group() -> None:
    lines = standings(4, ROUND_ROBIN, [], ("head_to_head",))
    assert order(lines) == [(1, 1), (2, 3), (3, 0), (4, 2)]
    assert values(lines, "head_to_head") == {1: 0.0, 3: 1.0, 0: 0.0, 2: 0.0}


def test_the_order_of_the_tie_breaks_is_honoured() -> None:
    sonneborn_first = standings(4, ROUND_ROBIN, [], ("sonneborn_berger", "head_to_head"))
    meeting_first = standings(4, ROUND_ROBIN, [], ("head_to_head", "sonneborn_berger"))
    assert [line.entrant for line in sonneborn_first] == [1, 0, 3, 2]
    assert [line.entrant for line in meeting_first] == [1, 3, 0, 2]
    assert list(meeting_first[1].tie_breaks) == ["head_to_head", "sonneborn_berger"]


def test_entrants_level_on_everything_share_a_rank_listed_in_entry_order() -> None:
    """0 wins everything, 3 loses everything; 1 and 2 drew and beat 3: the same points,
    Buchholz (3 + 1.5 + 0), Sonneborn-Berger (half of 1.5), head-to-head and game points."""
    results = [beats(1, 0, 1), beats(1, 2, 3), beats(2, 0, 2), beats(2, 1, 3),
               beats(3, 0, 3), draws(3, 2, 1)]
    lines = standings(4, results, [])
    assert order(lines) == [(1, 0), (2, 1), (2, 2), (4, 3)]
    assert lines[1].tie_breaks == lines[2].tie_breaks == {
        "buchholz": 4.5, "sonneborn_berger": 0.75, "head_to_head": 0.5, "game_points": 0.0}


def test_a_tie_broken_by_buchholz() -> None:
    """Two rounds of a Swiss: 1, 2, 3 and 4 have a point each. 1 and 2 met 0 (2 points)
    and a one-point entrant, Buchholz 3; 3 and 4 met 5 (0 points) and a one-point
    entrant, Buchholz 1."""
    results = [beats(1, 0, 1), beats(1, 2, 3), beats(1, 4, 5),
               beats(2, 0, 2), beats(2, 1, 4), beats(2, 3, 5)]
    lines = standings(6, results, [], ("buchholz",))
    assert order(lines) == [(1, 0), (2, 1), (2, 2), (4, 3), (4, 4), (6, 5)]
    assert values(lines, "buchholz") == {0: 2.0, 1: 3.0, 2: 3.0, 3: 1.0, 4: 1.0, 5: 2.0}


def test_a_tie_broken_by_sonneborn_berger_once_buchholz_is_level() -> None:
    lines = standings(4, ROUND_ROBIN, [], ("buchholz", "sonneborn_berger"))
    assert order(lines) == [(1, 1), (2, 0), (3, 3), (4, 2)]


def test_a_tie_broken_by_head_to_head_once_buchholz_and_sonneborn_berger_are_level() -> None:
    """2 and 3 have 1.5 each and Buchholz 4.5 each; Sonneborn-Berger 1.75 each (2 beat 3
    (1.5) and drew 1 (0.25); 3 beat 1 (0.5) and drew 0 (1.25)). 2 won their meeting."""
    results = [beats(1, 0, 1), beats(1, 2, 3), beats(2, 0, 2), beats(2, 3, 1),
               draws(3, 0, 3), draws(3, 1, 2)]
    lines = standings(4, results, [])
    assert order(lines) == [(1, 0), (2, 2), (3, 3), (4, 1)]
    assert values(lines, "sonneborn_berger")[2] == values(lines, "sonneborn_berger")[3] == 1.75
    assert values(lines, "head_to_head") == {0: 0.0, 2: 1.0, 3: 0.0, 1: 0.0}


@pytest.mark.parametrize(("game", "first"), [((30.0, 20.0), 0), ((20.0, 30.0), 1)])
def test_a_drawn_meeting_broken_by_game_points(game: tuple[float, float], first: int) -> None:
    lines = standings(2, [draws(1, 0, 1, game)], [])
    assert [line.entrant for line in lines] == [first, 1 - first]
    assert [line.rank for line in lines] == [1, 2]
    assert values(lines, "head_to_head") == {0: 0.5, 1: 0.5}


def test_a_tie_broken_by_wins_after_every_other_tie_break() -> None:
    """All four end on 1.5 with Buchholz 4.5, Sonneborn-Berger 2.25 and 1.5 scored
    against the others; 2 drew all three matches, the others won one."""
    results = [beats(1, 0, 1), draws(1, 2, 3), draws(2, 0, 2), beats(2, 1, 3),
               beats(3, 3, 0), draws(3, 1, 2)]
    lines = standings(4, results, [], TIE_BREAKS)
    assert order(lines) == [(1, 0), (1, 1), (1, 3), (4, 2)]
    assert values(lines, "wins") == {0: 1, 1: 1, 3: 1, 2: 0}
    assert {line.tie_breaks["sonneborn_berger"] for line in lines} == {2.25}


def test_withdrawn_entrants_stay_in_the_table_with_what_they_scored() -> None:
    lines = standings(4, ROUND_ROBIN[:4], [], withdrawn=frozenset({0}))
    zero = next(line for line in lines if line.entrant == 0)
    assert zero.withdrawn
    assert zero.points == 1.5
    assert zero.rank == 1
    assert not any(line.withdrawn for line in lines if line.entrant != 0)


def test_a_bye_counts_in_points_but_adds_nothing_to_buchholz() -> None:
    """Three entrants: 2 sits out round 1, 1 sits out round 2. The bye's point counts in
    each total, so also in the Buchholz of those who met them."""
    results = [beats(1, 0, 1), beats(2, 2, 0)]
    lines = standings(3, results, [Bye(1, 2), Bye(2, 1)])
    assert order(lines) == [(1, 2), (2, 0), (3, 1)]
    assert [line.points for line in lines] == [2.0, 1.0, 1.0]
    assert values(lines, "buchholz") == {2: 1.0, 0: 3.0, 1: 1.0}
    assert [(line.played, line.wins, line.byes) for line in lines] == [
        (1, 1, 1), (2, 1, 0), (1, 0, 1)]


def test_a_forfeit_counts_its_points_but_not_its_game_points() -> None:
    forfeit = Result(1, (0, 1), (1.0, 0.0), (120.0, 0.0), forfeit=True)
    lines = standings(2, [forfeit, beats(2, 1, 0, (40.0, 10.0))], [], ("game_points",))
    assert values(lines, "game_points") == {0: 10.0, 1: 40.0}
    assert [line.points for line in lines] == [1.0, 1.0]
    assert [(line.played, line.wins) for line in lines] == [(2, 1), (2, 1)]


MULTI = [
    Result(1, (0, 1, 2), table_points([0, 1, 2]), (0.0, 0.0, 0.0)),
    beats(1, 3, 4),
    Result(2, (2, 3, 4), table_points([0, 2, 1]), (0.0, 0.0, 0.0)),
    draws(2, 0, 1),
]
"""Three-seat tables pay 1, 0.5 and 0. Totals: 0 1.5, 1 1.0, 2 1.0, 3 1.0, 4 0.5."""


def test_multi_player_tables_sum_tablemates_for_buchholz_and_weigh_their_mean_for_sb() -> None:
    """Buchholz of 1: its round-1 tablemates 0 and 2 (1.5 + 1.0) and 0 again (1.5), 4.0.
    Sonneborn-Berger of 1: 0.5 times the mean of 1.5 and 1.0, plus 0.5 times 1.5: 1.375.
    Of 2: nothing from round 1, then 1.0 times the mean of 1.0 and 0.5: 0.75."""
    lines = standings(5, MULTI, [])
    assert order(lines) == [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4)]
    assert values(lines, "buchholz") == {0: 3.0, 1: 4.0, 2: 4.0, 3: 2.0, 4: 3.0}
    assert values(lines, "sonneborn_berger") == {0: 1.5, 1: 1.375, 2: 0.75, 3: 0.5, 4: 0.5}


def test_multi_player_tables_give_head_to_head_a_share_per_tablemate_beaten() -> None:
    """1, 2 and 3 are level on 1.0. 1 finished ahead of 2 at a three-seat table: one of
    its two shares, 0.5. 2 finished ahead of 3 the same way, 0.5. 3 beat only 4, who is
    not level with them."""
    lines = standings(5, MULTI, [], ("head_to_head",))
    assert order(lines) == [(1, 0), (2, 1), (2, 2), (4, 3), (5, 4)]
    assert values(lines, "head_to_head") == {0: 0.0, 1: 0.5, 2: 0.5, 3: 0.0, 4: 0.0}


def test_the_defaults_and_an_unknown_tie_break() -> None:
    assert DEFAULT_TIE_BREAKS == ("buchholz", "sonneborn_berger", "head_to_head", "game_points")
    assert TIE_BREAKS == (*DEFAULT_TIE_BREAKS, "wins")
    with pytest.raises(ValueError, match="unknown tie-breaks"):
        standings(2, [], [], ("median",))


def test_no_results_ranks_everyone_first() -> None:
    lines = standings(3, [], [])
    assert order(lines) == [(1, 0), (1, 1), (1, 2)]
    assert all(line.points == 0.0 and line.played == 0 for line in lines)
