"""Due retries of RQ jobs, moved onto their queues without RQ's scheduler.

RQ's ``Retry(interval=...)`` parks a failed job in the queue's ``ScheduledJobRegistry``
until its retry time; RQ's own scheduler then needs a lock per queue, held by one worker
and left held for a minute or more by a worker killed with -9, and runs in a forked
process that outlives such a worker. Here every worker's reconciler promotes due jobs
instead: each job id is taken out of the registry with ZREM, and only the worker whose
ZREM removed it enqueues it, so a job is enqueued once however many workers look.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import redis
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry


def promote_due_jobs(client: redis.Redis, queues: Sequence[str], limit: int = 100) -> int:
    """Enqueue the jobs whose retry time has come; how many were enqueued."""
    promoted = 0
    for name in queues:
        queue = Queue(name, connection=client)
        registry = ScheduledJobRegistry(queue=queue)
        for job_id in registry.get_jobs_to_schedule(int(time.time()), chunk_size=limit):
            if not client.zrem(registry.key, job_id):
                continue  # another worker took it
            try:
                job = Job.fetch(job_id, connection=client)
            except Exception:  # noqa: BLE001 - a job whose hash expired is simply gone
                continue
            queue.enqueue_job(job, at_front=job.should_enqueue_at_front())
            promoted += 1
    return promoted
