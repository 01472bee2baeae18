"""RQ queues: background work of real mode, enqueued by name with ids, never objects.

A system step's job id is deterministic per (prefix, match, version), so queuing the step a
match waits for twice queues it once. Nothing depends on a job surviving: the work index
(``service.adapters.work``) and the reconciler re-drive whatever a lost job left undone.
"""

from __future__ import annotations

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.adapters.webhooks import ATTEMPTS, BACKOFF, TIMEOUT_S

STEPS = "steps"
"""System steps (``workers.jobs.run_step``): score an ended hand, pay a match's bonuses."""
REPLAYS = "replays"
"""On request: rebuild and verify a match from its events."""
WEBHOOKS = "webhooks"
"""Webhook deliveries (``workers.webhooks``), retried with backoff (``workers.scheduling``)."""
LEGACY = ("scoring", "bonuses")
"""Queues of earlier releases: workers still drain jobs queued there before an upgrade."""
QUEUES = (STEPS, REPLAYS, WEBHOOKS)
"""Every queue a worker listens on (``python -m workers``), most urgent first."""


class JobQueue:
    """Enqueues ``workers`` job functions on RQ."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix
        self._queues = {name: Queue(name, connection=client) for name in QUEUES}

    def enqueue_step(self, match_id: str, version: int) -> str:
        """Queue the system step the match awaits at ``version`` (unless already queued)."""
        job_id = f"{self._prefix}-step-{match_id}-{version}"
        if self._queued(job_id):
            return job_id
        self._queues[STEPS].enqueue(
            "workers.jobs.run_step", match_id, self._prefix,
            job_id=job_id, result_ttl=0, failure_ttl=86400,
            retry=Retry(max=3, interval=[1, 5, 30]),
        )
        return job_id

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

    def _queued(self, job_id: str) -> bool:
        """Whether the job waits in a queue already (a started or lost one is left to the
        reconciler: queuing it again could only race it)."""
        try:
            job = Job.fetch(job_id, connection=self._client)
        except NoSuchJobError:
            return False
        return job.get_status(refresh=False) in ("queued", "deferred", "scheduled")
