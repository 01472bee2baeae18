"""Gin Rummy match options (RULES.md section 1); defaults are the bold choices there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from domain.errors import OptionError
from domain.options import OptionSpec, parse_options

SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("target", int, 100, "Hand points that end the match (100, 250, 500 usual).",
               minimum=1),
    OptionSpec("decks", int, 1, "Packs of 52 in the deck.", choices=(1, 2)),
    OptionSpec("jokers", int, 0, "Wild jokers added to the deck (RULES.md 1.7).",
               choices=(0, 1, 2)),
    OptionSpec("joker_deadwood", int, 15, "Deadwood value of an unmelded joker.",
               minimum=0, maximum=100),
    OptionSpec("knock_limit", int, 10, "Highest deadwood a knock may leave.",
               minimum=0, maximum=100),
    OptionSpec("gin_bonus", int, 25, "Bonus for gin (seed gin-rummy-a: 20).",
               minimum=0, maximum=1000),
    OptionSpec("big_gin_bonus", int, 31, "Bonus for big gin (50 also usual); null disables it.",
               minimum=0, maximum=1000, nullable=True),
    OptionSpec("undercut_bonus", int, 25, "Bonus to a defender who undercuts (10, 20 also).",
               minimum=0, maximum=1000),
    OptionSpec("undercut_on_tie", bool, True,
               "A tie in deadwood is an undercut; false: nobody scores (seed gin-rummy-b)."),
    OptionSpec("may_discard_taken_discard", bool, False,
               "Whether the card just taken from the discard pile may be discarded."),
    OptionSpec("next_dealer", str, "alternate", "Who deals the next hand.",
               choices=("alternate", "loser", "winner")),
    OptionSpec("first_dealer", int, None, "Seat of the first dealer; null draws it at random.",
               minimum=0, maximum=3, nullable=True),
    OptionSpec("oklahoma", bool, False, "The first upcard sets the hand's knock limit (1.9)."),
    OptionSpec("oklahoma_ace", str, "gin_only", "Oklahoma with an ace upcard.",
               choices=("gin_only", "one")),
    OptionSpec("oklahoma_spades_double", bool, False,
               "Oklahoma: a spade upcard doubles every score of the hand."),
    OptionSpec("game_bonus", int, 100, "End-of-match bonus to the winner.",
               minimum=0, maximum=10000),
    OptionSpec("shutout_bonus", int, 200, "Replaces game_bonus when the loser scored nothing.",
               minimum=0, maximum=10000),
    OptionSpec("line_bonus", int, 25, "End-of-match bonus per hand won (seed gin-rummy-a: 20).",
               minimum=0, maximum=1000),
    OptionSpec("max_turns", int, 300, "Turns after which a hand ends drawn (RULES.md 0).",
               minimum=2, maximum=10000),
)


@dataclass(frozen=True)
class GinOptions:
    """The parsed, immutable options of one gin match."""

    target: int = 100
    decks: int = 1
    jokers: int = 0
    joker_deadwood: int = 15
    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int | None = 31
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    may_discard_taken_discard: bool = False
    next_dealer: str = "alternate"
    first_dealer: int | None = None
    oklahoma: bool = False
    oklahoma_ace: str = "gin_only"
    oklahoma_spades_double: bool = False
    game_bonus: int = 100
    shutout_bonus: int = 200
    line_bonus: int = 25
    max_turns: int = 300

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, players: int) -> "GinOptions":
        """Validate client options for a match of ``players`` seats."""
        options = cls(**parse_options(SPECS, raw))
        if options.first_dealer is not None and options.first_dealer >= players:
            raise OptionError("first_dealer", f"must be a seat below {players}")
        return options

    def to_dict(self) -> dict[str, Any]:
        return {spec.name: getattr(self, spec.name) for spec in SPECS}
