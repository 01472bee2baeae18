"""Enforcing match clocks: the clock's moves for a seat whose time ran out.

The in-process clock timer (embedded mode) and the workers' reconciler (real mode) call
``Clocks.time_out`` when a turn's deadline has come; the decision itself is the domain's
(``domain.clocks.decide_timeout``) and the append goes through the command runner, so a
check that comes twice, or late, appends nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from domain.match import Match
from service.ports import StoredEvent
from service.usecases.commands import TimeOut
from service.usecases.errors import NotFound
from service.usecases.runner import CommandRunner

AUTO_MOVES = 4
"""At most this many automatic moves per timeout (gin: draw, then discard)."""


class Clocks:
    """Time-outs through the command runner; ``reschedule`` times a turn again (the
    background work's ``after``) when a check came before its deadline."""

    def __init__(self, runner: CommandRunner, reschedule: Callable[[str, Match], None],
                 clock: Callable[[], float] = time.time) -> None:
        self.runner = runner
        self._reschedule = reschedule
        self._clock = clock

    def on_deadline(self, match_id: str, turn_version: int) -> None:
        """A timer's call at a turn's deadline: time it out, or time it again when the
        check came early."""
        try:
            if self.time_out(match_id, turn_version):
                return
            match = self.runner.repository.get(match_id)
        except NotFound:  # deleted since (embedded retention): no clock left to check
            return
        if match.clock is not None and match.clock.started_version == turn_version:
            self._reschedule(match_id, match)

    def time_out(self, match_id: str, turn_version: int | None = None,
                 now: float | None = None) -> tuple[StoredEvent, ...]:
        """Apply the clock to the running turn (the one that started at ``turn_version``,
        when given) if its deadline has passed; the events appended."""
        now = self._clock() if now is None else now
        if turn_version is None:
            clock = self.runner.repository.get(match_id).clock
            if clock is None or clock.seat is None:
                return ()
            turn_version = clock.started_version
        appended: list[StoredEvent] = []
        for _ in range(AUTO_MOVES):
            outcome = self.runner.run(match_id, TimeOut(turn_version, now))
            if not outcome.appended:
                break
            appended += outcome.appended
        return tuple(appended)

    def deadline(self, match_id: str) -> tuple[int, float] | None:
        """(turn's started version, deadline) of the running turn; None when none runs."""
        owed = self.runner.repository.get(match_id).deadline_owed
        return None if owed is None else (owed.turn_version, owed.deadline)
