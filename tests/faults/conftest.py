"""The fault harness: a redis-server of its own (AOF, fsync always), the API under
gunicorn and one background worker, each a real process that a test can ``kill -9`` and
start again.

- ``redis-server`` runs on a free port in a temporary directory with ``--appendonly yes
  --appendfsync always --save ""``; a restart reuses the port and the directory, so Redis
  reloads its append-only file. The shared Redis on 127.0.0.1:6379 is never touched.
- The API: ``gunicorn -w 2 --threads 8`` on the app factory, ready once ``/healthz``
  answers 200.
- The worker: ``python -m workers --url --prefix`` (RQ jobs in-process, the reconciler,
  reconnection while Redis is away).

Every process starts in a session of its own, so a kill takes its whole process group
(gunicorn's workers, RQ's work horse and scheduler) like a container dying. Teardown kills
whatever the harness started, also when a test fails; an ``atexit`` hook and
``PR_SET_PDEATHSIG`` cover a test process that dies itself. Every wait polls with a
deadline. Missing ``redis-server`` or ``gunicorn`` skips loudly, and fails under ``CI=true``.

``RUMMY_FAULTS_ROOT`` runs the processes from another checkout (e.g. a ``git archive`` of
an older commit, to see the faults it does not survive).
"""

from __future__ import annotations

import atexit
import ctypes
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest
from redis import Redis

from tests.conftest import cannot_run

ROOT = Path(os.environ.get("RUMMY_FAULTS_ROOT") or Path(__file__).resolve().parents[2])
BIN = Path(sys.executable).parent

WORKER_COMMAND = ("{python}", "-m", "workers", "--url", "{url}", "--prefix", "{prefix}")
"""One worker process; it registers as an RQ worker (``rq:workers``, its hash with ``pid``
and ``state``), which is how the harness sees it is up."""
WSGI = "service.api.app:wsgi()"
HEALTH_PATH = "/healthz"  # service/api/health.py
RECOVERY_S = 5.0
"""Every match must be recovered this long after the worker (re)starts."""
SHARED_REDIS_PORT = 6379

T = TypeVar("T")


class HarnessError(AssertionError):
    """A process of the harness did not start, stop or answer in time."""


def unavailable(what: str) -> NoReturn:
    cannot_run("FAULT", f"they need {what}")


