"""What gin and gem share (docs/rules.md 1.3-1.6, 2.2-2.6): the commands and events of a
knocking game, the turn rules, one ``decide`` built from each family's ``KnockingRules``,
the ``evolve`` handlers both fold alike, and the table and seat views.

A family module keeps only what is its own: gin its scoring with 3-4 players and
Oklahoma, gem its dice, gems, stashes and deep draws.
"""

from domain.knocking.commands import (
    DeclareBigGin,
    Discard,
    Draw,
    Knock,
    PassUpcard,
    parse_command,
)
from domain.knocking.deciding import KnockingRules
from domain.knocking.events import EVENT_TYPES, HAND_KNOCKED, UPCARD_PASSED
from domain.knocking.turns import (
    COMPLETE,
    COMPLETING,
    DEALING,
    DISCARD,
    DRAW,
    SCORING,
    UPCARD,
    KnockTable,
    big_gin,
    discard,
    knock,
    pass_upcard,
    require_turn,
)

__all__ = ["COMPLETE", "COMPLETING", "DEALING", "DISCARD", "DRAW", "EVENT_TYPES",
           "HAND_KNOCKED", "SCORING", "UPCARD", "UPCARD_PASSED", "DeclareBigGin", "Discard",
           "Draw", "Knock", "KnockTable", "KnockingRules", "PassUpcard", "big_gin",
           "discard", "knock", "parse_command", "pass_upcard", "require_turn"]
