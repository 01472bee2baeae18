"""Ratings: openskill's Plackett-Luce over finished tables, shown on an Elo-like scale,
and rebuilt the same from the same tables in the same order."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from domain.tournaments.ratings import DEFAULT_RATING, Rating, rate, rate_all


def test_a_new_player_starts_at_openskills_defaults_and_shows_1500():
    assert (DEFAULT_RATING.mu, DEFAULT_RATING.sigma, DEFAULT_RATING.games) == (25, 25 / 3, 0)
    assert DEFAULT_RATING.ordinal == pytest.approx(0)
    assert DEFAULT_RATING.display == 1500


def test_the_winner_gains_and_the_loser_loses():
    winner, loser = rate([DEFAULT_RATING, DEFAULT_RATING], [0, 1])
    assert winner.mu > 25 > loser.mu
    assert winner.sigma < DEFAULT_RATING.sigma and loser.sigma < DEFAULT_RATING.sigma
    assert (winner.games, loser.games) == (1, 1)
    assert winner.display > 1500 > loser.display


def test_beating_a_stronger_player_gains_more():
    strong = Rating(30, 4)
    upset, _ = rate([DEFAULT_RATING, strong], [0, 1])
    expected, _ = rate([DEFAULT_RATING, DEFAULT_RATING], [0, 1])
    assert upset.mu > expected.mu


def test_a_tie_between_equals_leaves_their_mu():
    first, second = rate([DEFAULT_RATING, DEFAULT_RATING], [0, 0])
    assert first == second
    assert first.mu == pytest.approx(25)
    assert first.sigma < DEFAULT_RATING.sigma


def test_a_larger_table_moves_each_seat_by_its_place():
    first, second, third, fourth = rate([DEFAULT_RATING] * 4, [0, 1, 2, 3])
    assert first.mu > second.mu > third.mu > fourth.mu
    ahead, tied, also_tied, last = rate([DEFAULT_RATING] * 4, [0, 1, 1, 3])
    assert tied == also_tied
    assert ahead.mu > tied.mu > last.mu


def test_seat_order_does_not_matter_only_rank():
    one = rate([Rating(27, 6), Rating(22, 7), DEFAULT_RATING], [2, 0, 1])
    other = rate([DEFAULT_RATING, Rating(27, 6), Rating(22, 7)], [1, 2, 0])
    assert one == (other[1], other[2], other[0])


def test_many_games_narrow_sigma():
    player, rival = DEFAULT_RATING, DEFAULT_RATING
    sigmas = []
    for game in range(40):
        player, rival = rate([player, rival], [game % 2, 1 - game % 2])
        sigmas.append(player.sigma)
    assert sigmas == sorted(sigmas, reverse=True)
    assert sigmas[-1] < DEFAULT_RATING.sigma / 2
    assert player.games == 40
    assert player.display > 1500


def test_rate_is_openskills_plackett_luce():
    model = PlackettLuce()
    seats = [Rating(31.2, 5.1), Rating(24.0, 7.9), Rating(19.5, 3.3), Rating(25, 25 / 3)]
    ranks = [1, 0, 1, 3]
    teams = [[model.rating(mu=seat.mu, sigma=seat.sigma)] for seat in seats]
    expected = model.rate(teams, ranks=[1, 0, 1, 3])
    for mine, (theirs,) in zip(rate(seats, ranks), expected, strict=True):
        assert (mine.mu, mine.sigma) == (theirs.mu, theirs.sigma)
        assert mine.ordinal == pytest.approx(theirs.ordinal())
        assert mine.display == round(theirs.ordinal(alpha=200 / model.sigma, target=1500))


def test_known_values_of_a_first_game():
    winner, loser = rate([DEFAULT_RATING, DEFAULT_RATING], [0, 1])
    assert (winner.mu, winner.sigma) == pytest.approx((27.635389493, 8.065901413))
    assert (loser.mu, loser.sigma) == pytest.approx((22.364610506, 8.065901413))
    assert (winner.display, loser.display) == (1583, 1456)


def test_rate_all_rates_tables_in_order_from_the_defaults():
    tables = [(("ann", "bob"), (0, 1)), (("bob", "cy", "dee"), (0, 2, 1)),
              (("cy", "ann"), (0, 0))]
    ratings = rate_all(tables)
    assert set(ratings) == {"ann", "bob", "cy", "dee"}
    assert {name: rating.games for name, rating in ratings.items()} == {
        "ann": 2, "bob": 2, "cy": 2, "dee": 1}
    _, bob = rate([DEFAULT_RATING, DEFAULT_RATING], [0, 1])
    assert ratings["dee"] == rate([bob, DEFAULT_RATING, DEFAULT_RATING], [0, 2, 1])[2]


def test_the_same_tables_in_the_same_order_give_the_same_ratings():
    tables = [(("ann", "bob"), (0, 1)), (("bob", "cy"), (0, 1)), (("cy", "ann"), (1, 0))]
    assert rate_all(tables) == rate_all(list(tables))
    assert rate_all(tables) != rate_all(tables[::-1])


def test_rate_all_continues_from_given_ratings_and_leaves_them_be():
    start = {"ann": Rating(30, 3, 50), "zed": Rating(20, 2, 80)}
    ratings = rate_all([(("ann", "bob"), (1, 0))], start)
    assert ratings["zed"] == start["zed"]
    assert ratings["ann"].mu < 30 and ratings["ann"].games == 51
    assert ratings["bob"].mu > 25
    assert start == {"ann": Rating(30, 3, 50), "zed": Rating(20, 2, 80)}
    halves = rate_all([(("bob", "ann"), (0, 1))], rate_all([(("ann", "bob"), (1, 0))], start))
    assert halves == rate_all([(("ann", "bob"), (1, 0)), (("bob", "ann"), (0, 1))], start)


def test_a_table_needs_two_seats_a_rank_each_and_each_player_once():
    with pytest.raises(ValueError):
        rate([DEFAULT_RATING], [0])
    with pytest.raises(ValueError):
        rate([DEFAULT_RATING, DEFAULT_RATING], [0])
    with pytest.raises(ValueError):
        rate_all([(("ann", "ann"), (0, 1))])
