"""Settings from the environment, read once by the app factory (never at import time)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RateLimits:
    """Abuse limits (``limits`` notation, e.g. ``30/minute``), per client address or token."""

    create: str = "30/minute"
    """Match creations without a token, per client address."""
    actions: str = "300/minute"
    """Actions per seat token: a person plays a few a minute, a fast bot a few a second."""
    tickets: str = "60/minute"
    """Stream tickets per token."""
    streams: str = "120/minute"
    """Stream and feed opens per client address."""
    auth_failures: str = "30/minute"
    """401s (a token or ticket that names nobody) per client address; past it, requests
    with a token or ticket from that address get 429."""
    verifications: str = "10/minute"
    """Verification requests, per client address and, separately, per match: anybody may
    ask, and each request that is not answered by one in flight costs a worker a replay."""
    analyses: str = "10/hour"
    """Analysis requests, per client address and, separately, per match: each new one
    costs a worker up to a minute of CPU at the defaults (far more at the largest)."""


@dataclass(frozen=True)
class Deadlines:
    """How long a request body may take to arrive, and an answer to be taken
    (``service.api.deadlines``), as Apache's mod_reqtimeout bounds bodies.

    A body must start and never pause for longer than ``grace_s``; it may take ``grace_s``
    plus one second for every ``min_rate`` bytes received, and never more than ``total_s``.
    Each part of an answer must be taken within ``grace_s`` plus its size at ``min_rate``.
    The defaults let a 6 MiB audit upload through any link of 0.5 Mbit/s or more (about
    100 s), and cut a client that sends nothing within 10 s.
    """

    total_s: float = 120.0
    """The longest any body may take (``RUMMY_BODY_TIMEOUT_S``)."""
    min_rate: int = 8192
    """Bytes a second a body (or an answer's reader) must keep up, on average, once the
    grace has passed (``RUMMY_BODY_MIN_RATE``): 64 kbit/s, below any usable link."""
    grace_s: float = 10.0
    """The longest wait for a body's first byte, for any next byte, and the time granted
    before the rate counts (``RUMMY_BODY_GRACE_S``)."""


@dataclass(frozen=True)
class Settings:
    """``redis_url`` None means the embedded default: in-process fakeredis, jobs in-process.

    Three Redis addresses (docs/operations.md "Redis Cluster"): ``redis_url`` for the
    events and everything kept per match (a plain Redis, or any node of a Redis Cluster
    with ``redis_cluster``), ``rq_redis_url`` for RQ's jobs (a plain Redis: RQ cannot run
    on a cluster) and ``rate_limit_storage`` for the rate limiter's counters (a
    Flask-Limiter storage URI). Unclustered, both default to ``redis_url``."""

    redis_url: str | None = None
    redis_cluster: bool = False
    """``RUMMY_REDIS_CLUSTER=true``: ``redis_url`` names a node of a Redis Cluster, and the
    events use redis-py's cluster client."""
    rq_redis_url: str | None = None
    """``RQ_REDIS_URL``: the job Redis (default ``redis_url``; required on a cluster)."""
    rate_limit_storage: str | None = None
    """``RUMMY_RATE_LIMIT_STORAGE``: where the limiter counts (default the job Redis; in
    embedded mode, memory). A ``redis+cluster://`` URI counts on a cluster."""
    admin_token: str | None = None
    key_prefix: str = "rummy"
    sse_keepalive_ms: int = 15000
    rate_limits: RateLimits | None = None
    """None turns them off (the default when built in code, as tests do); ``from_env`` turns
    them on unless ``RUMMY_RATE_LIMITS=off``."""
    lobby_ttl_s: int = 24 * 3600
    """How long a match with open seats waits for its next claim before it is dropped."""
    lobby_abandon_s: int = 120
    """``RUMMY_LOBBY_ABANDON_S``: how long a waiting match stays listed once its creator's
    seat is no longer here (no page open, no read with its token); then it is called off.
    0 keeps such matches listed until ``lobby_ttl_s``."""
    cors_origins: tuple[str, ...] = ("*",)
    """Origins whose pages may call the API (``*``: any; auth is a bearer token, not a
    cookie, so a page on another origin can only act with a token it was given)."""
    keep_finished: int = 1000
    """Embedded mode only: finished matches kept in memory; older ones are deleted
    (``service.adapters.retention``). Real Redis keeps every match."""
    private_webhooks: bool = False
    """``RUMMY_WEBHOOK_PRIVATE=allow``: webhooks may go to any address, loopback and the
    private network included. Off (``deny``), only global addresses are reached
    (``service.adapters.addresses``), checked at registration and after DNS at every
    delivery: an organiser key must not be a way to probe the server's own network."""
    deadlines: Deadlines = Deadlines()
    """How long bodies may take to arrive and answers to be taken."""
    audit_processes: int = 2
    """``RUMMY_AUDIT_PROCESSES``: uploaded logs verified at once by one API process, each
    in a child process of its own (``service.adapters.audit_pool``)."""
    snapshot_every: int = 100
    """``RUMMY_SNAPSHOT_EVERY``: events between two snapshots of a match's fold, which
    cold reads start from (``service.usecases.snapshots``); 0 turns them off."""
    replica_acks: int = 0
    """``RUMMY_REPLICA_ACKS``: replicas that must confirm every write (``WAIT``) before it
    is acknowledged; 0 acknowledges what the master alone holds (docs/operations.md
    "Durability")."""
    replica_ack_timeout_ms: int = 500
    """``RUMMY_REPLICA_ACK_TIMEOUT_MS``: how long a write waits for them; past it the
    client is answered 503 ``store_unavailable`` and retries with its idempotency key."""

    def __post_init__(self) -> None:
        if self.redis_cluster and self.redis_url is None:
            raise ValueError("RUMMY_REDIS_CLUSTER=true needs REDIS_URL (any node of the "
                             "cluster)")
        if self.redis_cluster and not self.rq_redis_url:
            raise ValueError("RUMMY_REDIS_CLUSTER=true needs RQ_REDIS_URL: the jobs' Redis "
                             "(a plain Redis, not the cluster: RQ cannot run on a cluster)")
        if self.replica_acks < 0 or self.replica_ack_timeout_ms < 1:
            raise ValueError("RUMMY_REPLICA_ACKS must be 0 or more and "
                             "RUMMY_REPLICA_ACK_TIMEOUT_MS 1 or more")
        if self.replica_acks and self.redis_url is None:
            raise ValueError("RUMMY_REPLICA_ACKS needs REDIS_URL: the embedded store has no "
                             "replicas")

    @property
    def embedded(self) -> bool:
        return self.redis_url is None

    @property
    def jobs_url(self) -> str | None:
        """The job Redis: ``rq_redis_url``, else ``redis_url`` (None in embedded mode)."""
        return self.rq_redis_url or self.redis_url

    @property
    def separate_jobs(self) -> bool:
        """Whether jobs live in a Redis of their own, not the events' one."""
        return self.jobs_url != self.redis_url

    @property
    def limiter_storage(self) -> str:
        """The rate limiter's storage URI: ``rate_limit_storage``, else the job Redis,
        else (embedded) memory."""
        return self.rate_limit_storage or self.jobs_url or "memory://"

    @classmethod
    def from_env(cls, **given: Any) -> Settings:
        """The settings of the environment; ``given`` ones win (a worker's command line)."""
        read: dict[str, Any] = dict(
            redis_url=os.environ.get("REDIS_URL") or None,
            redis_cluster=_flag("RUMMY_REDIS_CLUSTER"),
            rq_redis_url=os.environ.get("RQ_REDIS_URL") or None,
            rate_limit_storage=os.environ.get("RUMMY_RATE_LIMIT_STORAGE") or None,
            admin_token=os.environ.get("RUMMY_ADMIN_TOKEN") or None,
            key_prefix=os.environ.get("RUMMY_KEY_PREFIX", "rummy"),
            sse_keepalive_ms=int(os.environ.get("RUMMY_SSE_KEEPALIVE_MS", "15000")),
            cors_origins=_origins(os.environ.get("RUMMY_CORS_ORIGINS", "*")),
            lobby_ttl_s=int(os.environ.get("RUMMY_LOBBY_TTL_S", str(24 * 3600))),
            lobby_abandon_s=_whole("RUMMY_LOBBY_ABANDON_S", cls.lobby_abandon_s),
            rate_limits=_limits(),
            keep_finished=_at_least_one("RUMMY_EMBEDDED_KEEP_FINISHED", "1000"),
            private_webhooks=_allow("RUMMY_WEBHOOK_PRIVATE", cls.private_webhooks),
            deadlines=_deadlines(),
            audit_processes=_at_least_one("RUMMY_AUDIT_PROCESSES", str(cls.audit_processes)),
            snapshot_every=_whole("RUMMY_SNAPSHOT_EVERY", cls.snapshot_every),
            replica_acks=_whole("RUMMY_REPLICA_ACKS", cls.replica_acks),
            replica_ack_timeout_ms=_whole("RUMMY_REPLICA_ACK_TIMEOUT_MS",
                                          cls.replica_ack_timeout_ms),
        )
        return cls(**{**read, **given})


