"""One bootstrap wires settings, Redis, the event store, the repository, the command runner
and background work, for every entry point: the Flask app, the worker and the CLI.

Two ways to run (docs/configuration.md): embedded (no ``REDIS_URL``: in-process
fakeredis, owed work paid on an in-process timer, finished matches beyond
``RUMMY_EMBEDDED_KEEP_FINISHED`` deleted) and real (Redis, RQ workers, the reconciler;
every match kept). Nothing is built at import time, and nothing is registered in a
module: each entry point holds its own ``Wiring``.
"""

from __future__ import annotations

import logging
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import fakeredis
import redis
from redis.cluster import RedisCluster

from domain.match import Match
from domain.tournaments.tournament import Tournament
from service.adapters import addresses
from service.adapters.analyses import AnalysisRecords
from service.adapters.analyst import ChildAnalyst
from service.adapters.audit_pool import AuditPool
from service.adapters.auth import TokenIndex
from service.adapters.batches import BatchStore
from service.adapters.catalog import MatchIndex
from service.adapters.cluster_client import REINITIALIZE_STEPS, ClusterClient
from service.adapters.connections import quick_connections
from service.adapters.deliveries import DeliveryRunner
from service.adapters.fanout import StreamHub
from service.adapters.feed import FeedStore
from service.adapters.jobs import JobQueue
from service.adapters.lobby import LobbyStore
from service.adapters.metrics import PrometheusMetrics
from service.adapters.organisers import OrganiserKeys
from service.adapters.presence import Presence
from service.adapters.ratings import RedisRatings
from service.adapters.rematches import RematchTokenHashes
from service.adapters.replica_acks import ReplicaAcks
from service.adapters.reports import VerificationReports
from service.adapters.retention import FinishedMatches
from service.adapters.snapshots import RedisSnapshots
from service.adapters.store import RedisEventStore, block_slice_ms
from service.adapters.tickets import TicketStore
from service.adapters.tournament_entry import RedisOpenEntries
from service.adapters.webhooks import Webhooks
from service.adapters.work import WorkIndex
from service.adapters.work_timer import WorkTimer
from service.config import Settings
from service.usecases.access import Access
from service.usecases.analyses import IN_FLIGHT_TTL_S as ANALYSIS_IN_FLIGHT_TTL_S
from service.usecases.analyses import RESULT_TTL_S, TIME_LIMIT_S, Analyses, run_analysis
from service.usecases.audit import IN_FLIGHT_TTL_S, REPORT_TTL_S, Audits, run_verification
from service.usecases.background import InProcessWork, QueuedWork, Work
from service.usecases.creation import MatchCreation
from service.usecases.creator_presence import CreatorWatch
from service.usecases.hosted_tournaments import (
    EntryClosed,
    HostedTournaments,
    tournament_not_found,
)
from service.usecases.lifecycle import OrganiserNotices
from service.usecases.live import LiveStreams
from service.usecases.obligations import KINDS, Obligations
from service.usecases.organisers import OrganiserAdmin
from service.usecases.play import Play
from service.usecases.queries import MatchQueries
from service.usecases.rematches import Rematches
from service.usecases.repository import CACHE_SIZE, AggregateKind, Repository
from service.usecases.retention import Retention
from service.usecases.runner import CommandRunner
from service.usecases.seats import Seats
from service.usecases.snapshots import Snapshots, SnapshotWriter
from service.usecases.streams import MatchStreams
from service.usecases.subscribers import Subscriber, Subscribers
from service.usecases.tickets import StreamTickets
from service.usecases.tournament_audits import TournamentAudits, run_tournament_verification
from service.usecases.tournament_notices import TournamentNotices
from service.usecases.tournament_progress import (
    MatchTables,
    TableEnded,
    TournamentContext,
    shown,
)
from service.usecases.tournaments import Tournaments
from service.usecases.uploaded_logs import UploadedLogs
from service.usecases.webhooks import WebhookRegistration

log = logging.getLogger("rummy")

REDIS_CONNECTIONS = 128
"""Redis connections per process at most. Under the gevent worker thousands of requests and
streams share a process; a request waits for a free connection (up to
``REDIS_POOL_WAIT_S``, then 503) instead of opening one more socket each, which would
exhaust Redis's ``maxclients`` and the process's open files (service/gunicorn_conf.py)."""
REDIS_POOL_WAIT_S = 5.0
AUDIT_CHILD = (sys.executable, "-m", "service.audit_child")
"""The process that verifies one uploaded log (``AuditPool``)."""
ANALYSIS_CHILD = (sys.executable, "-m", "service.analysis_child",
                  "--cpu-seconds", str(TIME_LIMIT_S))
