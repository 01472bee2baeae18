"""A match as everything outside the rules holds it: one value folded from the log.

``Match`` is the family's state, the match's clock, its version and the head of its hash
chain, all as of one stored event. ``Match.apply`` is the one fold of stored events into
it, used alike by the server's repository, the offline verifier and the audit of uploaded
logs; ``domain.evolving.fold`` is the same fold for events not stored yet (a decision, a
system step).

``Match.owed`` answers "what does this match owe the outside world now": the system step
it awaits, or the deadline of its running turn's clock. Whatever schedules, reconciles or
rebuilds background work asks it, and nothing else; a bot's turn will be one more kind of
``Owed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from domain.chain import GENESIS_HASH
from domain.clocks import Clock, track
from domain.controls import FINAL_PHASES
from domain.events import CLOCK_SET, Event
from domain.evolving import fold
from domain.steps import SystemStep, pending_step

if TYPE_CHECKING:
    from domain.variant import Variant


class FamilyState(Protocol):
    """What every family's state offers beyond its own rules: where the match stands."""

    @property
    def phase(self) -> str: ...

    @property
    def turn(self) -> int | None:
        """The seat to act now; None between hands and once the match is over."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def scores(self) -> tuple[int, ...]: ...

    @property
    def hand_number(self) -> int: ...

    @property
    def completion(self) -> Mapping[str, Any] | None:
        """The ``MatchCompleted`` payload once the match has reached its end."""


@dataclass(frozen=True)
class Recorded:
    """A stored event as the fold needs it: the event (in its current shape), its version,
    its time (epoch seconds, which the clock runs on) and its hash."""

    event: Event
    version: int
    ts: float
    hash: str


@dataclass(frozen=True)
class StepDue:
    """The match awaits a system step (``domain.steps``): score the ended hand (and deal
    the next), or pay the bonuses."""

    step: SystemStep


@dataclass(frozen=True)
class DeadlineDue:
    """A clocked turn runs: ``seat`` must move by ``deadline`` (epoch seconds), or the
    clock acts for the turn that started at ``turn_version`` (``domain.clocks``)."""

    seat: int
    deadline: float
    turn_version: int


Owed = StepDue | DeadlineDue
"""What a match owes the outside world now."""


@dataclass(frozen=True)
class Ahead:
    """Events decided against a match and folded before they are stored: the state they
    lead to, and the seat to act after each (the clock needs them once the store has
    given the events their times)."""

    before: Match
    events: tuple[Event, ...]
    state: Any
    turns: tuple[int | None, ...]

    @property
    def owes_step(self) -> bool:
        """Whether the match will await a system step once these events are stored."""
        return pending_step(self.before.variant, self.state) is not None

    @property
    def owes_deadline(self) -> bool:
        """Whether a clocked turn will run once these events are stored."""
        clocked = self.before.clock is not None or any(
            event.type == CLOCK_SET.name for event in self.events)
        return clocked and self.state.turn is not None


@dataclass(frozen=True)
class Match:
    """One match as of ``version``: the fold of its first ``version`` stored events."""

    variant: Variant
    state: FamilyState
    version: int = 0
    head_hash: str = GENESIS_HASH
    clock: Clock | None = None

    @classmethod
    def new(cls, variant: Variant) -> Match:
        """A match before its first event."""
        return cls(variant, variant.initial_state())

    def apply(self, records: Sequence[Recorded]) -> Match:
        """This match after the stored events that follow it, in order."""
        if not records:
            return self
        state, clock, players = self.state, self.clock, len(self.state.players)
        for record in records:
            state = fold(self.variant, state, (record.event,))
            players = len(state.players)
            if clock is not None or record.event.type == CLOCK_SET.name:
                clock = track(clock, record.event, record.ts, record.version, state.turn,
                              players)
        last = records[-1]
        return Match(self.variant, state, last.version, last.hash, clock)

    def ahead(self, events: Sequence[Event]) -> Ahead:
        """``events``, decided against this match, folded once before they are stored."""
        state, turns = self.state, []
        for event in events:
            state = fold(self.variant, state, (event,))
            turns.append(state.turn)
        return Ahead(self, tuple(events), state, tuple(turns))

    def stored(self, ahead: Ahead, records: Sequence[Recorded]) -> Match:
        """The match once ``ahead`` was stored as ``records``: the state as folded ahead,
        the clock run on the times the store gave the events."""
        clock = self.clock
        for record, turn in zip(records, ahead.turns, strict=True):
            if clock is not None or record.event.type == CLOCK_SET.name:
                clock = track(clock, record.event, record.ts, record.version, turn,
                              len(ahead.state.players))
        last = records[-1]
        return Match(self.variant, ahead.state, last.version, last.hash, clock)

    @property
    def is_over(self) -> bool:
        """Whether the match has ended for good: complete (its bonuses paid), forfeited
        or aborted. Nothing can be appended to it any more."""
        return self.state.phase in FINAL_PHASES

    def owed(self) -> tuple[Owed, ...]:
        """What the match owes the outside world now: the system step it awaits, or its
        running turn's deadline; nothing while a seat's untimed turn runs or once it is
        over."""
        step = pending_step(self.variant, self.state)
        if step is not None:
            return (StepDue(step),)
        clock = self.clock
        if clock is not None and clock.seat is not None and clock.deadline is not None:
            return (DeadlineDue(clock.seat, clock.deadline, clock.started_version),)
        return ()


    @property
    def step_owed(self) -> SystemStep | None:
        """The system step the match awaits (``owed``), if any."""
        return next((owed.step for owed in self.owed() if isinstance(owed, StepDue)), None)

    @property
    def deadline_owed(self) -> DeadlineDue | None:
        """The running turn's deadline (``owed``), if a clocked turn runs."""
        return next((owed for owed in self.owed() if isinstance(owed, DeadlineDue)), None)