def _at_least_one(name: str, default: str) -> int:
    """A count from the environment that must be 1 or more: a bad one stops the start-up
    with its name rather than silently keeping everything or nothing."""
    text = os.environ.get(name, default).strip()
    value = int(text) if text.isdigit() else 0
    if value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {text!r}")
    return value


def _whole(name: str, default: int) -> int:
    """A whole number of 0 or more from the environment, ``default`` when unset; anything
    else stops the start-up with its name."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise ValueError(f"{name} must be a whole number of 0 or more, got {text!r}")
    return int(text)


def _deadlines() -> Deadlines:
    """``RUMMY_BODY_TIMEOUT_S``, ``RUMMY_BODY_MIN_RATE``, ``RUMMY_BODY_GRACE_S``: each
    must be a positive number, or the start-up stops with its name."""
    defaults = Deadlines()
    return Deadlines(total_s=_positive("RUMMY_BODY_TIMEOUT_S", defaults.total_s),
                     min_rate=int(_positive("RUMMY_BODY_MIN_RATE", defaults.min_rate)),
                     grace_s=_positive("RUMMY_BODY_GRACE_S", defaults.grace_s))


def _positive(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{name} must be a positive number, got {text!r}")
    return value


def _flag(name: str) -> bool:
    """``true`` or ``false`` (also 1/0, yes/no, on/off) from the environment, false when
    unset: a misspelt one stops the start-up with its name."""
    text = os.environ.get(name, "").strip().lower()
    if text in ("", "false", "0", "no", "off"):
        return False
    if text in ("true", "1", "yes", "on"):
        return True
    raise ValueError(f"{name} must be true or false, got {text!r}")


def _allow(name: str, default: bool) -> bool:
    """``allow`` (True) or ``deny`` from the environment, ``default`` when unset: a misspelt
    one stops the start-up with its name rather than silently meaning either."""
    text = os.environ.get(name, "").strip().lower()
    if text and text not in ("allow", "deny"):
        raise ValueError(f"{name} must be allow or deny, got {text!r}")
    return text == "allow" if text else default


def _origins(text: str) -> tuple[str, ...]:
    """``RUMMY_CORS_ORIGINS``: comma-separated origins, or ``*``; empty allows none."""
    return tuple(origin.strip().rstrip("/") for origin in text.split(",") if origin.strip())


def _limits() -> RateLimits | None:
    """``RUMMY_RATE_LIMITS`` (``on``/``off``) and ``RUMMY_LIMIT_<NAME>`` per limit."""
    if os.environ.get("RUMMY_RATE_LIMITS", "on").strip().lower() in {"off", "0", "false"}:
        return None
    defaults = RateLimits()
    return RateLimits(**{name: os.environ.get(f"RUMMY_LIMIT_{name.upper()}",
                                              getattr(defaults, name))
                         for name in ("create", "actions", "tickets", "streams",
                                      "auth_failures", "verifications", "analyses")})
