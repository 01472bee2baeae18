"""Backends for every test that touches Redis: in-process fakeredis, a real server and, with
``RUMMY_TEST_BACKENDS=fakeredis,real_redis,cluster`` (as ``make test`` runs), a 3-master
Redis Cluster of the session's own.

The real server is ``REDIS_URL`` or redis://127.0.0.1:6379/0. Each test works under its
own key prefix and deletes its keys afterwards, so a shared server is left as found.
When no real Redis answers, those tests skip loudly; under ``CI=true`` they fail.

The HTTP tests share one Flask app (``shared_app``), each answering with its own wiring
on its own backend and prefix (``serving``).

Every test carries the marker of its tier, from its directory (``TIERS``), and
``real_redis`` or ``cluster`` when it runs on one of those, so ``make test-fast`` picks the
quick tiers on fakeredis. Under pytest-xdist each worker process uses its own database of the real
server (``gw1`` the next after ``REDIS_URL``'s), so RQ's shared keys of one worker's test
never meet another's.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import fakeredis
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import run_wsgi_app

from service.config import Settings

if TYPE_CHECKING:
    from service.bootstrap import Wiring
    from tests.cluster import ClusterProcesses

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _worker_database(url: str) -> str:
    """``url`` with the database of this pytest-xdist worker (``gw<n>``: the URL's own
    plus n); unchanged outside xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    base, _, database = url.rpartition("/")
    own = int(database) if database.isdigit() else 0
    return f"{base if database.isdigit() else url.rstrip('/')}/{own + int(worker[2:])}"


REAL_REDIS_URL = _worker_database(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))

TIERS = {"domain": "domain", "usecases": "usecases", "contract": "contract",
         "workers": "workers", "service": "http", "clients": "http", "browser": "browser",
         "faults": "faults"}
"""Test directories and their tier markers (pyproject.toml declares them)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
        tier = TIERS.get(parts[0], "project") if len(parts) > 1 else "project"
        item.add_marker(tier)
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("redis_backend") if callspec is not None else None
        if backend in ("real_redis", "cluster"):
            item.add_marker(backend)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterProcesses]:
    """A 3-master Redis Cluster of this session's own (``tests.cluster``), started on first
    need and stopped (its own processes only) at the end; skipped loudly where
    redis-server is missing, failed under ``CI=true``."""
    from tests.cluster import missing, running_cluster

    why = missing()
    if why is not None:
        cannot_run("REDIS-CLUSTER", why)
    with running_cluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@contextmanager
def on_cluster(cluster: ClusterProcesses) -> Iterator[tuple[redis.Redis, str]]:
    """A cluster client (as the server's: ``service.bootstrap``) and a key prefix of this
    test's own; its keys are deleted afterwards, one by one (they live in many slots)."""
    from service.bootstrap import _cluster
    from tests.cluster import disconnect

    prefix = f"t{uuid.uuid4().hex[:10]}"
    client = _cluster(cluster.url)
    try:
        yield client, prefix
    finally:
        for key in list(client.scan_iter(match=f"*{prefix}*", count=1000)):
            client.delete(key)
        disconnect(client)


BACKENDS = os.environ.get("RUMMY_TEST_BACKENDS", "fakeredis,real_redis").split(",")
"""The backends every ``redis_backend`` test runs on: ``fakeredis``, ``real_redis`` and
``cluster`` (a 3-master Redis Cluster of the session's own)."""


@pytest.fixture(params=BACKENDS)
def redis_backend(request: pytest.FixtureRequest) -> Iterator[tuple[redis.Redis, str]]:
    """A Redis client and a unique key prefix for this test, on each backend."""
    with backend(request) as given:
        yield given


@contextmanager
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[redis.Redis, str]]:
    """The backend ``request.param`` names: ``fakeredis``, ``real_redis`` or ``cluster``
    (the session's ``redis_cluster``: a suite that runs on it too parametrizes its own
    ``redis_backend`` with it)."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
        yield client, prefix
        return
    if request.param == "cluster":
        with on_cluster(request.getfixturevalue("redis_cluster")) as given:
            yield given
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


@pytest.fixture
def jobs_redis(redis_backend: tuple[redis.Redis, str], request: pytest.FixtureRequest,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[redis.Redis]:
    """The Redis of this test's jobs (RQ's queues): the events' own, except on a cluster,
    where RQ cannot run and jobs go to a plain Redis apart, as a deployment's
    ``RQ_REDIS_URL``: there the real server, with the environment a worker builds its
    wiring from (``workers.context``) naming the cluster for the events."""
    client, prefix = redis_backend
    if request.node.callspec.params.get("redis_backend") != "cluster":
        yield client
        return
    monkeypatch.setenv("RUMMY_REDIS_CLUSTER", "true")
    monkeypatch.setenv("REDIS_URL", request.getfixturevalue("redis_cluster").url)
    monkeypatch.setenv("RQ_REDIS_URL", REAL_REDIS_URL)
    jobs = _real_redis()
    try:
        with rq_left_as_found(jobs, prefix):
            yield jobs
    finally:
        _delete_prefix(jobs, prefix)
        jobs.close()


# --- one Flask app for the run -------------------------------------------------------------

class CookielessClient(FlaskClient):
    """Flask's test client without its cookie jar: the API sets and reads no cookies
    (``test_no_answer_sets_a_cookie``), and werkzeug works out each request's URL twice to
    match and store them, a sixth of the test client's own time per request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "use_cookies": False})

    def run_wsgi_app(self, environ: dict[str, Any], buffered: bool = False) -> Any:
        return run_wsgi_app(self.application, environ, buffered=buffered)


