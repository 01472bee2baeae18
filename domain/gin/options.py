"""Gin Rummy match options (docs/rules.md section 1); defaults are the bold choices there."""

from __future__ import annotations

from dataclasses import dataclass

from domain.options import MatchOptions, OptionSpec


@dataclass(frozen=True)
class GinOptions(MatchOptions):
    """The parsed, immutable options of one gin match; the defaults live here only."""

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



_spec = GinOptions.spec


SPECS: tuple[OptionSpec, ...] = (
    _spec("target", "Hand points that end the match (100, 250, 500 usual).", minimum=1),
    _spec("decks", "Packs of 52 in the deck.", choices=(1, 2)),
    _spec("jokers", "Wild jokers added to the deck (docs/rules.md 1.7).", choices=(0, 1, 2)),
    _spec("joker_deadwood", "Deadwood value of an unmelded joker.", minimum=0, maximum=100),
    _spec("knock_limit", "Highest deadwood a knock may leave.", minimum=0, maximum=100),
    _spec("gin_bonus", "Bonus for gin (seed gin-rummy-a: 20).", minimum=0, maximum=1000),
    _spec("big_gin_bonus", "Bonus for big gin (50 also usual); null disables it.",
          minimum=0, maximum=1000, nullable=True),
    _spec("undercut_bonus", "Bonus to a defender who undercuts (10, 20 also).",
          minimum=0, maximum=1000),
    _spec("undercut_on_tie",
          "A tie in deadwood is an undercut; false: nobody scores (seed gin-rummy-b)."),
    _spec("may_discard_taken_discard",
          "Whether the card just taken from the discard pile may be discarded."),
    _spec("next_dealer", "Who deals the next hand.", choices=("alternate", "loser", "winner")),
    _spec("first_dealer", "Seat of the first dealer; null draws it at random.", type_=int,
          minimum=0, maximum=3, nullable=True),
    _spec("oklahoma", "The first upcard sets the hand's knock limit (docs/rules.md 1.9)."),
    _spec("oklahoma_ace", "Oklahoma with an ace upcard.", choices=("gin_only", "one")),
    _spec("oklahoma_spades_double", "Oklahoma: a spade upcard doubles every score of the hand."),
    _spec("game_bonus", "End-of-match bonus to the winner.", minimum=0, maximum=10000),
    _spec("shutout_bonus", "Replaces game_bonus when the loser scored nothing.",
          minimum=0, maximum=10000),
    _spec("line_bonus", "End-of-match bonus per hand won (seed gin-rummy-a: 20).",
          minimum=0, maximum=1000),
    _spec("max_turns", "Turns after which a hand ends drawn (docs/rules.md 0).",
          minimum=2, maximum=10000),
)
GinOptions.SPECS = SPECS
