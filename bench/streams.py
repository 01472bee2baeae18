"""Live streams at scale: N concurrent SSE streams against ONE API process.

    python bench/streams.py [--streams 10000] [--hot 1000] [--per-match 10] [--actions 200]
    python bench/streams.py --url http://127.0.0.1:8000 --admin-token T [--pid PID]

Without ``--url`` it starts its own ``redis-server`` on a free port, one API process
(gunicorn's gevent worker, ``-c python:service.gunicorn_conf --workers 1``) and one
``python -m workers`` (hand scoring), all on a key prefix of their own, and stops them at
the end. It opens ``--streams`` streams with an asyncio client (raw sockets, no extra
dependency) in a process of its own, apart from the client that plays, as a match's
players and its spectators are different clients: ``--hot`` of them on one match (a third
each for seat 0, seat 1 and the public) and the rest ``--per-match`` to a match over other
matches. Then it plays ``--actions`` actions: each on the hot match, followed by one on
another match. Prints JSON:

- ``streams_held``: streams open (each got its 200 and the ``retry:`` line) when playing
  started; ``streams_held_at_end``: still open when playing ended;
- ``action_ms``: p50/p99 of the POST .../actions round trip measured by the client (hot
  match, other matches, all);
- ``fanout_ms``: p50/p99 from the hot action's response until every hot subscriber has
  received the event with the action's version; ``fanout_spread_ms``: from the first hot
  subscriber's copy to the last one's;
- ``api_cpu_ms_per_round``: the API process's CPU time while playing, per round (one hot
  action with its fan-out to ``--hot`` streams, one action elsewhere, the reads around
  them): less sensitive to other load on the machine than the latencies;
- ``rss_per_stream_kb``: the API process's RSS growth while the streams opened, per stream;
- ``fd_limit``: the API process's open-file limit (``/proc/<pid>/limits``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]


# --- processes ---------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_own_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft


class Stack:
    """redis-server, the API (gunicorn gevent, one worker process) and a step worker."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.redis_port, self.api_port = free_port(), free_port()
        self.prefix = f"bench{secrets.token_hex(4)}"
        self.admin = secrets.token_hex(16)
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def _spawn(self, argv: list[str], env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.workdir / f"{name}.log", "ab")  # noqa: SIM115 - lives with the process
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        redis_binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._spawn([redis_binary, "--port", str(self.redis_port), "--bind", "127.0.0.1",
                     "--save", "", "--appendonly", "no", "--maxclients", "20000",
                     "--dir", str(self.workdir)], env, "redis")
        redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        api_env = {**env, "REDIS_URL": redis_url, "RUMMY_KEY_PREFIX": self.prefix,
                   "RUMMY_ADMIN_TOKEN": self.admin, "RUMMY_RATE_LIMITS": "off"}
        time.sleep(0.5)
        self.api = self._spawn([sys.executable, "-m", "gunicorn", "-c",
                                "python:service.gunicorn_conf", "service.api.app:wsgi()",
                                "--workers", "1", "--bind", f"127.0.0.1:{self.api_port}",
                                "--access-logfile", "/dev/null"], api_env, "api")
        self._spawn([sys.executable, "-m", "workers", "--url", redis_url, "--prefix",
                     self.prefix], env, "worker")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.api_port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("the API did not start; see " + str(self.workdir))

    def worker_pid(self) -> int:
        """The gunicorn worker process (the master's only child)."""
        children = Path(f"/proc/{self.api.pid}/task/{self.api.pid}/children").read_text()
        return int(children.split()[0])

    def stop(self) -> None:
        for proc in reversed(self.procs):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """The process's user + system CPU time so far (seconds)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fd_limit_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    return 0


# --- HTTP over asyncio ---------------------------------------------------------------------

class Http:
    """One keep-alive HTTP/1.1 connection for JSON requests."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None,
                   token: str | None = None) -> tuple[int, Any]:
        """One request; a keep-alive connection the server closed is opened again."""
        try:
            return await self._call(method, path, body, token)
        except (ConnectionError, IndexError, asyncio.IncompleteReadError):
            self.writer = None
            return await self._call(method, path, body, token)

    async def _call(self, method: str, path: str, body: Any,
                    token: str | None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}"]
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        raw = await self.reader.readexactly(length) if length else b""
        return status, json.loads(raw) if raw else None