Flask.test_client_class = CookielessClient


APP_LEVEL = ("rate_limits", "cors_origins", "deadlines")
"""Settings ``create_app`` builds into the Flask app itself rather than its wiring: a test
that changes one builds an app of its own."""


def app_level(settings: Settings) -> list[object]:
    return [getattr(settings, name) for name in APP_LEVEL]


@pytest.fixture(scope="session")
def shared_app() -> Flask:
    """One app for every HTTP test that keeps the app-level settings (``APP_LEVEL``) at
    their defaults: building one takes far longer than most tests. It serves no wiring of
    its own; ``serving`` gives it each test's."""
    from service.api.app import create_app

    app = create_app(Settings(redis_url="redis://unused"), client=fakeredis.FakeRedis())
    app.extensions.pop("rummy").close()
    app.config.pop("SETTINGS")
    return app


@pytest.fixture
def serving(request: pytest.FixtureRequest,
            shared_app: Flask) -> Iterator[Callable[..., Flask]]:
    """``serving(settings, client, jobs_inline=None, clock=time.time)``: the shared app
    answering with a wiring built for this test alone (``create_app``'s arguments, without
    the cost of building an app), so a test sees nothing held in memory by another (caches,
    timers, streams, settings). The wiring is closed and taken out after the test, before
    the test's Redis backend deletes its keys, so none of its threads writes after that."""
    from service.api.app import serve_wiring, wire

    if "redis_backend" in request.fixturenames:
        request.getfixturevalue("redis_backend")  # set up first, so torn down last
    served: list[Wiring] = []

    def serve(settings: Settings, client: redis.Redis, jobs_inline: bool | None = None,
              clock: Callable[[], float] = time.time,
              job_client: redis.Redis | None = None) -> Flask:
        assert not served, "the shared app serves one wiring a test: build another app"
        assert app_level(settings) == app_level(Settings()), \
            f"the shared app keeps the defaults of {APP_LEVEL}: build an app for these settings"
        served.append(wire(settings, client, jobs_inline, clock, job_client=job_client))
        serve_wiring(shared_app, served[0])
        return shared_app

    yield serve
    shared_app.extensions.pop("rummy", None)
    shared_app.config.pop("SETTINGS", None)
    for wiring in served:
        wiring.close()


# --- a real server -------------------------------------------------------------------------

LIVE_ADMIN = "live-admin-secret"
"""The organiser (admin) token of ``live_server``."""


@contextmanager
def serving_api(name: str, argv: Callable[[int], list[str]], env: dict[str, str],
                log: Path) -> Iterator[str]:
    """An API process (``argv(port)`` on a free port) until the block ends; its URL once
    ``/healthz`` answers. The process is stopped however the block ends, within a few
    seconds: a test has no use for gunicorn's graceful wait on streams nobody reads."""
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
        server.stop(grace=3.0)


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
