"""Tournaments: pairing, standings, tie-breaks and ratings as pure functions of results.

A tournament's entrants are numbered in their entry order (0..n-1, the seeding order:
entrant 0 is the top seed). Every format pairs a round from the results so far
(``domain.tournaments.model``), so a verifier can pair every round again from a
tournament's log and compare.
"""
