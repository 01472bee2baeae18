"""The commands the runner executes, whoever sends them: a seat, a system step, an
organiser, a clock. Each turns the match as loaded into a ``Decision`` with the pure domain
and nothing else; ``None`` means there is nothing to do (a step that already ran, a turn
that is no longer running), which makes every background command safe to run twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.clocks import decide_timeout
from domain.controls import Control, ending_events, stored_command
from domain.events import Event
from domain.fairness import MatchSecrets
from domain.match import Match, StepDue
from domain.steps import decide_step


@dataclass(frozen=True)
class Decision:
    """Events to append, the id of the command that caused them, and what the log keeps
    of that command (stored and hashed with the first event)."""

    events: list[Event]
    command_id: str
    command: dict[str, Any] | None = None


class Command(Protocol):
    @property
    def retry_on_conflict(self) -> bool:
        """Decide again on a newer version when another writer got there first."""

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None: ...


@dataclass(frozen=True)
class SeatAction:
    """A seat's move, as sent; decided by the family's rules."""

    seat: int
    action: Mapping[str, Any] = field(hash=False)
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision:
        variant = match.variant
        events = variant.decide(match.state, variant.command(self.seat, self.action))
        return Decision(events, self.command_id, {"seat": self.seat, "action": dict(self.action)})


@dataclass(frozen=True)
class RunStep:
    """The system step the match waits for (``domain.steps``): nothing when it waits for
    none (a step that ran already)."""

    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        owed = StepDue.of(match)
        if owed is None:
            return None
        events = decide_step(match.variant, match.state, owed.step, secrets)
        return Decision(events, f"job:{owed.step.name}:{match.version}")


@dataclass(frozen=True)
class EndMatch:
    """An organiser's forfeit or abort (``domain.controls``), with the seed reveals that
    keep the log verifiable."""

    control: Control
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision:
        events = ending_events(match.variant, match.state, self.control, secrets)
        return Decision(events, self.command_id, stored_command(self.control))


@dataclass(frozen=True)
class TimeOut:
    """The clock's move for a seat whose turn ran out at ``now`` (``domain.clocks``): only
    for the turn that started at ``turn_version``, and only once its deadline has passed."""

    turn_version: int
    now: float
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        clock = match.clock
        if clock is None or clock.started_version != self.turn_version:
            return None
        decided = decide_timeout(match.variant, match.state, clock, match.version, secrets,
                                 self.now)
        if decided is None:
            return None
        return Decision(decided.events, decided.command_id, decided.command)
