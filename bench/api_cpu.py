"""The API's server CPU per request, against a bare Flask endpoint under the same gunicorn.

    REDIS_URL=redis://127.0.0.1:6379/14 python bench/api_cpu.py [--seconds 20]
        [--concurrency 8] [--profile profile.txt]

Starts, in one run, two gunicorn servers with the project's settings
(``-c python:service.gunicorn_conf``: the gevent worker, its access log, its hooks), one
worker process each: the API on ``REDIS_URL`` under a key prefix of its own (its rate limits
on but raised past the load, plus one ``python -m workers`` for the hands' scoring, whose
CPU is not counted), and a bare Flask
app whose one endpoint answers a small JSON. ``--concurrency`` keep-alive clients drive
each in turn for ``--seconds``; the CPU the gunicorn worker process spent meanwhile (user
+ system, ``/proc/<pid>/stat``) over the requests it answered is the figure.

The API is driven three ways, each player playing whole gin matches (a new one when one
ends) with one of the seat's ``legal_actions`` (an ender when it has one):

- ``mix``: before every move the public view, then the seat's view, then the action (the
  headline: it is the mix a polling front end makes);
- ``seat``: the seat's view, then the action;
- ``act``: the action alone while the seat keeps the turn (its answer is the seat's new
  view), the seat's view only when the turn passed.

Their CPU over their counts of each route solves for the CPU of one public view, one seat
view and one action (a creation, one per match, is counted as an action). Every view read
in these runs is of a version nobody read before in that role, as in play.

``--profile FILE``: samples the API worker with py-spy during a further ``mix`` run
(``pip install py-spy``; needs ptrace) and writes its top functions, by own and by
total samples, to FILE and to the JSON.

Prints JSON: ``echo_cpu_ms``, ``api_cpu_ms`` (the mix), ``ratio``, ``per_route_cpu_ms``
and each run's counts. Removes its keys afterwards.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "bench-api-cpu-admin"
ENDERS = ("knock", "big_gin")
TICKS = os.sysconf("SC_CLK_TCK")
LINE = re.compile(r":\d+\)$")
PLUMBING = ("_handle_and_close_when_done", "GeventWorker.", "AsyncWorker.", "Flask.__call__")
"""Frames every request passes through, left out of the profile's totals."""