def wait_until(predicate: Callable[[], T | None], timeout: float, what: str,
               interval: float = 0.05) -> T:
    """Poll ``predicate`` until it returns something truthy, at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_error: BaseException | None = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except HarnessError:
            raise
        except Exception as exc:  # noqa: BLE001 - kept for the message
            last_error = exc
        if time.monotonic() >= deadline:
            raise HarnessError(f"timed out after {timeout:.1f}s waiting for {what}"
                               + (f" (last error: {last_error!r})" if last_error else ""))
        time.sleep(interval)


def free_port() -> int:
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != SHARED_REDIS_PORT:
            return port


# --- processes -------------------------------------------------------------------------

try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _PRCTL = None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the test process goes away."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


_LIVE: dict[int, Proc] = {}


@atexit.register
def _kill_leftovers() -> None:
    for proc in list(_LIVE.values()):
        proc.kill()


def group_pids(pgid: int) -> set[int]:
    """Live processes whose process group is ``pgid`` (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.add(int(entry))
    return found


class Proc:
    """One child process (and its process group), its output appended to a log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], cwd: Path,
                 log_path: Path) -> None:
        self.name, self.argv, self.env, self.cwd, self.log_path = name, argv, env, cwd, log_path
        self.popen: subprocess.Popen[bytes] | None = None
        self._log: Any = None
        self.started_at = 0.0
        self.starts = 0

    def start(self) -> None:
        if self.alive:
            raise HarnessError(f"{self.name} is already running (pid {self.pid})")
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed by kill/stop
        self._log.write(f"\n===== {time.strftime('%H:%M:%S')} start: {' '.join(self.argv)}\n"
                        .encode())
        self._log.flush()
        # PR_SET_PDEATHSIG fires when the *thread* that forked exits: main thread only
        on_main = threading.current_thread() is threading.main_thread()
        self.popen = subprocess.Popen(
            self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent if on_main else None)
        self.started_at = time.monotonic()
        self.starts += 1
        _LIVE[id(self)] = self

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None else None

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """``kill -9`` the whole process group and reap the leader."""
        self._signal_group(signal.SIGKILL)
        self._reap(10)

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM the group, SIGKILL what is left after ``grace`` seconds."""
        if self.popen is None:
            return
        self._signal_group(signal.SIGTERM)
        try:
            self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def _signal_group(self, sig: signal.Signals) -> None:
        if self.popen is None:
            return
        try:
            os.killpg(self.popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _reap(self, timeout: float) -> None:
        if self.popen is None:
            return
        pgid = self.popen.pid
        self.popen.wait(timeout=timeout)
        # orphans of the group (e.g. a work horse) may outlive the leader for a moment
        wait_until(lambda: not group_pids(pgid), timeout, f"{self.name}'s processes to exit",
                   interval=0.02)
        self.popen = None
        if self._log is not None:
            self._log.close()
            self._log = None
        _LIVE.pop(id(self), None)

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def check_running(self) -> None:
        if not self.alive:
            code = self.popen.returncode if self.popen is not None else None
            raise HarnessError(f"{self.name} is not running (exit {code}); its log ends:\n"
                               f"{self.tail()}")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"REDIS_URL", "RUMMY_KEY_PREFIX", "RUMMY_ADMIN_TOKEN",
                        "GUNICORN_CMD_ARGS", "WEB_CONCURRENCY", "PYTHONPATH"}}
    env["PYTHONPATH"] = str(ROOT)  # the processes import the code under test from ROOT
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


class RedisServer:
    """``redis-server`` with AOF on a free port; restarts keep the port and the dir."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.port = free_port()
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.dir), "--appendonly", "yes", "--appendfsync", "always",
                "--save", "", "--daemonize", "no", "--logfile", ""]
        self.proc = Proc("redis-server", argv, _env(), self.dir, workdir / "redis.log")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> Redis:
        return Redis(host="127.0.0.1", port=self.port, db=0, socket_timeout=5,
                           socket_connect_timeout=2)

    def start(self, timeout: float = 20.0) -> float:
        """Start and wait until it answers with its data loaded; returns the seconds taken."""
        began = time.monotonic()
        self.proc.start()

        def ready() -> bool:
            self.proc.check_running()
            client = self.client()
            try:
                client.ping()
                return int(client.info("persistence")["loading"]) == 0
            finally:
                client.close()

        wait_until(ready, timeout, f"redis-server on port {self.port}")
        return time.monotonic() - began

    def kill9(self) -> None:
        self.proc.kill()

    @property
    def alive(self) -> bool:
        return self.proc.alive


class ApiServer:
    """The API under gunicorn, on a Redis of the harness."""

    def __init__(self, binary: str, workdir: Path, redis_url: str, prefix: str,
                 admin: str) -> None:
        self.port = free_port()
        argv = [binary, "-w", "2", "--threads", "8", "-b", f"127.0.0.1:{self.port}",
                "--chdir", str(ROOT), "--timeout", "60", WSGI]
        if _has_option(binary, "--no-control-socket"):  # gunicorn 27: not ~/.gunicorn/
            argv.insert(-1, "--no-control-socket")
        env = _env(REDIS_URL=redis_url, RUMMY_KEY_PREFIX=prefix, RUMMY_ADMIN_TOKEN=admin)
        self.proc = Proc("gunicorn", argv, env, ROOT, workdir / "api.log")
        self.http = Http(self.port)

    def start(self, timeout: float = 30.0) -> None:
        self.proc.start()
        self.wait_healthy(timeout)

    def wait_healthy(self, timeout: float = 15.0) -> None:
        def healthy() -> bool:
            self.proc.check_running()
            try:
                return self.http.request("GET", HEALTH_PATH, timeout=2).status == 200
            except OSError:
                return False

        wait_until(healthy, timeout, f"GET {HEALTH_PATH} = 200 on port {self.port}", 0.1)

    def stop(self) -> None:
        self.proc.stop(grace=10)


def gevent_api(stack: Stack, name: str, workers: int, **env: str) -> tuple[Proc, Http]:
    """The API as ``make serve`` and the image run it (gunicorn's gevent worker,
    service/gunicorn_conf.py), ``workers`` processes on the stack's Redis, with ``env`` over
    the stack's settings; started and answering ``/healthz``."""
    gunicorn = BIN / "gunicorn"
    if not gunicorn.exists():
        unavailable(f"gunicorn ({gunicorn})")
    try:
        import gevent  # noqa: F401
    except ImportError:
        unavailable("gevent (pip install -e .)")
    port = free_port()
    argv = [str(gunicorn), "-c", "python:service.gunicorn_conf", "--workers", str(workers),
            "--bind", f"127.0.0.1:{port}", "--chdir", str(ROOT), "--no-control-socket", WSGI]
    settings = _env(REDIS_URL=stack.redis.url, RUMMY_KEY_PREFIX=stack.prefix,
                    RUMMY_ADMIN_TOKEN=stack.admin, **env)
    proc = Proc(f"gunicorn-{name}", argv, settings, ROOT, stack.workdir / f"api-{name}.log")
    proc.start()
    http = Http(port)

    def healthy() -> bool:
        proc.check_running()
        try:
            return http.request("GET", HEALTH_PATH, timeout=2).status == 200
        except OSError:
            return False

    wait_until(healthy, 30, "the gevent API to answer", 0.1)
    return proc, http


