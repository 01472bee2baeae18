"""The reconciler: pays every kind of owed work as it falls due, so nothing waits forever.

It takes what the work index (``service.adapters.work``) says is due, one kind after
another as the table of obligations lists them (``service.usecases.obligations``): a
match that awaits a system step (just marked by the append that ended a hand, or left by
a process that died before its mark, or by a worker killed mid-step whose lease ran out),
a match whose running turn's deadline has come. It pays through the same command runner
as everyone else, so paying twice appends nothing more. It needs no client to read the
match, no RQ job and no RQ scheduler lock (which a killed worker leaves held).

It works a batch at a time, in a few round trips whatever the batch's size: the claims
(up to ``BATCH`` matches of each kind, every kind's in one round trip on a plain Redis:
``WorkIndex.claim_each``), one pipelined read of their logs
(``Obligations.load``), one pipelined write of the appends their commands decided
(``Obligations.pay_many``, ``CommandRunner.run_many``; a match another writer moved
meanwhile is decided again alone), the organisers' feeds once per owner, and one script
call that releases the paid and times again the not yet due (``WorkIndex.settle``). A
match whose payment failed stays claimed until its lease ends; a worker killed
mid-batch leaves the whole batch claimed, paid again (idempotently) once the lease ends.

It runs on a thread of every worker process (``python -m workers``); several share the
index safely, since a claim moves a match out of the others' reach for a lease. Idle, it
blocks until an append wakes it or the next due time comes (at most ``INTERVAL_S``). It
also moves RQ jobs whose retry time has come back onto their queues
(``workers.scheduling``), in place of RQ's scheduler.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import redis

from service.adapters.work import WorkIndex
from service.ports import UNMEASURED, Metrics
from service.usecases.errors import NotFound
from service.usecases.obligations import KINDS, Obligations, Paid
from workers.scheduling import promote_due_jobs

log = logging.getLogger("rummy.reconciler")

LEASE_S = 2.0
"""How long a claimed match is out of other workers' reach (a step takes milliseconds)."""
BATCH = 50
"""Matches claimed at once: enough that a batch's few round trips (its claim, one read,
one write of its appends, the owners' feeds, its settling) cost little per step; few
enough that paying it takes far less than ``LEASE_S`` and several workers share a burst."""
INTERVAL_S = 0.5
"""The longest an idle reconciler sleeps: its poll, should a wake-up be lost."""
BACKOFF_S = (0.5, 1.0, 2.0, 5.0, 10.0)


@dataclass
class Settled:
    """What paying a claimed batch leaves to write to the work index: the matches to
    forget (unless marked again since their claim) and those to look at again later."""

    released: list[str] = field(default_factory=list)
    later: dict[str, float] = field(default_factory=dict)


class Reconciler:
    def __init__(self, index: WorkIndex, obligations: Obligations,
                 now: Callable[[], float] = time.time,
                 retried_queues: Sequence[str] = (),
                 client: redis.Redis | None = None, metrics: Metrics = UNMEASURED) -> None:
        """``client`` and ``retried_queues``: the RQ queues whose due retries this
        reconciler moves back onto them (``workers.scheduling``), on that Redis.
        ``metrics`` counts every due row taken (``redriven``) by kind and result."""
        self.index = index
        self.obligations = obligations
        self._now = now
        self._retried_queues = tuple(retried_queues)
        self._client = client
        self._metrics = metrics
        self._promoted = -INTERVAL_S

    def tick(self) -> int:
        """Pay one batch of due matches of each kind, all claimed at once; how many were
        handled."""
        handled = 0
        for kind, (lease, due) in self.index.claim_each(LEASE_S, BATCH).items():
            if due:
                self._pay_batch(kind, due, lease)
            handled += len(due)
        self._promote()
        return handled

    def drain(self) -> int:
        """Tick until nothing is due; how many matches were handled."""
        handled = 0
        while done := self.tick():
            handled += done
        return handled

    def _promote(self) -> None:
        """Move the RQ jobs whose retry time has come back onto their queues, at most every
        ``INTERVAL_S`` (a look per queue costs a round trip; a busy tick loop would
        otherwise pay it many times a second)."""
        if not self._retried_queues or self._client is None:
            return
        now = time.monotonic()
        if now - self._promoted < INTERVAL_S:
            return
        self._promoted = now
        promote_due_jobs(self._client, self._retried_queues)

    def _pay_batch(self, kind: str, due: list[str], lease: float) -> None:
        """Read the claimed batch in one round trip, pay it (its appends in one more), then
        settle its index rows in one more: the paid released, the not yet due timed
        again, the failed left claimed."""
        now = self._now()
        answers = self._answers(kind, due, now)
        settled = Settled()
        for match_id in due:
            self._settle(kind, match_id, now, answers[match_id], settled)
        self.index.settle(kind, lease, settled.released, settled.later)

    def _answers(self, kind: str, due: list[str], now: float) -> dict[str, Paid | Exception]:
        """What paying each match of the batch came to (``Obligations.pay_many``)."""
        try:
            loaded = self.obligations.load(kind, due)
            answers: dict[str, Paid | Exception] = {
                match_id: gone for match_id, gone in loaded.items()
                if isinstance(gone, NotFound)}
            answers.update(self.obligations.pay_many(kind, {
                match_id: found for match_id, found in loaded.items()
                if not isinstance(found, NotFound)}, now))
            return answers
        except redis.RedisError:
            raise
        except Exception:  # one bad log must not hold up the batch: each is paid alone
            log.exception("paying a batch of %s failed; each match is paid alone", kind)
            return {match_id: self._alone(kind, match_id, now) for match_id in due}

    def _alone(self, kind: str, match_id: str, now: float) -> Paid | Exception:
        try:
            return self.obligations.pay(match_id, kind, now)
        except Exception as exc:  # noqa: BLE001 - settled as the batch's answers are
            return exc

    def _settle(self, kind: str, match_id: str, now: float, answer: Paid | Exception,
                settled: Settled) -> None:
        """Forget a match that owes no more of ``kind`` (or is gone), look again when what
        it owes next falls due (a new turn's deadline), or leave it claimed when it is
        still due, unpaid, or its payment failed: tried again once the lease ends."""
        if isinstance(answer, NotFound):
            settled.released.append(match_id)
            self._metrics.redriven(kind, "gone")
            return
        if isinstance(answer, redis.RedisError):
            raise answer
        if isinstance(answer, Exception):
            log.error("reconciling %s of match %s failed; retried after %ss",
                      kind, match_id, LEASE_S, exc_info=answer)
            self._metrics.redriven(kind, "failed")
            return
        at = answer.next_due(kind, now)
        if at is None:
            settled.released.append(match_id)
        elif at > now:
            settled.later[match_id] = at
        self._metrics.redriven(kind, "paid" if answer.appended else "idle")

    def wait_s(self) -> float:
        """How long to sleep before the next tick: until the next match falls due, of any
        kind, at most ``INTERVAL_S``."""
        due = [at for kind in KINDS if (at := self.index.due_in(kind)) is not None]
        return INTERVAL_S if not due else max(0.01, min(INTERVAL_S, *due))

    def run(self, stop: threading.Event) -> None:
        """Work until ``stop`` is set, riding out Redis outages with backoff."""
        failures = 0
        while not stop.is_set():
            try:
                self.drain()
                self.index.wait(self.wait_s())
                failures = 0
            except redis.RedisError as exc:
                pause = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
                failures += 1
                log.warning("reconciler: Redis unavailable (%s); again in %ss", exc, pause)
                stop.wait(pause)