"""The process that analyses one finished match in embedded mode (``ChildAnalyst``)."""


@dataclass
class Wiring:
    """Everything one process needs, built once: the adapters the workers and tools use,
    and the use cases the API calls."""

    settings: Settings
    client: redis.Redis
    """The events' Redis: the store and everything kept per match."""
    store: RedisEventStore
    repository: Repository[Match]
    runner: CommandRunner
    obligations: Obligations
    work: Work
    index: WorkIndex
    in_process: bool
    catalog: MatchIndex
    access: Access
    creation: MatchCreation
    queries: MatchQueries
    play: Play
    streams: MatchStreams
    tickets: StreamTickets
    seats: Seats
    rematches: Rematches
    audits: Audits
    analyses: Analyses
    tournaments: Tournaments
    webhooks: WebhookRegistration
    organisers: OrganiserAdmin
    uploads: UploadedLogs
    hosted: HostedTournaments
    """Tournaments the server pairs and records (the second aggregate)."""
    tournament_audits: TournamentAudits
    tournament_store: RedisEventStore
    metrics: PrometheusMetrics
    """What the server counts (``service.ports.Metrics``), served at ``GET /metrics`` and
    by a worker's ``--metrics-port``."""
    job_client: redis.Redis
    """The jobs' Redis (``Settings.jobs_url``): RQ's queues, its workers and their
    retries; the events' one unless ``RQ_REDIS_URL`` names another."""
    closers: list[Callable[[], object]] = field(default_factory=list)
    unavailable: tuple[type[Exception], ...] = (redis.RedisError,)
    """The store's errors for "does not answer" (HTTP 503 ``store_unavailable``)."""

    def aggregates(self) -> dict[str, tuple[Callable[[int, int], list[str]], Repository[Any]]]:
        """Each kind of aggregate's pages of ids and repository (``rummy reconcile
        --scan``)."""
        return {"match": (self.store.match_ids, self.repository),
                "tournament": (self.tournament_store.match_ids, self.hosted.repository)}

    def close(self) -> None:
        """Stop what runs in the background of this process: the live stream hub, and in
        embedded mode the work timer and the webhook deliveries. Registered for the
        process's end (gunicorn's worker exit, the worker's shutdown)."""
        for close in self.closers:
            close()


def connect(settings: Settings) -> redis.Redis:
    """The events' Redis of ``settings``: the real one, or a fresh in-process fakeredis."""
    if settings.embedded:
        log.warning("EMBEDDED MODE: in-process fakeredis, jobs run in-process. "
                    "All data is in memory only and is lost when the server stops. "
                    "Set REDIS_URL to use a real Redis.")
        return fakeredis.FakeRedis(server=fakeredis.FakeServer())
    client = (_cluster(settings.redis_url) if settings.redis_cluster  # type: ignore[arg-type]
              else _plain(settings.redis_url))  # type: ignore[arg-type]
    require_redis_7(client)
    return client


def _cluster(url: str) -> redis.Redis:
    """redis-py's cluster client from any node's URL, with the plain client's settings
    (bytes, a blocking pool of ``REDIS_CONNECTIONS`` per node). It answers every command
    the adapters send: each keeps its multi-key operations inside one slot
    (docs/operations.md "Redis Cluster"), and ``service.adapters.presence`` sends scripts one by
    one on it rather than pipelined."""
    return cast(redis.Redis, ClusterClient.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_POOL_WAIT_S,
        reinitialize_steps=REINITIALIZE_STEPS,
        connection_pool_class=redis.BlockingConnectionPool, health_check_interval=10,
        socket_keepalive=True, socket_connect_timeout=5, **quick_connections(url),
        # no read timeout, as the plain client: the cluster client's default (5 s) would
        # cut the reconciler's BLPOP and the hub's blocking reads, and retry them for 55 s
        socket_timeout=None))


def connect_jobs(settings: Settings, events: redis.Redis) -> redis.Redis:
    """The jobs' Redis of ``settings``: ``events`` itself unless it lives apart
    (``Settings.separate_jobs``)."""
    if not settings.separate_jobs:
        return events
    return _plain(settings.jobs_url)  # type: ignore[arg-type]


def _plain(url: str) -> redis.Redis:
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_POOL_WAIT_S,
        health_check_interval=10, socket_keepalive=True, **quick_connections(url))
    return redis.Redis(connection_pool=pool)