def _has_option(binary: str, option: str) -> bool:
    shown = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    return option in shown.stdout


class Worker:
    """The background worker process (``WORKER_COMMAND``)."""

    def __init__(self, workdir: Path, redis_server: RedisServer, prefix: str) -> None:
        argv = [part.format(python=sys.executable, url=redis_server.url, prefix=prefix)
                for part in WORKER_COMMAND]
        self.redis = redis_server
        self.proc = Proc("worker", argv, _env(), ROOT, workdir / "worker.log")
        self.spawned_at = 0.0

    @property
    def alive(self) -> bool:
        return self.proc.alive

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def start(self) -> float:
        """Start the worker (does not wait); returns the monotonic time of the spawn."""
        self.proc.start()
        self.spawned_at = self.proc.started_at
        return self.spawned_at

    def kill9(self) -> None:
        self.proc.kill()

    def registrations(self) -> list[dict[str, str]]:
        """The RQ worker records whose pid is one of this worker's processes."""
        pid = self.proc.pid
        if pid is None:
            return []
        pids = {str(p) for p in group_pids(pid) | {pid}}
        client = self.redis.client()
        try:
            found = []
            for key in client.smembers("rq:workers"):
                record = {text(k): text(v) for k, v in client.hgetall(key).items()}
                if record.get("pid") in pids and "death" not in record:
                    found.append(record)
            return found
        finally:
            client.close()

    def wait_registered(self, timeout: float = 15.0) -> float:
        """Wait until it has registered as an RQ worker; returns seconds since the spawn."""
        def registered() -> bool:
            self.proc.check_running()
            return bool(self.registrations())

        wait_until(registered, timeout, "the worker to register in rq:workers", 0.05)
        return time.monotonic() - self.spawned_at

    def wait_idle_blocked(self, timeout: float = 15.0) -> bool:
        """Wait until it is idle in its dequeue (RQ state ``idle``); True when Redis also
        shows a client blocked in a list pop (best effort: 2 s more)."""
        def idle() -> bool:
            self.proc.check_running()
            return any(r.get("state") == "idle" for r in self.registrations())

        wait_until(idle, timeout, "the worker to be idle in its dequeue")
        try:
            wait_until(lambda: blocked_clients(self.redis), 2.0, "a blocked client")
        except HarnessError:
            return False
        return True

    def tail(self, lines: int = 40) -> str:
        return self.proc.tail(lines)


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def blocked_clients(redis_server: RedisServer) -> list[dict[str, Any]]:
    """Clients that Redis shows blocked (``flags`` has ``b``), e.g. in a BLPOP or BLMOVE."""
    client = redis_server.client()
    try:
        return [c for c in client.client_list() if "b" in str(c.get("flags", ""))]
    finally:
        client.close()


