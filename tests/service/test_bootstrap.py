"""Starting a process on a real Redis (service/bootstrap.py)."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest
import redis

from service.bootstrap import bootstrap, require_redis_7
from service.config import Settings
from service.usecases.background import QueuedWork


class Server:
    """A Redis as far as ``INFO server`` goes."""

    def __init__(self, version: str | None) -> None:
        self.version = version

    def info(self, section: str) -> dict[str, Any]:
        assert section == "server"
        if self.version is None:
            raise redis.ConnectionError("not up yet")
        return {"redis_version": self.version}


@pytest.mark.parametrize("version", ["7.0.15", "7.2.4", "8.0.0", "10.1"])
def test_redis_7_or_newer_is_accepted(version):
    require_redis_7(Server(version))  # type: ignore[arg-type]


@pytest.mark.parametrize("version", ["6.2.14", "5.0.7"])
def test_an_older_redis_is_refused_at_start_with_the_reason(version):
    with pytest.raises(RuntimeError, match=f"Redis {version} is too old.*7.0 or newer"):
        require_redis_7(Server(version))  # type: ignore[arg-type]


def test_a_redis_that_is_not_up_yet_does_not_stop_the_start():
    require_redis_7(Server(None))  # type: ignore[arg-type]



def test_a_gunicorn_worker_that_exits_closes_what_its_app_started(redis_client, key_prefix):
    """``Wiring.close`` runs at the process's end (gunicorn's ``worker_exit`` hook): the
    stream hub closes, so open streams end and their clients reconnect elsewhere."""
    from types import SimpleNamespace

    from service import gunicorn_conf
    from service.api.app import create_app
    from service.config import Settings

    app = create_app(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                     client=redis_client, jobs_inline=True)
    hub = app.extensions["rummy"].streams.live.hub
    subscription = hub.subscribe({f"{key_prefix}:k": "0-0"}, 60)
    gunicorn_conf.worker_exit(None, SimpleNamespace(wsgi=app))
    assert subscription.get() == [] and subscription.closed


# --- the three addresses: events, jobs, rate limits ---------------------------------------


def test_jobs_and_rate_limits_default_to_the_events_redis(monkeypatch):
    for name in ("RQ_REDIS_URL", "RUMMY_RATE_LIMIT_STORAGE", "RUMMY_REDIS_CLUSTER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://events:6379/0")
    settings = Settings.from_env()
    assert (settings.redis_cluster, settings.jobs_url, settings.limiter_storage) == \
        (False, "redis://events:6379/0", "redis://events:6379/0")
    assert not settings.separate_jobs
    assert Settings().limiter_storage == "memory://"


def test_the_rate_limits_default_to_the_job_redis(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://events:6379/0")
    monkeypatch.setenv("RQ_REDIS_URL", "redis://jobs:6379/0")
    monkeypatch.delenv("RUMMY_RATE_LIMIT_STORAGE", raising=False)
    settings = Settings.from_env()
    assert settings.separate_jobs and settings.limiter_storage == "redis://jobs:6379/0"
    monkeypatch.setenv("RUMMY_RATE_LIMIT_STORAGE", "redis+cluster://node:7000")
    assert Settings.from_env().limiter_storage == "redis+cluster://node:7000"


def test_a_cluster_without_a_job_redis_is_refused_at_start_with_the_reason(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://node:7000")
    monkeypatch.setenv("RUMMY_REDIS_CLUSTER", "true")
    monkeypatch.delenv("RQ_REDIS_URL", raising=False)
    with pytest.raises(ValueError, match="RQ_REDIS_URL.*RQ cannot run on a cluster"):
        Settings.from_env()
    monkeypatch.setenv("RUMMY_REDIS_CLUSTER", "sometimes")
    with pytest.raises(ValueError, match="RUMMY_REDIS_CLUSTER must be true or false"):
        Settings.from_env()


def test_jobs_are_queued_on_the_job_redis_and_events_kept_on_the_events_one():
    events, jobs = fakeredis.FakeRedis(), fakeredis.FakeRedis()
    settings = Settings(redis_url="redis://events", rq_redis_url="redis://jobs",
                        key_prefix="split")
    wiring = bootstrap(settings, events, in_process=False, job_client=jobs)
    try:
        assert wiring.job_client is jobs and wiring.client is events
        assert isinstance(wiring.work, QueuedWork)
        wiring.work.verify("m1", "v1")
        assert jobs.keys("rq:queue:*") and not events.keys("rq:*")
    finally:
        wiring.close()
