"""Background work, as the two ways to run give it: queued for workers, or in-process.

Each class is both the runner's ``FollowUp`` (what an append leaves to do) and the use
cases' way to start other work (verify a log, deliver webhooks):

- ``QueuedWork`` (real mode): marks the match in the work index (``service.adapters.work``)
  before the append and due after it, wakes a worker, and indexes the running turn's
  deadline; workers (``python -m workers``) run what falls due. Verifications and webhook
  deliveries are RQ jobs.
- ``InProcessWork`` (embedded mode): runs the step right after the append, on the same
  thread; times clocks on one daemon thread; delivers webhooks on a few.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from domain.events import CLOCK_SET
from domain.steps import pending_step
from service.adapters.clock_runner import ClockRunner
from service.adapters.deliveries import DeliveryRunner
from service.adapters.jobs import JobQueue
from service.adapters.webhooks import DeliveryRef
from service.adapters.work import CLOCKS, STEPS, WorkIndex
from service.usecases.commands import RunStep
from service.usecases.repository import Decided, Loaded

MARK_AHEAD_S = 1.0
"""A step's mark before its append falls due this late: by then the append has made it due
at once, or the process died in between (or the append lost its race)."""
CLOCK_LEASE_S = 5.0
"""When the reconciler looks at a clocked match whose exact deadline was never indexed."""


class Work(Protocol):
    def expect(self, match_id: str, decided: Decided) -> None: ...

    def after(self, match_id: str, match: Loaded) -> None: ...

    def verify(self, match_id: str, verification_id: str) -> None: ...

    def deliver(self, refs: Sequence[DeliveryRef]) -> None: ...


def _timed_turn_follows(decided: Decided) -> bool:
    """Whether a clocked turn runs after the decided events (its deadline must be kept)."""
    clocked = decided.before.clock is not None or any(e.type == CLOCK_SET.name
                                                      for e in decided.events)
    return clocked and decided.state.turn is not None


class QueuedWork:
    """Real mode: RQ jobs, with the work index as the record of what must happen."""

    def __init__(self, jobs: JobQueue, work: WorkIndex,
                 clock: Callable[[], float] = time.time) -> None:
        self.jobs = jobs
        self.work = work
        self._clock = clock

    def expect(self, match_id: str, decided: Decided) -> None:
        if pending_step(decided.before.variant, decided.state) is not None:
            self.work.mark(STEPS, match_id, self._clock() + MARK_AHEAD_S)
        if _timed_turn_follows(decided):
            self.work.mark(CLOCKS, match_id, self._clock() + CLOCK_LEASE_S)

    def after(self, match_id: str, match: Loaded) -> None:
        if pending_step(match.variant, match.state) is not None:
            self.work.mark(STEPS, match_id, self._clock())
            self.work.wake()
        deadline = match.clock.deadline if match.clock else None
        if deadline is not None:
            self.work.reschedule(CLOCKS, match_id, deadline)

    def verify(self, match_id: str, verification_id: str) -> None:
        self.jobs.enqueue_replay(match_id, verification_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.jobs.enqueue_delivery(ref.owner, ref.webhook_id, ref.delivery_id)


class StepRunner(Protocol):
    def run(self, match_id: str, command: RunStep) -> object: ...


class InProcessWork:
    """Embedded mode: steps on the appending thread, clocks and webhooks on daemon threads.

    ``steps`` (the command runner) and ``verifier`` are set by the bootstrap once built.
    """

    def __init__(self, clocks: ClockRunner, deliveries: DeliveryRunner) -> None:
        self.clocks = clocks
        self.deliveries = deliveries
        self.steps: StepRunner | None = None
        self.verifier: Callable[[str, str], object] | None = None

    def expect(self, match_id: str, decided: Decided) -> None:
        """Nothing to note: the step runs before the append's caller gets its answer."""

    def after(self, match_id: str, match: Loaded) -> None:
        if pending_step(match.variant, match.state) is not None and self.steps is not None:
            self.steps.run(match_id, RunStep())
            return
        clock = match.clock
        if clock is not None and clock.deadline is not None:
            self.clocks.schedule(match_id, clock.started_version, clock.deadline)

    def verify(self, match_id: str, verification_id: str) -> None:
        if self.verifier is not None:
            self.verifier(match_id, verification_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.deliveries.submit(ref)
