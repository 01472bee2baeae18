"""Match clocks: a per-turn limit and/or a per-seat time bank, computed from event times.

A match created with a clock records its settings in a ``ClockSet`` event (right after
``SeedCommitted``; no family's ``evolve`` sees it). Everything else follows from the
stored events' timestamps, so a replay of the log shows the same clock:

- A seat's **turn** starts with the event after which it became the seat to act (``turn``
  changed to it) and ends with the event after which it no longer is. Drawing and then
  discarding is one turn; while a job is awaited (scoring, dealing) no clock runs.
- With ``turn_seconds`` T a turn may last T seconds. With ``bank_seconds`` B each seat also
  has a bank of B seconds for the whole match: time a turn takes beyond T (or all of it,
  without T) is taken from the seat's bank when the turn ends (never below 0).
- The **deadline** of the running turn = its start + T (if set) + the seat's bank (if set).
- When the deadline passes and the seat has not moved, ``on_timeout`` applies: ``forfeit``
  (the seat loses the match, ``domain.controls``) or ``auto_play`` (``domain.bots.policies.
  safe``: a safe move is made for the seat, and its turn goes on if the move did not end
  it; the policy sits with every other automatic move, and must never change, since the
  verifier re-runs it on stored logs).
  ``decide_timeout`` is that decision, made alike by the server when a deadline passes
  and by the verifier when it meets a ``clock:`` command in the log.

``Clock`` is the fold of ``track`` over (event, ts, version, turn after the event).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from domain import controls
from domain.bots.policies import safe
from domain.errors import OptionError, RuleError
from domain.events import CLOCK_SET, Event
from domain.steps import StepSecrets

if TYPE_CHECKING:
    from domain.variant import Variant

ON_TIMEOUT = ("forfeit", "auto_play")
TIMEOUT_REASON = "time ran out"
"""The reason a clock's forfeit records."""
MIN_SECONDS = 0.1
MAX_SECONDS = 7 * 24 * 3600


def _seconds(data: Mapping[str, Any], name: str) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise OptionError(name, "must be a number of seconds or null")
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise OptionError(name, f"must be between {MIN_SECONDS} and {MAX_SECONDS} seconds")
    return round(float(value), 3)


@dataclass(frozen=True)
class ClockSettings:
    """A match's clock: at least one of the two limits, and what a timeout does."""

    turn_seconds: float | None = None
    bank_seconds: float | None = None
    on_timeout: str = "forfeit"

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> ClockSettings:
        """Checked settings from a request or a ``ClockSet`` event (``OptionError``)."""
        unknown = set(data) - {"turn_seconds", "bank_seconds", "on_timeout"}
        if unknown:
            raise OptionError(sorted(unknown)[0], "unknown clock setting")
        on_timeout = data.get("on_timeout", "forfeit")
        if on_timeout not in ON_TIMEOUT:
            raise OptionError("on_timeout", f"must be one of {list(ON_TIMEOUT)}")
        settings = cls(_seconds(data, "turn_seconds"), _seconds(data, "bank_seconds"),
                       on_timeout)
        if settings.turn_seconds is None and settings.bank_seconds is None:
            raise OptionError("turn_seconds", "a clock needs turn_seconds, bank_seconds or both")
        return settings

    def to_dict(self) -> dict[str, Any]:
        return {"turn_seconds": self.turn_seconds, "bank_seconds": self.bank_seconds,
                "on_timeout": self.on_timeout}

    def event(self) -> Event:
        return CLOCK_SET.event(self.to_dict())


