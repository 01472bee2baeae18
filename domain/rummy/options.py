"""Rummy and Rami match options (docs/rules.md section 3); the two variants differ in defaults.

``rummy`` opens with 40 from a player's first turn, ``rami`` with 51 from the second.
Everything else is shared, so one options class serves both families.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from domain.options import OptionSpec, check_first_dealer, parse_options

MAX_PLAYERS = 6


@dataclass(frozen=True)
class RummyOptions:
    """The parsed, immutable options of one match (rummy defaults)."""

    opening_minimum: int = 40
    opening_turn: int = 1
    rounds: int | None = None
    penalty_limit: int | None = None
    first_dealer: int | None = None
    max_turns: int = 300

    def to_dict(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


RUMMY_DEFAULTS = RummyOptions()
RAMI_DEFAULTS = RummyOptions(opening_minimum=51, opening_turn=2)


def specs(defaults: RummyOptions) -> tuple[OptionSpec, ...]:
    """The options a client may set, described with this variant's defaults."""
    return (
        OptionSpec("opening_minimum", int, defaults.opening_minimum,
                   "Points the first placement of each player must reach (docs/rules.md 3.4).",
                   minimum=0, maximum=200),
        OptionSpec("opening_turn", int, defaults.opening_turn,
                   "The player's own turn from which they may open: 1 (rummy) or 2 (rami).",
                   choices=(1, 2)),
        OptionSpec("rounds", int, defaults.rounds,
                   "Rounds in the game; null: one per player, so everyone deals once.",
                   minimum=1, maximum=100, nullable=True),
        OptionSpec("penalty_limit", int, defaults.penalty_limit,
                   "The game also ends once someone has this many minus points; null: never.",
                   minimum=1, maximum=100000, nullable=True),
        OptionSpec("first_dealer", int, defaults.first_dealer,
                   "Seat of the first dealer; null draws it at random.",
                   minimum=0, maximum=MAX_PLAYERS - 1, nullable=True),
        OptionSpec("max_turns", int, defaults.max_turns,
                   "Turns after which a round is void (docs/rules.md 0).",
                   minimum=2, maximum=10000),
    )


def parser(defaults: RummyOptions) -> Any:
    """``Variant.parse_options`` for a variant: client options over ``defaults``."""
    variant_specs = specs(defaults)

    def parse(raw: Mapping[str, Any] | None, players: int) -> RummyOptions:
        options = RummyOptions(**parse_options(variant_specs, raw))
        check_first_dealer(options.first_dealer, players)
        if options.rounds is None:
            options = RummyOptions(**{**options.to_dict(), "rounds": players})
        return options

    return parse
