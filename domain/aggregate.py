"""What the one repository and the one command runner ask of an event-sourced aggregate.

A match (``domain.match.Match``) and a tournament (``domain.tournaments.tournament``) are
each one value folded from their own stream of stored events. The repository loads either
the same way (fold from the start, or fast-forward a cached fold with newer events); the
runner writes to either the same way (decide against the loaded version, fold the decided
events once ahead of the append, append at the expected version, hand the result to the
follow-up). What each aggregate owes the outside world (``owed``) is scheduled and paid
through one table of obligations, whatever the aggregate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

from domain.events import Event


@dataclass(frozen=True)
class Recorded:
    """A stored event as a fold needs it: the event (in its current shape), its version,
    its time (epoch seconds, which clocks run on) and its hash."""

    event: Event
    version: int
    ts: float
    hash: str


class OwedWork(Protocol):
    """One piece of work an aggregate owes now: the work-index kind it is kept under and
    when it is due."""

    @property
    def kind(self) -> str: ...

    def due(self, now: float) -> float:
        """When it is due (epoch seconds); ``now`` for at once."""


TIME_GRAIN_S = 0.001
"""The log keeps times to the millisecond, rounded, so an event may carry a time up to
half a millisecond ahead of the clock that stored it: work due from an event's time (a
bot that does not wait) is due now when it falls due within one grain."""


def is_due(owed: OwedWork, now: float) -> bool:
    """Whether ``owed`` is due at ``now`` (``TIME_GRAIN_S``)."""
    return owed.due(now) <= now + TIME_GRAIN_S


class Ahead(Protocol):
    """Events decided against an aggregate, folded once before they are stored."""

    @property
    def before(self) -> Aggregate: ...

    @property
    def events(self) -> tuple[Event, ...]: ...

    def owed(self, at: float) -> tuple[OwedWork, ...]:
        """What the aggregate will owe once these events are stored at ``at``."""


class Aggregate(Protocol):
    """An aggregate as of ``version``: the fold of its first ``version`` stored events."""

    @property
    def version(self) -> int: ...

    @property
    def head_hash(self) -> str:
        """The hash of its last stored event (the chain's genesis before the first)."""

    def apply(self, records: Sequence[Recorded]) -> Self:
        """This aggregate after the stored events that follow it, in order."""

    def ahead(self, events: Sequence[Event]) -> Ahead:
        """``events``, decided against this aggregate, folded once before they are
        stored."""

    def stored(self, ahead: Any, records: Sequence[Recorded]) -> Self:
        """The aggregate once ``ahead`` (what its own ``ahead`` gave) was stored as
        ``records``."""

    @property
    def is_over(self) -> bool:
        """Whether it has ended for good."""

    def owed(self) -> tuple[OwedWork, ...]:
        """What it owes the outside world now, one of each kind at most."""


A = TypeVar("A", bound=Aggregate)