def limiter_options(settings: Settings) -> dict[str, Any]:
    """The options of the rate limiter's storage client: on a plain Redis, the matches'
    client's cheap readiness check (``service.adapters.connections``)."""
    return quick_connections(settings.limiter_storage)


MIN_REDIS = (7, 0)


def require_redis_7(client: redis.Redis) -> None:
    """Refuse to start on a Redis older than 7.0: every append announces itself with
    ``SPUBLISH`` (sharded pub/sub, for the live streams), and on an older server every
    move would fail. A Redis that does not answer yet is not checked (the API starts and
    answers 503 until it does)."""
    try:
        if isinstance(client, RedisCluster):  # every master, not the one node INFO asks
            info = client.info("server", target_nodes=RedisCluster.PRIMARIES)
            versions = [str(node.get("redis_version", "")) for node in info.values()]
        else:
            versions = [str(client.info("server").get("redis_version", ""))]
    except redis.RedisError:
        log.warning("Redis did not answer at start; its version (7.0 or newer) is unchecked")
        return
    for version in versions:
        found = tuple(int(part) for part in version.split(".")[:2] if part.isdigit())
        if found and found < MIN_REDIS:
            raise RuntimeError(f"Redis {version} is too old: the server needs Redis 7.0 or "
                               "newer (sharded pub/sub for live streams)")


