"""Gem Rummy melds in the one shared solver (docs/rules.md 2.3) and lay-offs onto stashes (2.5).

Stashes and Queen's Diamonds are the shared solver's extra templates: every group of four
or more of a gem's seven cards (a king sits in the pools of both its gems, so it can join
a stash through either, and as a single card it is still in one meld only), and each
queen with the hand's designated diamond. The diamond changes with the dice, so there is
one solver, with its caches, per designated diamond.
"""

from __future__ import annotations

from functools import cache

from domain.cards import pip_value
from domain.gem.gems import GEMS, gem_pool, gems_of
from domain.layoffs import register_extension, stash_extender
from domain.melds import MeldSolver, pool_templates

STASH = "stash"
QUEENS_DIAMONDS = "queens_diamonds"
QUEENS = ("QC", "QD", "QH", "QS")
STASH_SIZE = 4

register_extension(STASH, stash_extender(gems_of))


def gem_templates(diamond: str) -> tuple[tuple[str, tuple[str, ...], str | None], ...]:
    """The gem melds as solver templates: stashes tagged with their gem, Queen's Diamonds."""
    stashes = tuple(t for gem in GEMS for t in pool_templates(STASH, gem_pool(gem), gem,
                                                               STASH_SIZE))
    return stashes + tuple((QUEENS_DIAMONDS, (queen, diamond), None) for queen in QUEENS)


@cache
def gem_solver(diamond: str) -> MeldSolver:
    """The solver of a hand whose designated diamond is ``diamond`` (pip values)."""
    return MeldSolver(values=pip_value, extra_templates=gem_templates(diamond))
