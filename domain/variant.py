"""The small interface every variant offers: what the application knows of a game.

A game family's package (``domain.gin``, ``domain.gem``, ``domain.rummy``) builds one
``Variant`` per variant it plays (rummy builds two: rummy and rami, one rule set with two
sets of defaults); ``domain.variants`` maps variant names to them. The service and the
workers only ever talk to a ``Variant``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.events import Event
from domain.fairness import Deal, MatchSecrets, shuffled_deck
from domain.options import OptionSpec
from domain.viewer import Viewer


class MatchOpener(Protocol):
    """A family's ``start_match``: the events that open a match, under the current rules
    edition unless ``rules_edition`` names an older one (the verifier, docs/rules.md
    "Editions")."""

    def __call__(self, players: Sequence[str], options: Any, first_dealer: int, deal: Deal,
                 *, rules_edition: int = ...) -> list[Event]: ...


@dataclass(frozen=True)
class Variant:
    """One variant of a game: its family's rules as functions, its options as data."""

    name: str
    description: str
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    parse_options: Callable[[Mapping[str, Any] | None, int], Any]
    deck: Callable[[Any], tuple[str, ...]]
    start_match: MatchOpener
    initial_state: Callable[[], Any]
    evolve: Callable[[Any, Event], Any]
    decide: Callable[[Any, object], list[Event]]
    command: Callable[[int, Mapping[str, Any]], object]
    legal_actions: Callable[[Any, int], list[dict[str, Any]]]
    view: Callable[[Any, Viewer], dict[str, Any]]
    redact_event: Callable[[Event, Viewer], dict[str, Any]]
    best_discard: Callable[[Any, int], dict[str, Any] | None] = lambda state, seat: None
    """Advice to a seat about to discard: ``{"deadwood", "cards"}`` (gin, gem), or None
    (rummy, rami, and whenever it is not that seat's discard)."""
    low_scores_win: bool = False
    """Rummy/rami: scores are minus points, the lowest wins (forfeit rankings use it)."""
    preview: Callable[[Any, object], list[Event]] | None = None
    """``decide`` for a command not sent yet, deciding nothing from cards its sender cannot
    see (gin and gem pick a knock's melds from the knocker's own cards); None where
    ``decide`` already reads only the sender's own cards (rummy, rami)."""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "min_players": self.min_players, "max_players": self.max_players,
                "options": [spec.to_dict() for spec in self.option_specs]}

    def check(self, state: Any, command: object) -> list[Event]:
        """What ``command`` would append now, or its ``RuleError``, told only from what its
        sender knows: a check must never be a way to look at another seat's cards."""
        return (self.preview or self.decide)(state, command)

    def new_deal(self, options: Any, seed: bytes, fixed: dict[str, Any] | None = None) -> Deal:
        """A hand's Deal: the match deck shuffled from the hand's seed (domain.fairness)."""
        return Deal(shuffled_deck(self.deck(options), seed), seed, fixed=dict(fixed or {}))

    def deal_for(self, options: Any, secrets: MatchSecrets, hand_number: int,
                 fixed: dict[str, Any] | None = None) -> Deal:
        return self.new_deal(options, secrets.hand_seed(hand_number), fixed)