# --- HTTP ------------------------------------------------------------------------------

@dataclass
class Response:
    status: int
    body: Any
    seconds: float

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


class Http:
    """JSON over http.client, one connection per request (servers come and go)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None, timeout: float = 30.0) -> Response:
        """Raises OSError / http.client.HTTPException when no HTTP answer arrives."""
        began = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            sent = {"Content-Type": "application/json", **(headers or {})}
            if token:
                sent["Authorization"] = f"Bearer {token}"
            conn.request(method, path, json.dumps(body) if body is not None else None, sent)
            answer = conn.getresponse()
            raw = answer.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = raw.decode(errors="replace")
            return Response(answer.status, parsed, time.monotonic() - began)
        finally:
            conn.close()


# --- the stack -------------------------------------------------------------------------

@dataclass
class Stack:
    """The running processes of one session: tests share them, each test its matches."""

    redis: RedisServer
    api: ApiServer
    worker: Worker
    admin: str
    prefix: str
    workdir: Path

    @property
    def http(self) -> Http:
        return self.api.http

    def rq(self) -> Redis:
        """A client of the harness's Redis (never the shared one)."""
        return self.redis.client()

    def ensure_up(self) -> None:
        """Redis and the API up and healthy (a test before may have left them dead)."""
        if not self.redis.alive:
            print("\n[faults] redis-server was not running: starting it again")
            self.redis.start()
        if not self.api.proc.alive:
            print(f"\n[faults] gunicorn was not running: starting it again\n"
                  f"{self.api.proc.tail(10)}")
            self.api.proc.kill()
            self.api.start()
        self.api.wait_healthy()

    def logs(self) -> str:
        return "\n".join(f"--- {proc.name} log ({proc.log_path}) ---\n{proc.tail(30)}"
                         for proc in (self.worker.proc, self.api.proc, self.redis.proc))


@pytest.fixture(scope="session")
def stack_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    redis_binary = ("/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK)
                    else shutil.which("redis-server"))
    if not redis_binary:
        unavailable("redis-server (/usr/bin/redis-server or on PATH)")
    gunicorn = BIN / "gunicorn"
    gunicorn_binary = str(gunicorn) if gunicorn.exists() else shutil.which("gunicorn")
    if not gunicorn_binary:
        unavailable(f"gunicorn ({gunicorn} or on PATH)")
    assert redis_binary and gunicorn_binary
    workdir = tmp_path_factory.mktemp("faults")
    prefix = f"f{uuid.uuid4().hex[:10]}"
    admin = secrets.token_hex(16)
    redis_server = RedisServer(redis_binary, workdir)
    api = ApiServer(gunicorn_binary, workdir, redis_server.url, prefix, admin)
    worker = Worker(workdir, redis_server, prefix)
    print(f"\n[faults] code under test: {ROOT}; redis port {redis_server.port}; api port "
          f"{api.port}; worker: {' '.join(worker.proc.argv)}; logs in {workdir}")
    try:
        redis_server.start()
        api.start()
        yield Stack(redis_server, api, worker, admin, prefix, workdir)
    finally:
        worker.proc.kill()
        api.proc.stop(grace=10)
        redis_server.proc.kill()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def stack(stack_session: Stack, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """The shared processes, up and healthy, with no worker running; the test's worker
    is killed afterwards, and the logs' ends are printed when the test failed."""
    stack_session.worker.kill9()
    stack_session.ensure_up()
    try:
        yield stack_session
    finally:
        stack_session.worker.kill9()
        if request.node.stash.get(_FAILED, False):
            print("\n" + stack_session.logs())