def bootstrap(settings: Settings | None = None, client: redis.Redis | None = None,
              in_process: bool | None = None,
              clock: Callable[[], float] = time.time, *, pay_inline: bool = False,
              metrics: PrometheusMetrics | None = None,
              job_client: redis.Redis | None = None,
              cache_size: int = CACHE_SIZE) -> Wiring:
    """Wire one process: every adapter and every use case, each built once and given to
    the others by constructor. ``in_process`` defaults to the embedded mode's (owed work
    on this process's timer thread, webhooks on its own threads); False queues them for
    workers. ``clock`` is the wall clock every part reads (the events' times, deadlines,
    the work index): tests inject their own. ``pay_inline``, for tests and benches only
    (``InProcessWork``): in-process work due at once is paid before a write answers.
    ``metrics``: where every part counts (a fresh registry of its own by default).
    ``client`` is the events' Redis, ``job_client`` the jobs' (RQ): each connected from
    ``settings`` when not given, the jobs' one being the events' unless
    ``Settings.separate_jobs``. ``cache_size``: the matches the repository keeps folded
    (``Repository``); a worker keeps more (``workers.__main__.CACHE_SIZE``)."""
    settings = settings or Settings.from_env()
    client = client or connect(settings)
    job_client = job_client or connect_jobs(settings, client)
    in_process = settings.embedded if in_process is None else in_process
    prefix = settings.key_prefix
    metrics = metrics or PrometheusMetrics()
    acks = ReplicaAcks(settings.replica_acks, settings.replica_ack_timeout_ms)
    store = RedisEventStore(client, prefix, clock, metrics=metrics, acks=acks)
    snapshots = Snapshots(RedisSnapshots(client, store.key, metrics), settings.snapshot_every)
    repository: Repository[Match] = Repository(store, cache_size, snapshots=snapshots)
    index = WorkIndex(client, prefix, KINDS, clock)
    tokens = TokenIndex(client, prefix)
    organiser_keys = OrganiserKeys(client, prefix)
    catalog = MatchIndex(client, prefix)
    lobby = LobbyStore(client, prefix)
    reports = VerificationReports(client, store.key, REPORT_TTL_S, IN_FLIGHT_TTL_S, clock)
    analysis_records = AnalysisRecords(client, store.key, RESULT_TTL_S,
                                       ANALYSIS_IN_FLIGHT_TTL_S, clock)
    feed = FeedStore(client, prefix)
    webhooks = Webhooks(client, prefix)
    work: Work
    timer = WorkTimer(clock)
    deliveries = DeliveryRunner(client, prefix, private=settings.private_webhooks)
    local: InProcessWork | None = None
    if in_process:
        analyst = ChildAnalyst(ANALYSIS_CHILD, TIME_LIMIT_S)
        # The tournament verifier reads ``hosted`` and ``tournament_reports``, built below
        # on this work (a verification is only asked for once the wiring is done).
        work = local = InProcessWork(timer, deliveries,
                                     lambda match_id, verification_id: run_verification(
                                         repository, reports, match_id, verification_id),
                                     clock, pay_inline=pay_inline,
                                     analyser=lambda match_id, analysis_id: run_analysis(
                                         repository, analysis_records, analyst, match_id,
                                         analysis_id),
                                     tournament_verifier=lambda tournament_id, verification_id:
                                     run_tournament_verification(
                                         hosted, tournament_reports, tournament_id,
                                         verification_id))
    else:
        work = QueuedWork(JobQueue(job_client, prefix, TIME_LIMIT_S), index, clock)
    live = LiveStreams(store, Presence(client, store.key, clock=clock,
                                       events=store,
                                       metrics=metrics),
                       StreamHub(client, f"{prefix}:hub:{uuid.uuid4().hex}",
                                 idle_ms=block_slice_ms(client), metrics=metrics))
    notices = OrganiserNotices(feed, webhooks, organiser_keys, repository.meta, work.deliver)
    subscribers: list[Subscriber] = [
        notices,
        live.acted,
        SnapshotWriter(snapshots),
    ]
    if settings.embedded:
        finished = FinishedMatches(client, prefix, settings.keep_finished, catalog, tokens,
                                   index, lambda match_id: [*reports.keys_of(match_id),
                                                            *analysis_records.keys_of(match_id)])
        subscribers.append(Retention(finished, [repository.forget]))
    subscribers.append(TableEnded(repository.meta, work.remind))
    runner = CommandRunner(repository, Subscribers(subscribers), work, observer=metrics)
    access = Access(store, settings.admin_token, repository.meta, lobby.get, tokens,
                    organiser_keys)
    creation = MatchCreation(runner, store, lobby, access, catalog, settings.lobby_ttl_s)
    tournament_store = RedisEventStore(client, prefix, clock, index="tournaments",
                                       metrics=metrics, acks=acks)
    tables = MatchTables(creation, repository, tournament_store.meta)
    ratings = RedisRatings(client, prefix, shown)
    tournament_reports = VerificationReports(client, tournament_store.key, REPORT_TTL_S,
                                             IN_FLIGHT_TTL_S, clock)
    tournament_repository: Repository[Tournament] = Repository(
        tournament_store, kind=AggregateKind("tournament", lambda meta: Tournament(),
                                             lambda meta: TournamentContext(meta, tables,
                                                                            ratings),
                                             tournament_not_found))
    entries = RedisOpenEntries(client, prefix)
    tournament_runner = CommandRunner(
        tournament_repository,
        Subscribers([TournamentNotices(notices, tournament_repository.meta),
                     EntryClosed(entries)]), work, observer=metrics)
    obligations = Obligations({"match": runner, "tournament": tournament_runner}, clock)
    if local is not None:
        local.start(obligations)
    metrics.watch_owed_work(timer if in_process else index, KINDS, clock)
    queries = MatchQueries(repository, lobby, access, live)
    hosted = HostedTournaments(tournament_runner, tournament_store, creation, access, queries,
                               tables, ratings, entries, clock)
    seats = Seats(creation, store, lobby, access, repository.meta, settings.lobby_ttl_s,
                  CreatorWatch(live.presence, settings.lobby_abandon_s, clock))
    wiring = Wiring(
        settings, client, store, repository, runner, obligations, work, index, in_process,
        catalog=catalog, access=access, creation=creation, queries=queries,
        play=Play(runner, access, queries, seats, metrics),
        streams=MatchStreams(queries, live, feed),
        tickets=StreamTickets(TicketStore(client, prefix), access, queries.is_over),
        seats=seats,
        rematches=Rematches(runner, access, queries, creation,
                            RematchTokenHashes(client, store.key)),
        audits=Audits(queries, reports, work.verify),
        analyses=Analyses(queries, analysis_records, work.analyse),
        tournaments=Tournaments(creation, queries, access, catalog, BatchStore(client, prefix)),
        webhooks=WebhookRegistration(webhooks, access, settings.private_webhooks,
                                     addresses.refused_at_registration),
        organisers=OrganiserAdmin(organiser_keys, access),
        uploads=UploadedLogs(AuditPool(AUDIT_CHILD, settings.audit_processes)),
        hosted=hosted,
        tournament_audits=TournamentAudits(hosted, tournament_reports,
                                           work.verify_tournament),
        tournament_store=tournament_store,
        metrics=metrics,
        job_client=job_client,
    )
    wiring.closers.append(live.close)
    if in_process:
        wiring.closers += [timer.stop, deliveries.close]
    return wiring

