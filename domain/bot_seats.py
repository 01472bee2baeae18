"""Which seats computer players hold, as a match's log records them.

A match created with bots logs them once, right after its clock's settings, in a
``BotsSeated`` event (``domain.events.BOTS_SEATED``). No family's ``evolve`` sees it:
``Match`` folds it beside the clock, so that what a match owes (a bot's turn,
``domain.match.BotTurn``) stays a pure function of the log. A bot plays through ordinary
seat commands; this module only says whose seats are bots, of which level, and how long
each waits before it moves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.bots.expert.budget import DEFAULT_MS
from domain.events import BOTS_SEATED, Event

THINK_MS_MAX = 5000
"""The longest a bot may wait before it moves: enough to follow it, short of stalling."""
SEARCHING_LEVELS = ("expert",)
"""The levels that search within a budget (``domain.bots.expert.budget``): only their
seats carry ``budget_ms``."""


@dataclass(frozen=True)
class BotSeat:
    """A computer player's seat: its level (``domain.bots.LEVELS``), how long it waits,
    after the event that gave it the turn, before it moves, and, for a level that
    searches, its budget per move (``budget_ms``, the expert's default when None)."""

    level: str
    think_ms: int = 0
    budget_ms: int | None = None

    @property
    def budget(self) -> int | None:
        """The budget of each move: the seat's, the default for a searching level, None
        for a level that does not search."""
        if self.level not in SEARCHING_LEVELS:
            return None
        return DEFAULT_MS if self.budget_ms is None else self.budget_ms

    def to_view(self) -> dict[str, Any]:
        view: dict[str, Any] = {"level": self.level, "think_ms": self.think_ms}
        if self.budget is not None:
            view["budget_ms"] = self.budget
        return view


def seated(bots: Mapping[int, BotSeat]) -> list[Event]:
    """The ``BotsSeated`` event of a new match's bot seats (none for a match of people)."""
    if not bots:
        return []
    return [BOTS_SEATED.event(seats=[{"seat": seat, **bot.to_view()}
                                     for seat, bot in sorted(bots.items())])]


def bots_of(event: Event) -> dict[int, BotSeat]:
    """The bot seats a ``BotsSeated`` event records, by seat."""
    return {int(entry["seat"]): BotSeat(str(entry["level"]), int(entry.get("think_ms", 0)),
                                        entry.get("budget_ms"))
            for entry in event.data["seats"]}


def is_seating(event: Event) -> bool:
    return event.type == BOTS_SEATED.name


def show_bots(view: dict[str, Any], bots: Mapping[int, BotSeat]) -> dict[str, Any]:
    """A view with each seat's ``bot`` (its level, think time and, for the expert, its
    budget; null for a person), so a front end can show which opponents are computer
    players."""
    for entry in view.get("seats", ()):
        if isinstance(entry, dict) and "seat" in entry:
            bot = bots.get(entry["seat"])
            entry["bot"] = None if bot is None else bot.to_view()
    return view
