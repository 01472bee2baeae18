"""The ``Metrics`` port in Prometheus's terms (prometheus-client): the one place that names
a metric. Every metric is listed in ``NAMES`` and described in docs/operations.md.

One process: each ``PrometheusMetrics`` keeps its figures in a registry of its own (a
fresh ``CollectorRegistry`` unless given one), so tests and several wirings in a process
never share a count. Under gunicorn (``PROMETHEUS_MULTIPROC_DIR`` set before
prometheus-client is imported: ``service.gunicorn_conf``) every worker process writes its
figures to files in that directory and a scrape, whichever worker answers it, reads them
all (``MultiProcessCollector``): counters and histograms are summed over the workers, and
the open-stream gauge over the live ones (``livesum``; the master's ``child_exit`` hook
drops a dead worker's). The owed-work gauges are read from Redis (or the embedded timer)
at scrape time, by whichever process answers, so they are never summed.

Labels are bounded sets: a route is its URL rule (``/v1/matches/<match_id>``), never a
path; a method outside the usual seven is ``other``; an outcome is ``accepted``,
``replayed`` or a refusal's code.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from service.ports import OwedWork

PREFIX = "rummy"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus's text format, as every Prometheus server reads it (``generate_latest``
writes it; no name here needs the newer format's escaping)."""
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0)
FANOUT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

NAMES = (
    "rummy_http_request_duration_seconds", "rummy_actions_total", "rummy_appends_total",
    "rummy_appended_events_total", "rummy_version_conflicts_total",
    "rummy_command_retries_total", "rummy_idempotent_replays_total",
    "rummy_store_round_trips_total", "rummy_owed_work_due", "rummy_owed_work_oldest_age_seconds",
    "rummy_reconciler_redrives_total", "rummy_open_streams", "rummy_fanout_delay_seconds",
    "rummy_rate_limited_total",
)
"""Every metric this adapter exports (docs/operations.md's table lists the same)."""


