"""A table's result as a tournament counts it, read from how its match ended."""

from __future__ import annotations

from domain.tournaments.results import TableOutcome, outcome_of


def test_a_two_seat_match_is_a_win_and_a_loss():
    assert outcome_of({"winners": [1], "final_scores": [20, 130]}, 2, False) == TableOutcome(
        (1, 0), (0.0, 1.0), (20.0, 130.0), False)


def test_where_low_scores_win_game_points_are_negated_so_more_is_better():
    outcome = outcome_of({"winners": [0], "final_scores": [5, 30, 30]}, 3, True)
    assert outcome.ranks == (0, 1, 1)
    assert outcome.points == (1.0, 0.25, 0.25)  # tied second and third share
    assert outcome.game_points == (-5.0, -30.0, -30.0)


def test_a_shared_win_is_a_draw():
    outcome = outcome_of({"winners": [0, 1], "final_scores": [100, 100]}, 2, False)
    assert outcome.points == (0.5, 0.5) and not outcome.forfeit


def test_a_forfeiting_seat_ranks_last_whatever_it_scored():
    outcome = outcome_of({"winners": [1], "final_scores": [50, 20], "ranking": [1, 0]},
                         2, False)
    assert outcome == TableOutcome((1, 0), (0.0, 1.0), (50.0, 20.0), True)


def test_at_a_larger_table_the_others_keep_their_order_behind_the_winner():
    outcome = outcome_of({"winners": [2], "final_scores": [40, 10, 5, 99],
                          "ranking": [2, 1, 0, 3]}, 4, True)
    assert outcome.ranks == (2, 1, 0, 3)


def test_a_match_called_off_is_shared_and_counts_no_game_points():
    assert outcome_of(None, 2, False) == TableOutcome((0, 0), (0.5, 0.5), (0.0, 0.0), True)
    assert outcome_of({"winners": []}, 3, False).points == (0.5, 0.5, 0.5)