def echo_app() -> Any:
    """The bare Flask app the API is compared with: one small JSON answer."""
    from flask import Flask, jsonify

    app = Flask("echo")

    @app.get("/echo")
    def echo() -> Any:
        return jsonify({"ok": True, "phase": "play", "turn": 0})

    return app


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def gunicorn(app: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """One worker process under the project's gunicorn settings; logs discarded."""
    return subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", app,
         "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)


def worker_pid(master: subprocess.Popen[bytes], port: int, path: str) -> int:
    """The gunicorn worker's pid, once it answers ``path``."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if master.poll() is not None:
            raise SystemExit(f"gunicorn on port {port} exited ({master.returncode})")
        try:
            status, _ = Client(port).call("GET", path)
            children = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text()
            if status == 200 and children.split():
                return int(children.split()[0])
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"gunicorn on port {port} did not answer {path}")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Client:
    """A keep-alive JSON client."""

    def __init__(self, port: int) -> None:
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._conn.request(method, path, json.dumps(body) if body is not None else None,
                           headers)
        response = self._conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


class Player:
    """Plays gin matches over HTTP in one of the modes (module doc), counting by route."""

    def __init__(self, port: int, mode: str, seed: int,
                 counts: collections.Counter[str]) -> None:
        self.client, self.mode, self.counts = Client(port), mode, counts
        self.rng = random.Random(seed)
        self.path, self.tokens = "", [""]

    def call(self, route: str, method: str, path: str, body: Any = None,
             token: str | None = None) -> Any:
        status, answer = self.client.call(method, path, body, token)
        if status not in (200, 201):
            raise SystemExit(f"{method} {path} answered {status}: {answer}")
        self.counts[route] += 1
        return answer

    def new_match(self) -> None:
        match = self.call("create", "POST", "/v1/matches", {
            "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"target": 100}})
        self.path, self.tokens = f"/v1/matches/{match['id']}", [s["token"] for s in match["seats"]]

    def seat_view(self, seat: int) -> Any:
        return self.call("seat_view", "GET", self.path, token=self.tokens[seat])

    def run(self, stop: threading.Event) -> None:
        self.new_match()
        view, seat = self.seat_view(0), 0
        while not stop.is_set():
            if self.mode == "mix":
                public = self.call("public_view", "GET", self.path)
                view, seat = self.fresh(public, view, seat)
            elif self.mode == "seat" or view["turn"] != seat or not view["legal_actions"]:
                view, seat = self.fresh(view, view, seat)
            if view["phase"] == "complete":
                self.new_match()
                view, seat = self.seat_view(0), 0
            elif view["turn"] is None or not view["legal_actions"]:
                time.sleep(0.01)  # a worker is scoring the hand
            else:
                view = self.call("action", "POST", f"{self.path}/actions", self.pick(view),
                                 self.tokens[seat])

    def fresh(self, seen: Any, view: Any, seat: int) -> tuple[Any, int]:
        """The view of the seat whose turn ``seen`` shows (seat 0 between hands)."""
        turn = seen["turn"] if seen["turn"] is not None else seat
        if seen["phase"] == "complete":
            return seen, seat
        return self.seat_view(turn), turn

    def pick(self, view: Any) -> Any:
        actions = view["legal_actions"]
        enders = [a for a in actions if a["type"] in ENDERS]
        return self.rng.choice(enders or actions)


def echo_load(port: int, stop: threading.Event, counts: collections.Counter[str]) -> None:
    client = Client(port)
    while not stop.is_set():
        client.call("GET", "/echo")
        counts["echo"] += 1


def drive(pid: int, concurrency: int, seconds: float, target: Any,
          before_stop: Any = None) -> tuple[float, collections.Counter[str]]:
    """CPU seconds of ``pid`` and the requests ``concurrency`` threads of ``target`` made."""
    stop, counts = threading.Event(), collections.Counter[str]()
    threads = [threading.Thread(target=target, args=(index, stop, counts), daemon=True)
               for index in range(concurrency)]
    started = cpu_s(pid)
    for thread in threads:
        thread.start()
    if before_stop is not None:
        before_stop()
    else:
        time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return cpu_s(pid) - started, counts


def api_run(port: int, pid: int, mode: str, concurrency: int, seconds: float,
            before_stop: Any = None) -> tuple[float, collections.Counter[str]]:
    def play(index: int, stop: threading.Event, counts: collections.Counter[str]) -> None:
        Player(port, mode, hash((mode, index)), counts).run(stop)

    return drive(pid, concurrency, seconds, play, before_stop)


def per_request_ms(cpu: float, counts: collections.Counter[str]) -> float:
    return round(cpu * 1000 / max(1, sum(counts.values())), 3)


def solve_routes(runs: dict[str, tuple[float, collections.Counter[str]]]) -> dict[str, float]:
    """CPU of one seat view and one action from the ``seat`` and ``act`` runs (two
    equations), then of one public view from the ``mix`` run."""
    def row(mode: str) -> tuple[float, float, float, float]:
        cpu, counts = runs[mode]
        return (counts["public_view"], counts["seat_view"],
                counts["action"] + counts["create"], cpu * 1000)

    _, s1, a1, c1 = row("seat")
    _, s2, a2, c2 = row("act")
    determinant = s1 * a2 - s2 * a1
    seat = (c1 * a2 - c2 * a1) / determinant
    action = (s1 * c2 - s2 * c1) / determinant
    p3, s3, a3, c3 = row("mix")
    public = (c3 - s3 * seat - a3 * action) / max(1, p3)
    return {"public_view": round(public, 3), "seat_view": round(seat, 3),
            "action": round(action, 3)}


def profile(pid: int, out: Path, seconds: float, run: Any) -> dict[str, Any]:
    """py-spy's samples of ``pid`` during ``run``: top functions by own and total samples."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    raw = out.with_suffix(".folded")
    recorder = subprocess.Popen(
        [spy, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "250",
         "--nonblocking", "--format", "raw", "--output", str(raw)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run(lambda: recorder.wait())
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [LINE.sub(")", frame) for frame in stack.split(";") if frame]
        if frames:
            own[frames[-1]] += int(count)
            total.update(dict.fromkeys(frames, int(count)))
    samples = sum(own.values())
    top = {"samples": samples,
           "own_percent": [(frame, round(100 * n / samples, 1))
                           for frame, n in own.most_common(25)],
           "total_percent": [(frame, round(100 * n / samples, 1))
                             for frame, n in total.most_common(80)
                             if not frame.startswith(PLUMBING)][:40]}
    out.write_text(json.dumps(top, indent=1))
    return top


def clean(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    for pattern in (f"{prefix}:*", "rq:*"):
        for key in client.scan_iter(match=pattern, count=1000):
            client.unlink(key)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args(argv)
    url = os.environ.get("REDIS_URL") or raise_missing()
    prefix = f"bench-api-cpu-{uuid.uuid4().hex[:8]}"
    metrics = tempfile.mkdtemp(prefix="bench-api-cpu-")
    env = {**os.environ, "RUMMY_KEY_PREFIX": prefix, "RUMMY_ADMIN_TOKEN": ADMIN,
           "RUMMY_LIMIT_CREATE": "1000000/minute", "RUMMY_LIMIT_ACTIONS": "1000000/minute",
           "PROMETHEUS_MULTIPROC_DIR": metrics, "PYTHONPATH": str(ROOT)}
    api_port, echo_port = free_port(), free_port()
    processes = [
        gunicorn("service.api.app:wsgi()", api_port, env),
        gunicorn("bench.api_cpu:echo_app()", echo_port, env),
        subprocess.Popen([sys.executable, "-m", "workers"], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True),
    ]
    try:
        api = worker_pid(processes[0], api_port, "/v1/variants")
        echo = worker_pid(processes[1], echo_port, "/echo")
        api_run(api_port, api, "mix", args.concurrency, 3)  # warm up
        drive(echo, args.concurrency, 2, lambda i, stop, c: echo_load(echo_port, stop, c))
        runs = {"echo": drive(echo, args.concurrency, args.seconds,
                              lambda i, stop, c: echo_load(echo_port, stop, c))}
        for mode in ("mix", "seat", "act"):
            runs[mode] = api_run(api_port, api, mode, args.concurrency, args.seconds)
        echo_ms, api_ms = (per_request_ms(*runs["echo"]), per_request_ms(*runs["mix"]))
        report: dict[str, Any] = {
            "concurrency": args.concurrency, "seconds_per_run": args.seconds,
            "echo_cpu_ms": echo_ms, "api_cpu_ms": api_ms, "ratio": round(api_ms / echo_ms, 2),
            "per_route_cpu_ms": solve_routes(runs),
            "runs": {mode: {"cpu_s": round(cpu, 2), "requests": dict(counts),
                            "cpu_ms_per_request": per_request_ms(cpu, counts)}
                     for mode, (cpu, counts) in runs.items()},
        }
        if args.profile:
            report["profile"] = profile(api, args.profile, args.seconds, lambda wait: api_run(
                api_port, api, "mix", args.concurrency, args.seconds, wait))
        json.dump(report, sys.stdout, indent=2)
        print()
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(metrics, ignore_errors=True)
        clean(url, prefix)


def raise_missing() -> str:
    raise SystemExit("set REDIS_URL (e.g. redis://127.0.0.1:6379/14)")


if __name__ == "__main__":
    main()