def multiprocess_dir() -> str | None:
    """The directory of gunicorn's workers' figures, when this process is one of them."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class OwedWorkCollector(Collector):
    """Owed work by kind, read at scrape time: how many rows are due now, and how long the
    oldest of them has been due."""

    def __init__(self, owed: OwedWork, kinds: Sequence[str],
                 clock: Callable[[], float] = time.time) -> None:
        self._owed, self._kinds, self._clock = owed, tuple(kinds), clock

    def collect(self) -> Iterable[GaugeMetricFamily]:
        due = GaugeMetricFamily(f"{PREFIX}_owed_work_due",
                                "Rows of owed work due now (not yet paid), by kind",
                                labels=["kind"])
        age = GaugeMetricFamily(f"{PREFIX}_owed_work_oldest_age_seconds",
                                "How long the oldest due row of owed work has been due, by "
                                "kind (0 when none is due)", labels=["kind"])
        now = self._clock()
        for kind in self._kinds:
            try:
                backlog = self._owed.backlog(kind, now)
            except Exception:  # noqa: BLE001 - Redis away: the scrape goes on without these
                continue
            due.add_metric([kind], backlog.due)
            oldest = backlog.oldest_due_at
            age.add_metric([kind], 0.0 if oldest is None else max(0.0, now - oldest))
        yield due
        yield age


class PrometheusMetrics:
    """``service.ports.Metrics`` over prometheus-client."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        reg = self.registry
        self._latency = Histogram(
            f"{PREFIX}_http_request_duration_seconds",
            "Time to answer an HTTP request (a live stream: to open it), by route (the URL "
            "rule), method and status", ["route", "method", "status"],
            buckets=LATENCY_BUCKETS, registry=reg)
        self._actions = Counter(f"{PREFIX}_actions", "Seats' actions by variant and outcome "
                                "(accepted, replayed, or the refusal's code)",
                                ["variant", "outcome"], registry=reg)
        self._appends = Counter(f"{PREFIX}_appends", "Appends of a command's events, by kind "
                                "of aggregate", ["aggregate"], registry=reg)
        self._events = Counter(f"{PREFIX}_appended_events", "Events appended, by kind of "
                               "aggregate", ["aggregate"], registry=reg)
        self._conflicts = Counter(f"{PREFIX}_version_conflicts", "Appends that lost their "
                                  "race (the log had moved), by kind of aggregate",
                                  ["aggregate"], registry=reg)
        self._retries = Counter(f"{PREFIX}_command_retries", "Commands decided again after a "
                                "lost race, by kind of aggregate", ["aggregate"], registry=reg)
        self._replays = Counter(f"{PREFIX}_idempotent_replays", "Retried idempotency keys "
                                "answered with their first outcome, by kind of aggregate",
                                ["aggregate"], registry=reg)
        self._round_trips = Counter(f"{PREFIX}_store_round_trips", "Round trips of the event "
                                    "store to Redis, by store and operation",
                                    ["store", "operation"], registry=reg)
        self._redrives = Counter(f"{PREFIX}_reconciler_redrives", "Due rows of owed work the "
                                 "reconciler took, by kind and result", ["kind", "result"],
                                 registry=reg)
        self._streams = Gauge(f"{PREFIX}_open_streams", "Live streams (matches' and feeds') "
                              "open", registry=reg, multiprocess_mode="livesum")
        self._fanout = Histogram(f"{PREFIX}_fanout_delay_seconds", "From an entry's write to "
                                 "its hand-over to this process's streams",
                                 buckets=FANOUT_BUCKETS, registry=reg)
        self._limited = Counter(f"{PREFIX}_rate_limited", "Requests refused with 429, by "
                                "route", ["route"], registry=reg)
        self._owed: OwedWorkCollector | None = None
        self._children: dict[tuple[Any, ...], Any] = {}

    def _of(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, kept: prometheus-client checks the labels and takes
        a lock on every call, several times a request. Label values here come from small
        fixed sets (routes, methods, statuses, variants, kinds), so the dict stays small."""
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    # --- the port ----------------------------------------------------------------------

    def request_answered(self, route: str, method: str, status: int, seconds: float) -> None:
        method = method if method in METHODS else "other"
        self._of(self._latency, route, method, str(status)).observe(seconds)

    def action_taken(self, variant: str, outcome: str) -> None:
        self._of(self._actions, variant, outcome).inc()

    def appended(self, aggregate: str, events: int) -> None:
        self._of(self._appends, aggregate).inc()
        self._of(self._events, aggregate).inc(events)

    def conflicted(self, aggregate: str) -> None:
        self._of(self._conflicts, aggregate).inc()

    def retried(self, aggregate: str) -> None:
        self._of(self._retries, aggregate).inc()

    def replayed(self, aggregate: str) -> None:
        self._of(self._replays, aggregate).inc()

    def store_round_trip(self, store: str, operation: str) -> None:
        self._of(self._round_trips, store, operation).inc()

    def redriven(self, kind: str, result: str) -> None:
        self._of(self._redrives, kind, result).inc()

    def stream_opened(self) -> None:
        self._streams.inc()

    def stream_closed(self) -> None:
        self._streams.dec()

    def fanned_out(self, delay_s: float) -> None:
        self._fanout.observe(max(0.0, delay_s))

    def rate_limited(self, route: str) -> None:
        self._of(self._limited, route).inc()

    # --- the scrape --------------------------------------------------------------------

    def watch_owed_work(self, owed: OwedWork, kinds: Sequence[str],
                        clock: Callable[[], float] = time.time) -> None:
        """Report ``owed``'s backlog of each of ``kinds`` at every scrape."""
        self._owed = OwedWorkCollector(owed, kinds, clock)

    def scrape_registry(self) -> CollectorRegistry:
        """What a scrape reads: every worker's files under gunicorn, else this process's
        own registry; and the owed work, read now."""
        scrape = CollectorRegistry(auto_describe=False)
        folder = multiprocess_dir()
        if folder is not None:
            multiprocess.MultiProcessCollector(scrape, path=folder)
        else:
            scrape.register(_Everything(self.registry))
        if self._owed is not None:
            scrape.register(self._owed)
        return scrape

    def exposition(self) -> tuple[bytes, str]:
        return generate_latest(self.scrape_registry()), CONTENT_TYPE

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Answer scrapes on ``host:port`` from a thread of this process (a worker's own
        metrics: ``python -m workers --metrics-port``)."""
        start_http_server(port, host, registry=self.scrape_registry())


class _Everything(Collector):
    """Another registry's metrics, collected through this one."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._registry = registry

    def collect(self) -> Iterable[object]:  # type: ignore[override]
        return self._registry.collect()
