"""gunicorn settings of every deployment: ``gunicorn -c python:service.gunicorn_conf ...``.

``make serve`` (service/serve.py), the Dockerfile and docker-compose all load this. Live
streams are long-lived, so the API runs gunicorn's gevent worker: every request, every
open stream and the stream hub (service/adapters/fanout.py) are greenlets, and redis-py's
sockets become cooperative through gevent's monkey-patching, which the worker applies
before it imports the app. An open stream then costs a greenlet and a socket, not a
thread: the limit is open files, so the master raises its own soft ``RLIMIT_NOFILE`` to
the hard limit (the workers inherit it) and sizes ``worker_connections`` from it.

Metrics: every worker writes its figures to files in ``PROMETHEUS_MULTIPROC_DIR`` and a
scrape of ``/metrics``, whichever worker answers, sums them (prometheus-client's
multiprocess mode, ``service.adapters.metrics``). The master sets the directory up before
it forks the first worker (``on_starting``: the operator's, emptied, or a fresh temporary
one it removes at exit), and forgets a dead worker's open-stream gauge (``child_exit``).

Logs: gunicorn's error log, its access log and every line the app writes are JSON lines
with the request id (``service.logs``; the access line's is the ``X-Request-Id`` answered).

Kept free of imports from the application: the master loads this file before forking,
and the app must be imported only after the worker's monkey-patching (``service.logs``
and what it imports are plain standard library and python-json-logger).
"""

from __future__ import annotations

import gc
import glob
import os
import resource
import shutil
import tempfile
import threading
import time
from collections import deque
from typing import Any

from service import gunicorn_bodies, gunicorn_errors, logs

FD_MARGIN = 256
"""Descriptors kept for everything but client sockets: Redis connections (the pool grows
with concurrent requests), log files, the listening socket, gunicorn's pipes."""
UNLIMITED_TARGET = 1 << 20


def raise_fd_limit() -> int:
    """Raise this process's soft open-file limit as far as the hard limit allows; returns
    the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft if soft != resource.RLIM_INFINITY else UNLIMITED_TARGET
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def stream_capacity(fd_limit: int) -> int:
    """Live streams one worker can hold: one socket each, less the margin."""
    return max(64, fd_limit - FD_MARGIN)


fd_limit = raise_fd_limit()
worker_class = "gevent"
worker_connections = stream_capacity(fd_limit)
timeout = 60
graceful_timeout = 10
accesslog = "-"
access_log_format = logs.ACCESS_FORMAT
logconfig_dict = logs.gunicorn_config()

METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"
_made_metrics_dir: list[str] = []


def on_starting(server: Any) -> None:
    """Before the first worker: the directory the workers' figures go to. An operator's
    ``PROMETHEUS_MULTIPROC_DIR`` is emptied of an earlier run's files (they would be
    summed in); without one, a fresh temporary directory, removed at exit. Set here, in
    the master's environment, so every worker forked from it has it before it imports
    prometheus-client."""
    folder = os.environ.get(METRICS_DIR)
    if folder:
        os.makedirs(folder, exist_ok=True)
        for stale in glob.glob(os.path.join(folder, "*.db")):
            os.remove(stale)
    else:
        folder = tempfile.mkdtemp(prefix="rummy-metrics-")
        _made_metrics_dir.append(folder)
        os.environ[METRICS_DIR] = folder
    server.log.info("rummy: metrics of every worker in %s", folder)


def child_exit(server: Any, worker: Any) -> None:
    """A worker ended: its open streams are no longer open (its ``livesum`` gauge files
    go); its counts stay in the sums."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: Any) -> None:
    """Remove the metrics directory this master made (an operator's stays)."""
    for folder in _made_metrics_dir:
        shutil.rmtree(folder, ignore_errors=True)


def when_ready(server: Any) -> None:
    """Say, once, how many streams each worker can hold, so an operator sizes for it."""
    server.log.info("rummy: open-file limit %d; each %s worker holds up to %d live streams "
                    "(worker_connections)", fd_limit, server.cfg.worker_class_str,
                    server.cfg.worker_connections)


