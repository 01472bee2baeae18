"""Gem Rummy match options (docs/rules.md section 2); defaults are the bold choices there."""

from __future__ import annotations

from dataclasses import dataclass

from domain.options import MatchOptions, OptionSpec


@dataclass(frozen=True)
class GemOptions(MatchOptions):
    """The parsed, immutable options of one gem match; the defaults live here only."""

    target: int = 110
    gin_bonus: int = 25
    big_gin_bonus: int | None = 35
    undercut_bonus: int = 25
    undercut_adds_difference: bool = False
    min_knock_score: int = 11
    gem_parts_knocker: int = 16
    gem_parts_other: int = 8
    may_discard_taken_discard: bool = False
    deep_draw_must_meld: bool = True
    first_dealer: int | None = None
    max_turns: int = 300



_spec = GemOptions.spec


SPECS: tuple[OptionSpec, ...] = (
    _spec("target", "Points that end the match (docs/rules.md 2.5).", minimum=1),
    _spec("gin_bonus", "Bonus for gin, plus the other's deadwood.", minimum=0, maximum=1000),
    _spec("big_gin_bonus", "Bonus for big gin, plus the other's deadwood; null disables it.",
          type_=int, minimum=0, maximum=1000, nullable=True),
    _spec("undercut_bonus", "What a non-knocker with less deadwood than the knocker gets.",
          minimum=0, maximum=1000),
    _spec("undercut_adds_difference",
          "An undercut also scores the deadwood difference (the source says a flat 25)."),
    _spec("min_knock_score", "The least a knocker who is not undercut scores.",
          minimum=0, maximum=1000),
    _spec("gem_parts_knocker", "Gem Parts bonus to the knocker.", minimum=0, maximum=1000),
    _spec("gem_parts_other", "Gem Parts bonus to a non-knocker.", minimum=0, maximum=1000),
    _spec("may_discard_taken_discard",
          "Whether the (deepest) card taken from the discard pile may be discarded that turn; "
          "a deep card that must meld can never go."),
    _spec("deep_draw_must_meld",
          "Three players: a card taken from below the top must belong to a meld after the "
          "turn's discard (docs/rules.md 2.6; the source only compares the game to 500 Rum)."),
    _spec("first_dealer", "Seat of the first dealer; null draws it at random.", type_=int,
          minimum=0, maximum=2, nullable=True),
    _spec("max_turns", "Turns after which a hand ends drawn (docs/rules.md 0).",
          minimum=2, maximum=10000),
)
GemOptions.SPECS = SPECS