class Fanout:
    """When each version of the hot match reached every hot subscriber (monotonic clock,
    which is one clock for every process on the machine)."""

    def __init__(self, subscribers: int) -> None:
        self.subscribers = subscribers
        self.seen: dict[int, int] = {}
        self.first: dict[int, float] = {}

    def saw(self, version: int) -> tuple[float, float] | None:
        """(first, last) arrival once the last subscriber has the version."""
        count = self.seen.get(version, 0) + 1
        self.seen[version] = count
        if count == 1:
            self.first[version] = time.monotonic()
        if count == self.subscribers:
            return self.first.pop(version), time.monotonic()
        return None


async def open_stream(host: str, port: int, match_id: str, token: str | None, after: int,
                      fanout: Fanout | None, held: list[int], report: Any) -> None:
    """One live stream: held while it lasts; hot ones report every event id they get."""
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    writer.write(f"GET /v1/matches/{match_id}/stream?after={after} HTTP/1.1\r\nHost: {host}\r\n"
                 f"Accept: text/event-stream\r\n{auth}\r\n".encode())
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    held[0] += 1
    try:
        buffer = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            if fanout is None:
                continue
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"id: "):
                    version = int(line[4:])
                    done = fanout.saw(version)
                    if done is not None:
                        report.send(("complete", version, *done))
    finally:
        held[0] -= 1
        writer.close()


