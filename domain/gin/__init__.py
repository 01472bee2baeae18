"""Gin Rummy (docs/rules.md section 1) as a ``Variant``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.gin import rules, views
from domain.gin.options import SPECS, GinOptions
from domain.gin.state import evolve, initial_state
from domain.knocking import parse_command
from domain.variant import Variant


def command(seat: int, action: Mapping[str, Any]) -> object:
    """A seat's action object (already shape-checked by the API) as a command."""
    return parse_command("gin", seat, action)


GIN = Variant(
    name="gin",
    description="Gin Rummy: 2 players (3-4 as an option), 10 cards, knock or gin.",
    min_players=2,
    max_players=4,
    option_specs=SPECS,
    parse_options=GinOptions.parse,
    deck=rules.match_deck,
    start_match=rules.start_match,
    initial_state=initial_state,
    evolve=evolve,
    decide=rules.decide,
    preview=rules.preview,
    command=command,
    legal_actions=rules.legal_actions,
    view=views.view,
    redact_event=views.redact_event,
    best_discard=views.best_discard,
)
