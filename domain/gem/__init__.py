"""Gem Rummy (docs/rules.md section 2) as a ``Variant``: gin for two or three, with a gem deck."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.gem import dealing, gems, rules, views
from domain.gem.options import SPECS, GemOptions
from domain.gem.state import evolve, initial_state
from domain.knocking import parse_command
from domain.variant import Variant


def command(seat: int, action: Mapping[str, Any]) -> object:
    """A seat's action object (already shape-checked by the API) as a command; a draw may
    go deep into the three-player spread discard pile."""
    return parse_command("gem", seat, action, deep_draws=True)


class GemFamily(Variant):
    """A ``Variant`` whose description also carries the gem deck (docs/rules.md 2.1)."""

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), **gems.describe()}


GEM = GemFamily(
    name="gem",
    description="Gem Rummy: 2 or 3 players, 11 cards, gin with a gem deck, dice, stashes "
                "and Queen's Diamonds.",
    min_players=2,
    max_players=3,
    option_specs=SPECS,
    parse_options=GemOptions.parse,
    deck=dealing.match_deck,
    start_match=dealing.start_match,
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