def hold_streams(url: str, plan: list[tuple[str, str | None, int, bool]], batch: int,
                 report: Any) -> None:
    """The stream holders, in a process of their own (``multiprocessing``).

    A front end's action and a thousand spectators' streams are different clients: were
    they one asyncio loop, the action's response would queue behind the thousand stream
    reads of the previous move in the *client*, and its round trip would measure the
    benchmark rather than the server. Reports ``("held", n, seconds)`` once every stream is
    open, ``("complete", version, first, last)`` (monotonic arrival times) per hot version,
    and ``("held", n, 0)`` on
    ``"stop"``.
    """
    raise_own_fd_limit()
    parsed = urlparse(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 80

    async def run() -> None:
        fanout = Fanout(sum(1 for *_, hot in plan if hot))
        held = [0]
        tasks: list[asyncio.Task[None]] = []
        began = time.perf_counter()
        for start in range(0, len(plan), batch):
            for match_id, token, after, hot in plan[start:start + batch]:
                tasks.append(asyncio.create_task(open_stream(
                    host, port, match_id, token, after, fanout if hot else None, held,
                    report)))
            while held[0] < len(tasks):
                failed = [t for t in tasks if t.done()]
                if failed:
                    failed[0].result()
                await asyncio.sleep(0.01)
        report.send(("held", held[0], time.perf_counter() - began))
        while not report.poll():
            await asyncio.sleep(0.05)
        report.recv()
        report.send(("held", held[0], 0.0))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


async def play_one(http: Http, match: dict[str, Any], rng: random.Random) -> tuple[float, int]:
    """One action by the seat whose turn it is; (round trip seconds, version reached)."""
    path = f"/v1/matches/{match['id']}"
    while True:
        _, view = await http.call("GET", path)
        if view["phase"] in ("complete", "aborted"):
            raise RuntimeError("a bench match ended; lower --actions or raise the target")
        if view["turn"] is None:
            await asyncio.sleep(0.02)  # the worker scores the hand
            continue
        token = match["tokens"][view["turn"]]
        _, seat_view = await http.call("GET", path, token=token)
        actions = [a for a in seat_view.get("legal_actions") or []
                   if a["type"] not in ("knock", "big_gin")] or seat_view.get("legal_actions")
        if not actions:
            await asyncio.sleep(0.01)
            continue
        began = time.perf_counter()
        status, body = await http.call("POST", f"{path}/actions", rng.choice(actions), token)
        elapsed = time.perf_counter() - began
        if status == 200:
            return elapsed, int(body["version"])


async def bench(args: argparse.Namespace, url: str, admin: str, pid: int | None) -> dict:
    parsed = urlparse(url)
    http = Http(parsed.hostname or "127.0.0.1", parsed.port or 80)
    rng = random.Random(args.seed)

    async def new_match() -> dict[str, Any]:
        status, body = await http.call("POST", "/v1/matches", {
            "variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
            "options": {"target": 10_000}}, admin)
        assert status == 201, body
        return {"id": body["id"], "version": body["version"],
                "tokens": [seat["token"] for seat in body["seats"]]}

    hot = await new_match()
    others = [await new_match() for _ in range(max(1, -(-(args.streams - args.hot)
                                                        // args.per_match)))]
    rss_before = rss_kb(pid) if pid else 0
    plan: list[tuple[str, str | None, int, bool]] = []
    for n in range(args.hot):
        plan.append((hot["id"], [hot["tokens"][0], hot["tokens"][1], None][n % 3],
                     hot["version"], True))
    for n in range(args.streams - args.hot):
        match = others[n // args.per_match]
        plan.append((match["id"], [match["tokens"][0], match["tokens"][1], None][n % 3],
                     match["version"], False))
    report, theirs = multiprocessing.Pipe()
    holder = multiprocessing.Process(target=hold_streams, args=(url, plan, args.batch, theirs),
                                     daemon=True)
    holder.start()
    complete: dict[int, tuple[float, float]] = {}

    async def message() -> tuple[Any, ...]:
        while not report.poll():
            if not holder.is_alive():
                raise SystemExit(f"the stream holder died (exit code {holder.exitcode})")
            await asyncio.sleep(0.001)
        got: tuple[Any, ...] = report.recv()
        if got[0] == "complete":
            complete[got[1]] = (got[2], got[3])
        return got

    while (opened := await message())[0] != "held":
        pass
    await asyncio.sleep(1.0)
    rss_after = rss_kb(pid) if pid else 0
    streams_at_start, opened_s = opened[1], opened[2]
    hot_rtt: list[float] = []
    other_rtt: list[float] = []
    fan: list[float] = []
    spread: list[float] = []
    slow: list[str] = []
    playing_from = time.strftime("%H:%M:%S")
    cpu_before = cpu_s(pid) if pid else 0.0
    for n in range(args.actions):
        elapsed, version = await play_one(http, hot, rng)
        answered = time.monotonic()
        hot_rtt.append(elapsed)
        if elapsed > 0.1:
            slow.append(f"{time.strftime('%H:%M:%S')} action {elapsed * 1000:.0f}ms")
        deadline = answered + 10
        while version not in complete and time.monotonic() < deadline:
            if report.poll():
                await message()
            else:
                await asyncio.sleep(0.0005)
        if version in complete:
            first, last = complete[version]
            fan.append(max(0.0, last - answered))
            spread.append(last - first)
            if fan[-1] > 0.1:
                slow.append(f"{time.strftime('%H:%M:%S')} fan-out {fan[-1] * 1000:.0f}ms")
        other_rtt.append((await play_one(http, others[n % len(others)], rng))[0])
    cpu_playing = cpu_s(pid) - cpu_before if pid else None
    report.send("stop")
    while (ended := await message())[0] != "held":
        pass
    holder.join(30)
    return {
        "streams_requested": args.streams,
        "streams_held": streams_at_start,
        "streams_held_at_end": ended[1],
        "seconds_to_open": round(opened_s, 1),
        "hot_subscribers": args.hot,
        "actions": len(hot_rtt) + len(other_rtt),
        "action_ms": {"hot_p50": pct(hot_rtt, 0.5), "hot_p99": pct(hot_rtt, 0.99),
                      "other_p50": pct(other_rtt, 0.5), "other_p99": pct(other_rtt, 0.99),
                      "all_p50": pct(hot_rtt + other_rtt, 0.5),
                      "all_p99": pct(hot_rtt + other_rtt, 0.99)},
        "fanout_ms": {"p50": pct(fan, 0.5), "p90": pct(fan, 0.9), "p99": pct(fan, 0.99),
                      "max": pct(fan, 1.0),
                      "measured": len(fan), "mean": round(statistics.fmean(fan) * 1000, 2)
                      if fan else None},
        "fanout_spread_ms": {"p50": pct(spread, 0.5), "p99": pct(spread, 0.99)},
        "api_cpu_ms_per_round": round(cpu_playing * 1000 / max(1, len(hot_rtt)), 2)
        if cpu_playing is not None else None,
        "rss_kb": {"before": rss_before, "after": rss_after},
        "rss_per_stream_kb": round((rss_after - rss_before) / max(1, streams_at_start), 1)
        if pid else None,
        "fd_limit": fd_limit_of(pid) if pid else None,
        "playing_from": playing_from,
        "slow_hot": slow[:20],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--admin-token")
    parser.add_argument("--pid", type=int, help="the API process (with --url), for memory")
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--hot", type=int, default=1_000)
    parser.add_argument("--per-match", type=int, default=10)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--batch", type=int, default=250, help="streams opened at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    raise_own_fd_limit()
    stack = None
    try:
        if args.url:
            url, admin, pid = args.url, args.admin_token, args.pid
        else:
            stack = Stack(Path(tempfile.mkdtemp(prefix="bench-streams-")))
            stack.start()
            url, admin = stack.url, stack.admin
            time.sleep(1.0)
            pid = stack.worker_pid()
        result = asyncio.run(bench(args, url, admin or "", pid))
    finally:
        if stack is not None:
            stack.stop()
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
