"""The small interface every game family offers, and the registry of variants.

The service and the workers only ever talk to a ``Family``; the rules of one game live
behind it in that game's own package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.events import Event
from domain.options import OptionSpec
from domain.shuffle import shuffled

PUBLIC = "public"
FULL = "full"
Viewer = int | str
"""Who looks at a match: a seat number, ``PUBLIC`` (no token) or ``FULL`` (organiser)."""


@dataclass(frozen=True)
class Family:
    """One game family: its rules as functions, its options as data."""

    name: str
    description: str
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    parse_options: Callable[[Mapping[str, Any] | None, int], Any]
    deck: Callable[[Any], tuple[str, ...]]
    start_match: Callable[[Sequence[str], Any, int, Sequence[str]], list[Event]]
    initial_state: Callable[[], Any]
    evolve: Callable[[Any, Event], Any]
    decide: Callable[[Any, object], list[Event]]
    command: Callable[[int, Mapping[str, Any]], object]
    legal_actions: Callable[[Any, int], list[dict[str, Any]]]
    view: Callable[[Any, Any], dict[str, Any]]
    redact_event: Callable[[Event, Any], dict[str, Any]]
    awaiting_job: Callable[[Any], str | None]
    job_command: Callable[[str, Any, bytes], object]

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "min_players": self.min_players, "max_players": self.max_players,
                "options": [spec.to_dict() for spec in self.option_specs]}

    def hand_deck(self, options: Any, seed: bytes, hand_number: int) -> tuple[str, ...]:
        """The shuffled deck of hand ``hand_number``, derived from the match seed."""
        return shuffled(self.deck(options), seed, f"deck:{hand_number}")

    def replay(self, events: Sequence[Event]) -> Any:
        """State after ``events``: the fold of ``evolve``."""
        state = self.initial_state()
        for event in events:
            state = self.evolve(state, event)
        return state
