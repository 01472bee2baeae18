"""Background work, as the two ways to run give it: queued for workers, or in-process.

Each class is both the runner's ``FollowUp`` (what an append leaves to do) and the use
cases' way to start other work (verify a log, deliver webhooks):

- ``QueuedWork`` (real mode): marks the match in the work index (``service.ports.WorkIndex``)
  before the append and due after it, wakes a worker, and indexes the running turn's
  deadline; workers (``python -m workers``) run what falls due. Verifications and webhook
  deliveries are RQ jobs.
- ``InProcessWork`` (embedded mode): times clocks on one daemon thread and delivers
  webhooks on a few; the command runner runs each system step right after the append
  that makes it due, on the same thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from domain.match import Ahead, DeadlineDue, Match, StepDue
from service.ports import CLOCKS, STEPS, ClockTimer, Deliveries, DeliveryRef, Jobs, WorkIndex

MARK_AHEAD_S = 1.0
"""A step's mark before its append falls due this late: by then the append has made it due
at once, or the process died in between (or the append lost its race)."""
CLOCK_LEASE_S = 5.0
"""When the reconciler looks at a clocked match whose exact deadline was never indexed."""


class Work(Protocol):
    def expect(self, match_id: str, ahead: Ahead) -> None: ...

    def after(self, match_id: str, match: Match) -> None: ...

    def verify(self, match_id: str, verification_id: str) -> None: ...

    def deliver(self, refs: Sequence[DeliveryRef]) -> None: ...


class QueuedWork:
    """Real mode: RQ jobs, with the work index as the record of what must happen."""

    def __init__(self, jobs: Jobs, work: WorkIndex,
                 clock: Callable[[], float] = time.time) -> None:
        self.jobs = jobs
        self.work = work
        self._clock = clock

    def expect(self, match_id: str, ahead: Ahead) -> None:
        if ahead.owes_step:
            self.work.mark(STEPS, match_id, self._clock() + MARK_AHEAD_S)
        if ahead.owes_deadline:
            self.work.mark(CLOCKS, match_id, self._clock() + CLOCK_LEASE_S)

    def after(self, match_id: str, match: Match) -> None:
        for owed in match.owed():
            if isinstance(owed, StepDue):
                self.work.mark(STEPS, match_id, self._clock())
                self.work.wake()
            elif isinstance(owed, DeadlineDue):
                self.work.reschedule(CLOCKS, match_id, owed.deadline)

    def verify(self, match_id: str, verification_id: str) -> None:
        self.jobs.enqueue_replay(match_id, verification_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.jobs.enqueue_delivery(ref.owner, ref.webhook_id, ref.delivery_id)


class InProcessWork:
    """Embedded mode: clocks and webhooks on daemon threads, verifications on the asking
    thread. The system steps themselves are run by the command runner right after the
    append that makes them due (``CommandRunner(steps_inline=True)``), before the caller
    gets its answer."""

    def __init__(self, clocks: ClockTimer, deliveries: Deliveries,
                 verifier: Callable[[str, str], object]) -> None:
        self.clocks = clocks
        self.deliveries = deliveries
        self.verifier = verifier

    def expect(self, match_id: str, ahead: Ahead) -> None:
        """Nothing to note: the step runs before the append's caller gets its answer."""

    def after(self, match_id: str, match: Match) -> None:
        owed = match.deadline_owed
        if owed is not None:
            self.clocks.schedule(match_id, owed.turn_version, owed.deadline)

    def verify(self, match_id: str, verification_id: str) -> None:
        self.verifier(match_id, verification_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.deliveries.submit(ref)
