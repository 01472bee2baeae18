"""RQ queues: webhook deliveries and verifications, enqueued by name with ids, never objects.

System steps are not RQ jobs: they are due in the work index (``service.adapters.work``)
and workers run them from there, a few Redis commands each instead of RQ's thirty.
"""

from __future__ import annotations

import redis
from rq import Queue, Retry

from service.adapters.webhooks import ATTEMPTS, BACKOFF, TIMEOUT_S

REPLAYS = "replays"
"""On request: rebuild and verify a match from its events."""
WEBHOOKS = "webhooks"
"""Webhook deliveries (``workers.webhooks``), retried with backoff (``workers.scheduling``)."""
LEGACY = ("scoring", "bonuses")
"""Step queues of earlier releases: workers still drain jobs queued there before an
upgrade (each runs the step the match awaits)."""
QUEUES = (WEBHOOKS, REPLAYS)
"""Every queue a worker listens on (``python -m workers``), most urgent first: a delivery
is an organiser's backend waiting to hear of a move, a few milliseconds of work; anybody
may ask for verifications, each a whole replay. A worker takes the next job from the
first queue that has one, so no number of queued verifications delays a delivery by more
than the one job in hand."""


class JobQueue:
    """Enqueues ``workers`` job functions on RQ."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix
        self._queues = {name: Queue(name, connection=client) for name in QUEUES}

    def enqueue_replay(self, match_id: str, verification_id: str) -> str:
        """Queue a verification of the match's whole log (``workers.jobs.run_replay``)."""
        job_id = f"{self._prefix}-{REPLAYS}-{match_id}-{verification_id}"
        self._queues[REPLAYS].enqueue(
            "workers.jobs.run_replay", match_id, verification_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=600,
            retry=Retry(max=2, interval=[5, 30]),
        )
        return job_id

    def enqueue_delivery(self, owner: str, webhook_id: str, delivery_id: str) -> str:
        """Queue a webhook delivery; failed attempts are retried after ``BACKOFF``
        (``workers.scheduling`` puts each retry back on the queue when it is due)."""
        job_id = f"{self._prefix}-{WEBHOOKS}-{delivery_id}"
        self._queues[WEBHOOKS].enqueue(
            "workers.webhooks.run_delivery", owner, webhook_id, delivery_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=int(TIMEOUT_S * 6),
            retry=Retry(max=ATTEMPTS - 1, interval=list(BACKOFF)),
        )
        return job_id
