"""A match as everything outside the rules holds it: one value folded from the log.

``Match`` is the family's state, the match's clock, its version and the head of its hash
chain, all as of one stored event. ``Match.apply`` is the one fold of stored events into
it, used alike by the server's repository, the offline verifier and the audit of uploaded
logs; ``domain.evolving.fold`` is the same fold for events not stored yet (a decision, a
system step).

``Match`` is one of the two aggregates (``domain.aggregate``) the repository loads and the
runner writes to; the tournament is the other.

``Match.owed`` answers "what does this match owe the outside world now": the system step
it awaits, the deadline of its running turn's clock, a computer player's turn. Whatever
schedules, reconciles or rebuilds background work asks it, and nothing else. ``OWED``
lists every kind of owed work: each says when it is due and names the work-index kind it
is kept under; the use-case layer's table (``service.usecases.obligations``) adds how far
ahead to mark it and the command that pays it. A new kind of work is one more class here
and one more row there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from domain.aggregate import Recorded
from domain.bot_seats import BotSeat, bots_of, is_seating
from domain.chain import GENESIS_HASH
from domain.clocks import Clock, track
from domain.controls import FINAL_PHASES
from domain.events import CLOCK_SET, Event
from domain.evolving import fold
from domain.rematch import Rematch, is_rematch_event
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
class StepDue:
    """The match awaits a system step (``domain.steps``): score the ended hand (and deal
    the next), or pay the bonuses. Due at once."""

    step: SystemStep
    kind: ClassVar[str] = "steps"

    @classmethod
    def of(cls, match: Match) -> StepDue | None:
        step = pending_step(match.variant, match.state)
        return None if step is None else cls(step)

    def due(self, now: float) -> float:
        return now


@dataclass(frozen=True)
class DeadlineDue:
    """A clocked turn runs: ``seat`` must move by ``deadline`` (epoch seconds), or the
    clock acts for the turn that started at ``turn_version`` (``domain.clocks``). Due at
    the deadline. No turn runs while the match awaits a step (its ``turn`` is None), so
    the two are never owed together."""

    seat: int
    deadline: float
    turn_version: int
    kind: ClassVar[str] = "clocks"

    @classmethod
    def of(cls, match: Match) -> DeadlineDue | None:
        clock = match.clock
        if clock is None or clock.seat is None or clock.deadline is None:
            return None
        return cls(clock.seat, clock.deadline, clock.started_version)

    def due(self, now: float) -> float:
        return self.deadline


@dataclass(frozen=True)
class BotTurn:
    """A computer player holds the seat to act (``domain.bot_seats``): it moves for the
    match as it stood at ``version``, once its think time has run from the event that left
    the match there. Due at that fixed time, so the reconciler and the timer agree on it
    whenever they look. Not while a system step is pending, nor once the match is over."""

    seat: int
    level: str
    version: int
    due_at: float
    kind: ClassVar[str] = "bots"

    @classmethod
    def of(cls, match: Match) -> BotTurn | None:
        seat = match.state.turn
        bot = match.bots.get(seat) if seat is not None and match.bots else None
        if (seat is None or bot is None or match.is_over
                or pending_step(match.variant, match.state) is not None):
            return None
        return cls(seat, bot.level, match.version, round(match.at + bot.think_ms / 1000, 3))

    def due(self, now: float) -> float:
        return self.due_at


Owed = StepDue | DeadlineDue | BotTurn
"""What a match owes the outside world now. Every kind has ``kind`` (its name in the work
index: ``{prefix}:work:<kind>``), ``of(match)`` (the one it owes now, or None) and
``due(now)`` (when it is due: ``now`` for at once)."""

OWED: tuple[type[Owed], ...] = (StepDue, DeadlineDue, BotTurn)
"""Every kind of owed work, in the order ``Match.owed`` lists them."""

@dataclass(frozen=True)
class Ahead:
    """Events decided against a match and folded before they are stored: the state they
    lead to, and the seat to act after each (the clock needs them once the store has
    given the events their times)."""

    before: Match
    events: tuple[Event, ...]
    state: Any
    turns: tuple[int | None, ...]

    def owed(self, at: float) -> tuple[Owed, ...]:
        """What the match will owe once these events are stored, were the store to give
        them the time ``at``: ``Match.owed`` of the match they lead to, so a follow-up
        that notes work ahead of an append asks the same rule as the one after it."""
        records = [Recorded(event, self.before.version + number, at, "")
                   for number, event in enumerate(self.events, 1)]
        return self.before.stored(self, records).owed() if records else self.before.owed()


@dataclass(frozen=True)
class Match:
    """One match as of ``version``: the fold of its first ``version`` stored events."""

    variant: Variant
    state: FamilyState
    version: int = 0
    head_hash: str = GENESIS_HASH
    clock: Clock | None = None
    bots: Mapping[int, BotSeat] = field(default_factory=dict)
    """The seats computer players hold (``BotsSeated``), by seat; empty for people only."""
    at: float = 0.0
    """When the last event was stored (epoch seconds): a bot's think time runs from it."""
    rematch: Rematch = Rematch()
    """Its rematch (``domain.rematch``): offers and answers logged after its end."""

    @classmethod
    def new(cls, variant: Variant) -> Match:
        """A match before its first event."""
        return cls(variant, variant.initial_state())

    def apply(self, records: Sequence[Recorded]) -> Match:
        """This match after the stored events that follow it, in order."""
        if not records:
            return self
        state, clock, players = self.state, self.clock, len(self.state.players)
        bots, rematch = self.bots, self.rematch
        for record in records:
            state = fold(self.variant, state, (record.event,))
            players = len(state.players)
            if clock is not None or record.event.type == CLOCK_SET.name:
                clock = track(clock, record.event, record.ts, record.version, state.turn,
                              players)
            if is_seating(record.event):
                bots = bots_of(record.event)
            elif is_rematch_event(record.event):
                rematch = rematch.after(record.event)
        last = records[-1]
        return Match(self.variant, state, last.version, last.hash, clock, bots, last.ts,
                     rematch)

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
        clock, bots, rematch = self.clock, self.bots, self.rematch
        for record, turn in zip(records, ahead.turns, strict=True):
            if clock is not None or record.event.type == CLOCK_SET.name:
                clock = track(clock, record.event, record.ts, record.version, turn,
                              len(ahead.state.players))
            if is_seating(record.event):
                bots = bots_of(record.event)
            elif is_rematch_event(record.event):
                rematch = rematch.after(record.event)
        last = records[-1]
        return Match(self.variant, ahead.state, last.version, last.hash, clock, bots,
                     last.ts, rematch)

    @property
    def is_over(self) -> bool:
        """Whether the match has ended for good: complete (its bonuses paid), forfeited
        or aborted. Nothing of the game can be appended to it any more; only its rematch's
        answers (``domain.rematch``)."""
        return self.state.phase in FINAL_PHASES

    @property
    def played_version(self) -> int:
        """The version of its last event of play: its end, once it is over. The rematch's
        events come after it, and no stream of the match shows them (they end at the
        end)."""
        return self.version - self.rematch.events

    def owed(self) -> tuple[Owed, ...]:
        """What the match owes the outside world now, one of each kind at most (``OWED``):
        the system step it awaits, its running turn's deadline, a bot's move; nothing while
        a person's untimed turn runs or once it is over."""
        return tuple(owed for kind in OWED if (owed := kind.of(self)) is not None)