@dataclass(frozen=True)
class Clock:
    """The clock as of one version: banks left, and the running turn (if any)."""

    settings: ClockSettings
    banks: tuple[float, ...]
    seat: int | None = None
    started_at: float | None = None
    started_version: int = 0

    @classmethod
    def start(cls, settings: ClockSettings, players: int) -> Clock:
        bank = settings.bank_seconds or 0.0
        return cls(settings, (bank,) * players)

    @property
    def deadline(self) -> float | None:
        """When the running turn's time is up (epoch seconds), None when no turn runs."""
        if self.seat is None or self.started_at is None:
            return None
        limit = self.settings.turn_seconds or 0.0
        if self.settings.bank_seconds is not None:
            limit += self.banks[self.seat]
        return round(self.started_at + limit, 3)

    def step(self, turn: int | None, ts: float, version: int) -> Clock:
        """The clock after an event at ``ts`` after which ``turn`` is the seat to act."""
        if turn == self.seat:
            return self
        banks = self.banks
        if self.seat is not None and self.started_at is not None:
            banks = self._charged(self.seat, ts - self.started_at)
        if turn is None:
            return replace(self, banks=banks, seat=None, started_at=None, started_version=0)
        return replace(self, banks=banks, seat=turn, started_at=ts, started_version=version)

    def _charged(self, seat: int, used: float) -> tuple[float, ...]:
        if self.settings.bank_seconds is None:
            return self.banks
        over = max(0.0, used - (self.settings.turn_seconds or 0.0))
        banks = list(self.banks)
        banks[seat] = round(max(0.0, banks[seat] - over), 3)
        return tuple(banks)

    def expired(self, now: float) -> bool:
        deadline = self.deadline
        return deadline is not None and now >= deadline

    def to_view(self) -> dict[str, Any]:
        return {**self.settings.to_dict(), "turn_seat": self.seat,
                "turn_started_at": self.started_at, "turn_started_version":
                self.started_version or None, "deadline": self.deadline,
                "banks": list(self.banks) if self.settings.bank_seconds is not None else None}


def track(clock: Clock | None, event: Event, ts: float, version: int, turn: int | None,
          players: int) -> Clock | None:
    """The clock after one stored event (``turn``: the seat to act after it)."""
    if event.type == CLOCK_SET.name:
        clock = Clock.start(ClockSettings.parse(event.data), players)
    return None if clock is None else clock.step(turn, ts, version)


# --- timeouts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeoutDecision:
    """What the clock does to a seat whose deadline passed, as the log stores it."""

    events: list[Event]
    command: dict[str, Any]
    """``{"seat", "action", "auto": True}`` for an automatic move, the stored control
    (``controls.stored_command``) for a forfeit."""
    command_id: str
    """``clock:<seat>:<turn's started version>:<version>`` for an automatic move (a turn
    may take several), ``clock:<seat>:<turn's started version>:forfeit`` for a forfeit."""


def decide_timeout(variant: Variant, state: Any, clock: Clock, version: int,
                   secrets: StepSecrets, now: float) -> TimeoutDecision | None:
    """None unless the running turn's deadline has passed at ``now``; then the seat's
    automatic move (``auto_play``) or its forfeit (``forfeit``, or no safe move exists).

    ``version`` is the match's version the decision is appended after.
    """
    seat = clock.seat
    if seat is None or not clock.expired(now):
        return None
    turn = f"clock:{seat}:{clock.started_version}"
    if clock.settings.on_timeout == "auto_play":
        move = _auto_move(variant, state, seat)
        if move is not None:
            action, events = move
            return TimeoutDecision(events, {"seat": seat, "action": action, "auto": True},
                                   f"{turn}:{version}")
    forfeit = controls.ForfeitSeat(seat, TIMEOUT_REASON, "clock")
    return TimeoutDecision(controls.ending_events(variant, state, forfeit, secrets),
                           controls.stored_command(forfeit), f"{turn}:forfeit")


def _auto_move(variant: Variant, state: Any,
               seat: int) -> tuple[dict[str, Any], list[Event]] | None:
    """The ``safe`` policy's move and its events; None when no safe move exists or it
    causes nothing, so the seat forfeits instead."""
    best = (variant.best_discard(state, seat) or {}).get("cards")
    action = safe(variant.legal_actions(state, seat), best)
    if action is None:
        return None
    try:
        events = variant.decide(state, variant.command(seat, action))
    except RuleError:
        return None
    return (action, events) if events else None
