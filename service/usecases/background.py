"""Background work, as the two ways to run give it: queued for workers, or in-process.

Each class is both the runner's ``FollowUp`` (what an append leaves to do) and the use
cases' way to start other work (verify a log, deliver webhooks). Both iterate what the
match owes (``Match.owed``) and the table of obligations
(``service.usecases.obligations``), never a kind by name:

- ``QueuedWork`` (real mode): marks the match in the work index (``service.ports.WorkIndex``)
  under each kind it is about to owe, its row's mark ahead before the append, and at each
  one's due time after it (waking a worker when that is now); workers (``python -m
  workers``) pay what falls due. Verifications (of matches and tournaments), analyses and
  webhook deliveries are RQ jobs.
- ``InProcessWork`` (embedded mode): one timer thread (``service.ports.WorkTimer``) pays
  every kind when it falls due, the work an append made due at once too, so a request
  never runs the work its own write left (the next deal, a bot's reply); webhooks
  are delivered on a few threads, analyses one at a time on threads of their own.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from domain.aggregate import Aggregate, is_due
from service.ports import Deliveries, DeliveryRef, Jobs, WorkIndex, WorkTimer
from service.usecases.errors import NotFound
from service.usecases.obligations import OBLIGATIONS, Obligations


class Work(Protocol):
    def expect(self, match_id: str, ahead: Any) -> None: ...

    def after(self, match_id: str, match: Aggregate) -> None: ...

    def remind(self, kind: str, aggregate_id: str) -> None:
        """Look at what ``aggregate_id`` owes of ``kind`` now: something it waits for
        happened elsewhere (a tournament's match ended). Only sooner: without it the
        look still comes (``Obligation.looks_again_s``)."""

    def verify(self, match_id: str, verification_id: str) -> None: ...

    def verify_tournament(self, tournament_id: str, verification_id: str) -> None: ...

    def analyse(self, match_id: str, analysis_id: str) -> None: ...

    def deliver(self, refs: Sequence[DeliveryRef]) -> None: ...


class QueuedWork:
    """Real mode: RQ jobs, with the work index as the record of what must happen."""

    def __init__(self, jobs: Jobs, work: WorkIndex,
                 clock: Callable[[], float] = time.time) -> None:
        self.jobs = jobs
        self.work = work
        self._clock = clock

    def expect(self, match_id: str, ahead: Any) -> None:
        now = self._clock()
        for owed in ahead.owed(now):
            self.work.mark(owed.kind, match_id, now + OBLIGATIONS[owed.kind].mark_ahead_s)

    def after(self, match_id: str, match: Aggregate) -> None:
        now = self._clock()
        for owed in match.owed():
            self.work.reschedule(owed.kind, match_id, owed.due(now))
            if is_due(owed, now):
                self.work.wake()

    def remind(self, kind: str, aggregate_id: str) -> None:
        self.work.reschedule(kind, aggregate_id, self._clock())
        self.work.wake()

    def verify(self, match_id: str, verification_id: str) -> None:
        self.jobs.enqueue_replay(match_id, verification_id)

    def verify_tournament(self, tournament_id: str, verification_id: str) -> None:
        self.jobs.enqueue_tournament_replay(tournament_id, verification_id)

    def analyse(self, match_id: str, analysis_id: str) -> None:
        self.jobs.enqueue_analysis(match_id, analysis_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.jobs.enqueue_delivery(ref.owner, ref.webhook_id, ref.delivery_id)


class InProcessWork:
    """Embedded mode: owed work on one timer thread, webhooks on daemon threads,
    verifications (a match's, a tournament's) on the asking thread, analyses on a daemon
    thread each, one at a time (each is up to a minute of a core; ``analyser`` runs it in
    a child process).

    ``pay_inline`` is for tests (and benches) only: work due at once is paid on the
    writing thread, before the write's caller gets its answer, so a test reads the next
    hand right after the knock that ended one (and an all-bot match created with it has
    been played out when its creation answers); an analysis is done when its request
    answers. The embedded server never sets it.
    """

    def __init__(self, timer: WorkTimer, deliveries: Deliveries,
                 verifier: Callable[[str, str], object],
                 clock: Callable[[], float] = time.time, *, pay_inline: bool = False,
                 analyser: Callable[[str, str], object] | None = None,
                 tournament_verifier: Callable[[str, str], object] | None = None) -> None:
        self.timer = timer
        self.deliveries = deliveries
        self.verifier = verifier
        self.tournament_verifier = tournament_verifier
        self.analyser = analyser
        self._clock = clock
        self._pay_inline = pay_inline
        self._obligations: Obligations | None = None
        self._inline = threading.local()
        self._analysing = threading.Lock()

    def start(self, obligations: Obligations) -> None:
        """Pay through ``obligations`` from now on (built after this follow-up, since the
        command runner it uses needs it)."""
        self._obligations = obligations
        self.timer.start(self.pay)

    def expect(self, match_id: str, ahead: Any) -> None:
        """Nothing to note: in-process work lives and dies with this process."""

    def after(self, match_id: str, match: Aggregate) -> None:
        now = self._clock()
        for owed in match.owed():
            if self._pay_inline and is_due(owed, now):
                self._pay_now(owed.kind, match_id)
            else:
                self.timer.schedule(owed.kind, match_id, owed.due(now))

    def _pay_now(self, kind: str, match_id: str) -> None:
        """``pay_inline``: pay on this thread, in the order the work fell due. A payment's
        own follow-up queues what it made due for the loop already running here instead of
        paying it within: a chain of payments (bots playing each other) stays one loop, not
        a recursion as deep as the match is long."""
        queue: deque[tuple[str, str]] | None = getattr(self._inline, "queue", None)
        if queue is not None:
            queue.append((kind, match_id))
            return
        self._inline.queue = queue = deque([(kind, match_id)])
        try:
            while queue:
                self.pay(*queue.popleft())
        finally:
            self._inline.queue = None

    def pay(self, kind: str, match_id: str) -> None:
        """The timer's call once work of ``kind`` fell due: pay it, and time it again if
        the call came before it was due, or found it still due and unpaid when its kind
        looks again (``Obligation.looks_again_s``: a tournament whose matches play on);
        what paying it made owed, the runner's follow-up has timed already."""
        if self._obligations is None:
            raise RuntimeError("InProcessWork.start was not called")
        now = self._clock()
        try:
            paid = self._obligations.pay(match_id, kind, now)
        except NotFound:  # deleted since (embedded retention): nothing left to pay
            return
        at = paid.next_due(kind, now)
        if at is None or paid.appended:
            return
        if at > now:
            self.timer.schedule(kind, match_id, at)
        elif (again := OBLIGATIONS[kind].looks_again_s) is not None:
            self.timer.schedule(kind, match_id, now + again)

    def remind(self, kind: str, aggregate_id: str) -> None:
        if self._pay_inline:
            self._pay_now(kind, aggregate_id)
        else:
            self.timer.schedule(kind, aggregate_id, self._clock())

    def verify(self, match_id: str, verification_id: str) -> None:
        self.verifier(match_id, verification_id)

    def verify_tournament(self, tournament_id: str, verification_id: str) -> None:
        if self.tournament_verifier is None:
            raise RuntimeError("InProcessWork was built without a tournament verifier")
        self.tournament_verifier(tournament_id, verification_id)

    def analyse(self, match_id: str, analysis_id: str) -> None:
        if self._pay_inline:
            self._analyse_alone(match_id, analysis_id)
            return
        threading.Thread(target=self._analyse_alone, args=(match_id, analysis_id),
                         name="rummy-analysis", daemon=True).start()

    def _analyse_alone(self, match_id: str, analysis_id: str) -> None:
        if self.analyser is None:
            raise RuntimeError("InProcessWork was built without an analyser")
        with self._analysing:
            self.analyser(match_id, analysis_id)

    def deliver(self, refs: Sequence[DeliveryRef]) -> None:
        for ref in refs:
            self.deliveries.submit(ref)
