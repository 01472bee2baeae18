"""Rummy and Rami (docs/rules.md section 3) as two ``Variant`` objects sharing one rule set.

They differ only in option defaults: ``rummy`` opens with 40 from a player's first turn,
``rami`` with 51 from the second.
"""

from __future__ import annotations

from functools import partial

from domain.rummy import rules, views
from domain.rummy.actions import command, legal_actions
from domain.rummy.options import RAMI_DEFAULTS, RUMMY_DEFAULTS, RummyOptions, parser, specs
from domain.rummy.state import evolve, initial_state
from domain.variant import Variant


def _family(name: str, description: str, defaults: RummyOptions) -> Variant:
    return Variant(
        name=name,
        description=description,
        min_players=2,
        max_players=6,
        option_specs=specs(defaults),
        parse_options=parser(defaults),
        deck=rules.match_deck,
        start_match=partial(rules.start_match, name),
        initial_state=initial_state,
        evolve=evolve,
        decide=rules.decide,
        command=command,
        legal_actions=legal_actions,
        view=views.view,
        redact_event=views.redact_event,
        low_scores_win=True,
    )


RUMMY = _family("rummy", "Rummy: two packs and six jokers, 2-6 players, 13 cards, melds on "
                "the table; open with 40 from your first turn.", RUMMY_DEFAULTS)
RAMI = _family("rami", "Rami: as rummy, but open with 51, and only from your second turn.",
               RAMI_DEFAULTS)
