"""Job queue adapter: RQ on the real Redis, or RQ run synchronously in embedded mode.

Job ids are deterministic per (job, match, version), so re-driving a job that is
already queued does not queue it twice.
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.adapters.clock_runner import clock_runner_for
from service.adapters.webhooks import ATTEMPTS, BACKOFF, TIMEOUT_S

QUEUES = ("scoring", "bonuses")
"""Jobs a match waits for (``Family.awaiting_job``); re-driven until they are done."""
REPLAYS = "replays"
"""On request: rebuild and verify a match from its events."""
WEBHOOKS = "webhooks"
"""Webhook deliveries (``workers.webhooks``), retried with backoff by the RQ scheduler."""
CLOCKS = "clocks"
"""Timeout checks of match clocks (``workers.jobs.run_clock``), scheduled at deadlines."""
STARTED_GRACE_S = 60.0


class JobQueue:
    """Enqueues ``workers.jobs`` functions by name with ids, never objects."""

    def __init__(self, client: redis.Redis, prefix: str, run_inline: bool) -> None:
        self._client = client
        self._prefix = prefix
        self._inline = run_inline
        self._queues = {name: Queue(name, connection=client, is_async=not run_inline)
                        for name in (*QUEUES, REPLAYS, WEBHOOKS, CLOCKS)}

    def enqueue(self, job: str, match_id: str, version: int) -> str:
        """Queue ``job`` (``scoring`` or ``bonuses``) for a match at ``version``."""
        job_id = f"{self._prefix}-{job}-{match_id}-{version}"
        if self._pending(job_id):
            return job_id
        self._queues[job].enqueue(
            f"workers.jobs.run_{job}", match_id, self._prefix, self._inline,
            job_id=job_id, result_ttl=3600, failure_ttl=86400,
            retry=None if self._inline else Retry(max=3, interval=[1, 5, 30]),
        )
        return job_id

    def enqueue_replay(self, match_id: str, verification_id: str) -> str:
        """Queue a verification of the match's whole log (``workers.jobs.run_replay``)."""
        job_id = f"{self._prefix}-{REPLAYS}-{match_id}-{verification_id}"
        self._queues[REPLAYS].enqueue(
            "workers.jobs.run_replay", match_id, verification_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=600,
            retry=None if self._inline else Retry(max=2, interval=[5, 30]),
        )
        return job_id

    def enqueue_delivery(self, owner: str, webhook_id: str, delivery_id: str) -> str:
        """Queue a webhook delivery (always on RQ; embedded mode: ``deliveries``);
        failed attempts are retried after ``BACKOFF`` by the worker's scheduler."""
        job_id = f"{self._prefix}-{WEBHOOKS}-{delivery_id}"
        self._queues[WEBHOOKS].enqueue(
            "workers.webhooks.run_delivery", owner, webhook_id, delivery_id, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400, job_timeout=int(TIMEOUT_S * 6),
            retry=Retry(max=ATTEMPTS - 1, interval=list(BACKOFF)),
        )
        return job_id

    @property
    def inline(self) -> bool:
        return self._inline

    def schedule_clock(self, match_id: str, turn_version: int, deadline: float) -> str | None:
        """Check the turn that started at ``turn_version`` when its ``deadline`` (epoch
        seconds) has passed: an RQ job at that time, or with jobs inline the app's
        in-process clock runner (``service.adapters.clock_runner``; none registered: nothing)."""
        if self._inline:
            runner = clock_runner_for(self._client, self._prefix)
            if runner is not None:
                runner.schedule(match_id, turn_version, deadline)
            return None
        job_id = f"{self._prefix}-{CLOCKS}-{match_id}-{turn_version}"
        if self._pending(job_id):
            return job_id
        # RQ's scheduler keeps whole seconds: round up, so the check never comes early
        at = datetime.fromtimestamp(math.ceil(deadline), tz=UTC)
        self._queues[CLOCKS].enqueue_at(
            at, "workers.jobs.run_clock", match_id, turn_version, self._prefix,
            job_id=job_id, result_ttl=3600, failure_ttl=86400,
            retry=Retry(max=3, interval=[1, 5, 30]),
        )
        return job_id

    def _pending(self, job_id: str) -> bool:
        try:
            job = Job.fetch(job_id, connection=self._client)
        except NoSuchJobError:
            return False
        status = job.get_status(refresh=False)
        if status == "started":
            # a worker killed mid-job leaves its job "started": re-drive after a grace period
            started = job.started_at.timestamp() if job.started_at else 0.0
            return time.time() - started < STARTED_GRACE_S
        return status in ("queued", "deferred", "scheduled")
