"""Backends for every test that touches Redis: in-process fakeredis and a real server.

The real server is ``REDIS_URL`` or redis://127.0.0.1:6379/0. Each test works under its
own key prefix and deletes its keys afterwards, so a shared server is left as found.
When no real Redis answers, those tests skip loudly; under ``CI=true`` they fail.
"""

from __future__ import annotations

import os
import sys
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import fakeredis
import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
REAL_REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def cannot_run(suite: str, why: str) -> NoReturn:
    """Tests that need what this machine lacks (a real Redis, redis-server, a browser): a
    loud skip on a developer's machine, a failure under ``CI=true``, where every test runs."""
    message = f"{suite} TESTS CANNOT RUN: {why}"
    if IN_CI:
        pytest.fail(f"{message} (CI=true: they must run)", pytrace=False)
    pytest.skip(f"!!! {message} — SKIPPED !!!")


def _real_redis() -> redis.Redis:
    client = redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        cannot_run("REAL-REDIS", f"no Redis at {REAL_REDIS_URL}: {exc}")
    return client


@contextmanager
def rq_left_as_found(client: redis.Redis, prefix: str) -> Iterator[None]:
    """RQ keeps shared keys (``rq:queues``, ``rq:finished:scoring``, worker records): drop
    the ones the block created and take this test's jobs out of the ones it found."""
    before = set(client.scan_iter(match="rq:*"))
    yield
    for key in set(client.scan_iter(match="rq:*")) - before:
        client.delete(key)
    for key in before:
        if client.type(key) == b"zset":
            stale = [m for m in client.zrange(key, 0, -1) if prefix.encode() in m]
            if stale:
                client.zrem(key, *stale)


def _delete_prefix(client: redis.Redis, prefix: str) -> None:
    keys = list(client.scan_iter(match=f"*{prefix}*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture(params=["fakeredis", "real_redis"])
def redis_backend(request: pytest.FixtureRequest) -> Iterator[tuple[redis.Redis, str]]:
    """A Redis client and a unique key prefix for this test, on each backend."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
        yield client, prefix
        return
    client = _real_redis()
    try:
        with rq_left_as_found(client, prefix):
            yield client, prefix
    finally:
        _delete_prefix(client, prefix)
        client.close()


@pytest.fixture
def redis_client(redis_backend: tuple[redis.Redis, str]) -> redis.Redis:
    return redis_backend[0]


@pytest.fixture
def key_prefix(redis_backend: tuple[redis.Redis, str]) -> str:
    return redis_backend[1]


# --- a real server -------------------------------------------------------------------------

LIVE_ADMIN = "live-admin-secret"
"""The organiser (admin) token of ``live_server``."""


@contextmanager
def serving_api(name: str, argv: Callable[[int], list[str]], env: dict[str, str],
                log: Path) -> Iterator[str]:
    """An API process (``argv(port)`` on a free port) until the block ends; its URL once
    ``/healthz`` answers. The process is stopped however the block ends."""
    from tests.faults.conftest import Proc, free_port, wait_until

    port = free_port()
    server = Proc(name, argv(port), env, ROOT, log)
    server.start()
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        server.check_running()
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    try:
        wait_until(healthy, 30, f"the API on port {port}", 0.1)
        yield url
    finally:
        server.stop()


def server_env(**settings: str) -> dict[str, str]:
    """This environment without the settings a test server must not inherit, plus ``settings``."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"REDIS_URL", "RUMMY_KEY_PREFIX", "RUMMY_ADMIN_TOKEN", "PYTHONPATH"}}
    return {**env, **settings}


def gunicorn_argv(port: int) -> list[str]:
    """The API under gunicorn on ``port``, configured as every deployment is
    (service/gunicorn_conf.py: gevent), with one worker (embedded mode needs one)."""
    return [sys.executable, "-m", "gunicorn", "service.api.app:wsgi()", "-c",
            "python:service.gunicorn_conf", "--bind", f"127.0.0.1:{port}", "--workers", "1"]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API under gunicorn (embedded mode, limits off) on a free port, configured as
    every deployment is; its URL. A missing gunicorn fails: it is a dependency."""
    env = server_env(RUMMY_ADMIN_TOKEN=LIVE_ADMIN, RUMMY_RATE_LIMITS="off")
    with serving_api("live-api", gunicorn_argv, env,
                     tmp_path_factory.mktemp("live") / "api.log") as url:
        yield url