SLOW_GC_S = 0.05
GC_FREEZE_EVERY_S = 10.0
GC_FULL_EVERY_S = 600.0
NO_AUTOMATIC_FULL = 1 << 30


def _watch_collections() -> deque[tuple[int, float]]:
    """Note every garbage collection that stalls the worker's greenlets for long: with
    thousands of open streams a full collection walks every stream's objects. The
    callback only notes (logging inside the collector is not safe); the freezer logs."""
    slow: deque[tuple[int, float]] = deque(maxlen=100)
    started = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif time.perf_counter() - started[0] > SLOW_GC_S:
            slow.append((info.get("generation", -1), time.perf_counter() - started[0]))

    gc.callbacks.append(watch)
    return slow


def _freeze_long_lived(worker: Any, slow: deque[tuple[int, float]]) -> None:
    """Keep the cyclic garbage collector off the objects of long-lived streams.

    A held stream is a few hundred tracked objects (greenlet, generators, request), so
    10,000 streams make every full collection walk millions of objects: measured 250-600
    ms, every few seconds while moves fan out, every greenlet stalled meanwhile. Every
    ``GC_FREEZE_EVERY_S`` this collects the young generations and freezes what survived
    (``gc.freeze``: full collections skip it); every ``GC_FULL_EVERY_S`` it unfreezes and
    runs one full collection, so cyclic garbage of closed streams is still reclaimed.

    The collector's own full collections are switched off (the oldest generation's
    threshold): between two freezes the streams opened meanwhile pile up unfrozen, and
    CPython collects the oldest generation each time it grew by a quarter, so opening
    streams at a few hundred a second cost a 50-200 ms stall every couple of seconds,
    measured, while moves went on. The young generations are collected as usual.
    """
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NO_AUTOMATIC_FULL)

    def run() -> None:
        last_full = time.monotonic()
        while True:
            time.sleep(GC_FREEZE_EVERY_S)
            if time.monotonic() - last_full >= GC_FULL_EVERY_S:
                gc.unfreeze()
                gc.collect()
                last_full = time.monotonic()
            else:
                gc.collect(1)
            gc.freeze()
            while slow:
                generation, seconds = slow.popleft()
                worker.log.warning("rummy: a garbage collection of generation %d took "
                                   "%.0f ms", generation, seconds * 1000)

    threading.Thread(target=run, name="rummy-gc", daemon=True).start()


def post_worker_init(worker: Any) -> None:
    """A worker writes gunicorn's own errors (414, 431, a bad request line) as JSON in the
    API's error shape, logs an answer a client did not take as one line, re-raises its
    limit (a supervisor may have started it with less), and starts the collector's
    freezing and the slow-collection log."""
    gunicorn_errors.install()
    gunicorn_bodies.quiet_answers_not_taken()
    _freeze_long_lived(worker, _watch_collections())
    limit = raise_fd_limit()
    if limit < worker.cfg.worker_connections + FD_MARGIN:
        worker.log.warning("rummy: open-file limit %d is below worker_connections %d plus "
                           "a margin of %d", limit, worker.cfg.worker_connections, FD_MARGIN)


def worker_exit(server: Any, worker: Any) -> None:
    """A worker's end closes what its app started: the live stream hub (its streams end,
    so clients reconnect to another worker) and, in embedded mode, the work timer and the
    webhook deliveries (``Wiring.close``)."""
    extensions = getattr(getattr(worker, "wsgi", None), "extensions", None) or {}
    wiring = extensions.get("rummy")
    if wiring is not None:
        wiring.close()


def post_request(worker: Any, req: Any, environ: dict[str, Any], resp: Any) -> None:
    """A body the app left unread is read on only as far as gunicorn's gthread worker
    would (64 KiB, 1 s); past that its connection closes (service/gunicorn_bodies.py)."""
    gunicorn_bodies.finish_or_close(req, environ)
