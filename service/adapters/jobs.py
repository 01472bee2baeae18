"""RQ queues: webhook deliveries and verifications, enqueued by name with ids, never objects.

System steps are not RQ jobs: they are due in the work index (``service.adapters.work``)
and workers run them from there, a few Redis commands each instead of RQ's thirty.

A job queued while a request runs carries its id in ``Job.meta["request_id"]``
(``service.correlation``); the worker binds it while it runs the job, so the job's log
lines carry it too.
"""

from __future__ import annotations

import redis
from rq import Queue, Retry

from service import correlation
from service.adapters.webhooks import ATTEMPTS, BACKOFF, TIMEOUT_S

REPLAYS = "replays"
"""On request: rebuild and verify a match from its events, or a tournament from its
export."""
ANALYSES = "analyses"
"""On request: weigh every decision of a finished match (up to a minute of CPU each at
the defaults)."""
WEBHOOKS = "webhooks"
"""Webhook deliveries (``workers.webhooks``), retried with backoff (``workers.scheduling``)."""
LEGACY = ("scoring", "bonuses")
"""Step queues of earlier releases: workers still drain jobs queued there before an
upgrade (each runs the step the match awaits)."""
QUEUES = (WEBHOOKS, REPLAYS, ANALYSES)
"""Every queue a worker listens on (``python -m workers``), most urgent first: a delivery
is an organiser's backend waiting to hear of a move, a few milliseconds of work; anybody
may ask for verifications, each a whole replay, and for analyses of finished matches,
each up to a minute. A worker takes the next job from the first queue that has one, so no
number of queued verifications or analyses delays a delivery by more than the one job in
hand."""


class JobQueue:
    """Enqueues ``workers`` job functions on RQ."""

    def __init__(self, client: redis.Redis, prefix: str, analysis_timeout_s: int = 1800) -> None:
        self._client = client
        self._prefix = prefix
        self._analysis_timeout_s = analysis_timeout_s
        self._queues = {name: Queue(name, connection=client) for name in QUEUES}

    def enqueue_replay(self, match_id: str, verification_id: str) -> str:
        """Queue a verification of the match's whole log (``workers.jobs.run_replay``)."""
        return self._replay("workers.jobs.run_replay", match_id, verification_id)

    def enqueue_tournament_replay(self, tournament_id: str, verification_id: str) -> str:
        """Queue a verification of the tournament's export
        (``workers.jobs.run_tournament_replay``)."""
        return self._replay("workers.jobs.run_tournament_replay", tournament_id,
                            verification_id)

    def _replay(self, function: str, aggregate_id: str, verification_id: str) -> str:
        job_id = f"{self._prefix}-{REPLAYS}-{aggregate_id}-{verification_id}"
        self._queues[REPLAYS].enqueue(
            function, aggregate_id, verification_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=600,
            retry=Retry(max=2, interval=[5, 30]), meta=_meta(),
        )
        return job_id

    def enqueue_analysis(self, match_id: str, analysis_id: str) -> str:
        """Queue an analysis of a finished match (``workers.jobs.run_analysis``), stopped
        past ``analysis_timeout_s``; not retried: it is deterministic, and the job files
        its own failure."""
        job_id = f"{self._prefix}-{ANALYSES}-{match_id}-{analysis_id}"
        self._queues[ANALYSES].enqueue(
            "workers.jobs.run_analysis", match_id, analysis_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=self._analysis_timeout_s,
            meta=_meta(),
        )
        return job_id

    def enqueue_delivery(self, owner: str, webhook_id: str, delivery_id: str) -> str:
        """Queue a webhook delivery; failed attempts are retried after ``BACKOFF``
        (``workers.scheduling`` puts each retry back on the queue when it is due)."""
        job_id = f"{self._prefix}-{WEBHOOKS}-{delivery_id}"
        self._queues[WEBHOOKS].enqueue(
            "workers.webhooks.run_delivery", owner, webhook_id, delivery_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=int(TIMEOUT_S * 6),
            retry=Retry(max=ATTEMPTS - 1, interval=list(BACKOFF)), meta=_meta(),
        )
        return job_id


def _meta() -> dict[str, str]:
    """A job's meta: the id of the request that queued it, if a request did."""
    request_id = correlation.current()
    return {"request_id": request_id} if request_id else {}
