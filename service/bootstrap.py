"""One bootstrap wires settings, Redis, the event store, the repository, the command runner
and background work, for every entry point: the Flask app, the worker and the CLI.

Two ways to run (README "Two ways to run"): embedded (no ``REDIS_URL``: in-process
fakeredis, steps run in-process, finished matches beyond ``RUMMY_EMBEDDED_KEEP_FINISHED``
deleted) and real (Redis, RQ workers, the reconciler; every match kept). Nothing is
built at import time, and nothing is registered in a module: each entry point holds its
own ``Wiring``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import fakeredis
import redis

from service.adapters.clock_runner import ClockRunner
from service.adapters.deliveries import DeliveryRunner
from service.adapters.feed import FeedStore
from service.adapters.jobs import JobQueue
from service.adapters.organisers import OrganiserKeys
from service.adapters.retention import FinishedMatches
from service.adapters.store import RedisEventStore
from service.adapters.webhooks import Webhooks
from service.adapters.work import WorkIndex
from service.config import Settings
from service.usecases.audit import run_verification
from service.usecases.background import InProcessWork, QueuedWork, Work
from service.usecases.clocks import Clocks
from service.usecases.lifecycle import OrganiserNotices
from service.usecases.live import LiveStreams
from service.usecases.matches import MatchService
from service.usecases.repository import Repository
from service.usecases.retention import Retention
from service.usecases.runner import CommandRunner
from service.usecases.subscribers import Subscriber, Subscribers

log = logging.getLogger("rummy")

REDIS_CONNECTIONS = 128
"""Redis connections per process at most. Under the gevent worker thousands of requests and
streams share a process; a request waits for a free connection (up to
``REDIS_POOL_WAIT_S``, then 503) instead of opening one more socket each, which would
exhaust Redis's ``maxclients`` and the process's open files (service/gunicorn_conf.py)."""
REDIS_POOL_WAIT_S = 5.0


@dataclass
class Wiring:
    """Everything one process needs, built once."""

    settings: Settings
    client: redis.Redis
    store: RedisEventStore
    repository: Repository
    runner: CommandRunner
    clocks: Clocks
    matches: MatchService
    work: Work
    index: WorkIndex
    in_process: bool

    def close(self) -> None:
        """Stop the live stream hub and the in-process threads (embedded mode): clock
        timer and deliveries."""
        self.matches.live.close()
        if isinstance(self.work, InProcessWork):
            self.work.clocks.stop()
            self.work.deliveries.close()


def connect(settings: Settings) -> redis.Redis:
    """The Redis of ``settings``: the real one, or a fresh in-process fakeredis."""
    if settings.embedded:
        log.warning("EMBEDDED MODE: in-process fakeredis, jobs run in-process. "
                    "All data is in memory only and is lost when the server stops. "
                    "Set REDIS_URL to use a real Redis.")
        return fakeredis.FakeRedis(server=fakeredis.FakeServer())
    pool = redis.BlockingConnectionPool.from_url(
        settings.redis_url,  # type: ignore[arg-type]
        max_connections=REDIS_CONNECTIONS, timeout=REDIS_POOL_WAIT_S,
        health_check_interval=10, socket_keepalive=True)
    client = redis.Redis(connection_pool=pool)
    require_redis_7(client)
    return client


MIN_REDIS = (7, 0)


def require_redis_7(client: redis.Redis) -> None:
    """Refuse to start on a Redis older than 7.0: every append announces itself with
    ``SPUBLISH`` (sharded pub/sub, for the live streams), and on an older server every
    move would fail. A Redis that does not answer yet is not checked (the API starts and
    answers 503 until it does)."""
    try:
        version = str(client.info("server").get("redis_version", ""))
    except redis.RedisError:
        log.warning("Redis did not answer at start; its version (7.0 or newer) is unchecked")
        return
    found = tuple(int(part) for part in version.split(".")[:2] if part.isdigit())
    if found and found < MIN_REDIS:
        raise RuntimeError(f"Redis {version} is too old: the server needs Redis 7.0 or newer "
                           "(sharded pub/sub for live streams)")


def retention(settings: Settings, client: redis.Redis, repository: Repository) -> Retention:
    """Embedded mode's bound on memory: the newest ``keep_finished`` finished matches stay,
    older ones are deleted and dropped from the caches. Real mode keeps every match."""
    finished = FinishedMatches(client, settings.key_prefix, settings.keep_finished)
    return Retention(finished, [repository.forget])


def bootstrap(settings: Settings | None = None, client: redis.Redis | None = None,
              in_process: bool | None = None) -> Wiring:
    """Wire one process. ``in_process`` defaults to the embedded mode's (steps, clocks and
    webhooks in this process); False queues them for workers."""
    settings = settings or Settings.from_env()
    client = client or connect(settings)
    in_process = settings.embedded if in_process is None else in_process
    store = RedisEventStore(client, settings.key_prefix)
    repository = Repository(store)
    index = WorkIndex(client, settings.key_prefix)
    work: Work
    if in_process:
        clock_timer = ClockRunner(lambda match_id, turn: clocks.on_deadline(match_id, turn))
        deliveries = DeliveryRunner(client, settings.key_prefix,
                                    private=settings.private_webhooks)
        work = InProcessWork(clock_timer, deliveries)
    else:
        work = QueuedWork(JobQueue(client, settings.key_prefix), index)
    live = LiveStreams(store)
    feed = FeedStore(client, settings.key_prefix)
    subscribers: list[Subscriber] = [
        OrganiserNotices(feed, Webhooks(client, settings.key_prefix),
                         OrganiserKeys(client, settings.key_prefix), repository.meta,
                         work.deliver),
        live.acted,
    ]
    if settings.embedded:
        subscribers.append(retention(settings, client, repository))
    runner = CommandRunner(repository, Subscribers(subscribers), work)
    clocks = Clocks(runner, reschedule=work.after)
    if isinstance(work, InProcessWork):
        work.steps = runner
        work.verifier = lambda match_id, verification_id: run_verification(
            repository, match_id, verification_id)
    matches = MatchService(runner, work, settings.admin_token, live, feed,
                           settings.lobby_ttl_s)
    return Wiring(settings, client, store, repository, runner, clocks, matches, work, index,
                  in_process)
