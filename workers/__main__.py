"""``python -m workers``: one worker process of real mode.

Two loops: the reconciler (``workers.reconciler``) on a thread pays every kind of owed work
(system steps, clock checks, bots' turns) as it falls due in the work index (a batch of
matches claimed, read and written in a few round trips; no job, no fork),
and moves due RQ job retries back onto their queues (no RQ scheduler process, no
scheduler lock); RQ's ``SimpleWorker`` on the main thread runs the RQ jobs in this process,
webhook deliveries before verifications, and those before post-game analyses (``QUEUES``;
an analysis holds its worker's RQ loop up to a minute at its defaults, the reconciler
goes on meanwhile). The
events are read and written on ``--url`` (``REDIS_URL``; a Redis Cluster's node with
``RUMMY_REDIS_CLUSTER=true``), the jobs on ``--rq-url`` (``RQ_REDIS_URL``, default
``--url``). When
the job Redis goes away, RQ's work loop ends; this process waits for it with backoff and starts
a new work loop, so it rides out a Redis restart. SIGTERM or SIGINT stop it after the job
in hand. Run as many as the load needs, on any machines, under a supervisor that restarts
a process that exits (docker-compose ``restart: unless-stopped``, systemd
``Restart=always``).

Its log lines are JSON (``service.logs``); a job's carry the job's id and the id of the
request that queued it (``Job.meta["request_id"]``). With ``--metrics-port``
(``RUMMY_WORKER_METRICS_PORT``) it answers Prometheus scrapes of its own figures there:
reconciler re-drives, appends, conflicts, owed work (docs/operations.md).
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from typing import Any

import click
import redis
from rq import SimpleWorker
from rq.job import Job
from rq.queue import Queue

from service import correlation, logs
from service.adapters.jobs import LEGACY, QUEUES
from service.bootstrap import Wiring, bootstrap
from service.config import Settings
from workers import context
from workers.reconciler import BACKOFF_S, Reconciler

log = logging.getLogger("rummy.worker")

WORKER_QUEUES = (*QUEUES, *LEGACY)
"""Every queue a worker takes jobs from, in the order it looks (``QUEUES`` first)."""
CACHE_SIZE = 8192
"""Matches a worker keeps folded (about 10 KB each, some 80 MB when full): the next step
of a match this worker paid before reads only the events since, not the whole log and its
meta, which costs a few hundred microseconds of CPU at the first hand and grows with the
match. The API's 512 would hold only a worker's last ten batches."""


class Worker(SimpleWorker):
    """RQ's in-process worker that also stops this process's loop on SIGTERM/SIGINT, and
    runs each job with its request id (from its meta) and its job id bound, so the job's
    log lines carry them (``service.correlation``)."""

    stop: threading.Event | None = None

    def perform_job(self, job: Job, queue: Queue) -> bool:
        with correlation.bound((job.meta or {}).get("request_id"), job.id):
            return bool(super().perform_job(job, queue))

    def request_stop(self, signum: Any, frame: Any) -> None:
        if self.stop is not None:
            self.stop.set()
        super().request_stop(signum, frame)


def rq_worker(client: redis.Redis) -> Worker:
    """A worker on ``WORKER_QUEUES``. RQ takes each next job from the first of its queues
    that has one, so that order is the jobs' priority."""
    return Worker(list(WORKER_QUEUES), connection=client)


def work_until_stopped(wiring: Wiring, stop: threading.Event) -> None:
    """RQ work loops on the job Redis, one after another, until a stop is requested."""
    jobs = wiring.job_client
    failures = 0
    while not stop.is_set():
        worker = rq_worker(jobs)
        worker.stop = stop
        try:
            worker.work(logging_level="WARNING")
        except (redis.RedisError, OSError) as exc:
            log.warning("worker: Redis unavailable (%s)", exc)
        if stop.is_set():
            return
        pause = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
        failures += 1
        log.warning("worker: the work loop ended; starting again in %ss", pause)
        _wait_for_redis(jobs, stop, pause)


def _wait_for_redis(client: redis.Redis, stop: threading.Event, pause: float) -> None:
    while not stop.wait(pause):
        try:
            client.ping()
            return
        except redis.RedisError:
            pause = min(pause * 2, BACKOFF_S[-1])


GC_THRESHOLD = 20_000
"""Container allocations between two young-generation collections (Python's default is
700): paying a batch allocates tens of thousands of short-lived objects (decoded events,
folded states), which the default collects hundreds of times a second."""


def quiet_collector() -> None:
    """Keep the garbage collector from costing a worker a tenth of its CPU: what start-up
    built (modules, the wiring) is frozen out of every later collection, and the young
    generation is collected less often (``GC_THRESHOLD``)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, middle, old)


@click.command()
@click.option("--url", envvar="REDIS_URL", required=True,
              help="The events' Redis: a plain Redis, or any node of a Redis Cluster with "
                   "RUMMY_REDIS_CLUSTER=true (env REDIS_URL).")
@click.option("--rq-url", envvar="RQ_REDIS_URL", default=None,
              help="The jobs' Redis, a plain one (env RQ_REDIS_URL; default --url, "
                   "required on a cluster).")
@click.option("--prefix", envvar="RUMMY_KEY_PREFIX", default="rummy", show_default=True,
              help="Key prefix of the matches this worker serves (env RUMMY_KEY_PREFIX).")
@click.option("--burst", is_flag=True,
              help="Do what is due now and what is queued, then exit (tests, cron).")
@click.option("--metrics-port", envvar="RUMMY_WORKER_METRICS_PORT", type=int, default=None,
              help="Answer Prometheus scrapes of this worker's figures on this port "
                   "(env RUMMY_WORKER_METRICS_PORT; unset: none).")
@click.option("--metrics-host", envvar="RUMMY_WORKER_METRICS_HOST", default="127.0.0.1",
              show_default=True, help="Address the metrics port binds "
                                      "(env RUMMY_WORKER_METRICS_HOST; 0.0.0.0 in a container).")
def main(url: str, rq_url: str | None, prefix: str, burst: bool, metrics_port: int | None,
         metrics_host: str) -> None:
    """Run system steps, clock checks, bots' turns and RQ jobs until SIGTERM/SIGINT."""
    logs.configure(logging.INFO)
    try:
        settings = Settings.from_env(redis_url=url, rq_redis_url=rq_url, key_prefix=prefix)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    wiring = bootstrap(settings, in_process=False, cache_size=CACHE_SIZE)
    context.use(wiring)
    quiet_collector()
    if metrics_port is not None:
        wiring.metrics.serve(metrics_port, metrics_host)
        log.info("worker %d: metrics on http://%s:%d/metrics", os.getpid(), metrics_host,
                 metrics_port)
    reconciler = Reconciler(wiring.index, wiring.obligations,
                            retried_queues=WORKER_QUEUES, client=wiring.job_client,
                            metrics=wiring.metrics)
    if burst:
        handled = reconciler.drain()
        rq_worker(wiring.job_client).work(burst=True, logging_level="WARNING")
        log.info("burst: %d matches handled", handled + reconciler.drain())
        return
    stop = threading.Event()
    thread = threading.Thread(target=reconciler.run, args=(stop,), name="rummy-reconciler",
                              daemon=True)
    thread.start()
    log.info("worker %d ready: queues %s, prefix %r", os.getpid(), ",".join(QUEUES), prefix)
    try:
        work_until_stopped(wiring, stop)
    finally:
        stop.set()
        thread.join(timeout=5)
        wiring.close()
    log.info("worker %d stopped", os.getpid())


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # until RQ installs its handler
    main()
