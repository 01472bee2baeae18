"""What audits cost the other requests of a server: a match view's latency under gunicorn
(the gevent worker, service/gunicorn_conf.py, one worker, embedded mode) while two clients
upload the costliest accepted log, one upload after another.

    python bench/audit_load.py [--logs DIR] [--root DIR] [--seconds N] [--case NAME]

``--root`` serves the code of another checkout (e.g. a ``git archive`` of an older commit,
to measure before a change); the logs come from bench/audits.py (``--logs DIR`` keeps
them, as there). The view is read every ``PACE_S`` for ``--seconds``, first with nothing
else running, then while two threads upload ``--case`` (default ``long-rummy-states``:
the 6-player rummy match of 100 rounds, 11,899 events, with its tables: about 1 s of CPU
to verify). Prints JSON: the view's p50, p99 and max in milliseconds both times, and the
uploads' count and seconds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.audits import cases  # noqa: E402

ADMIN = "bench-admin"
PACE_S = 0.02
"""A view every 20 ms."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(root: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """gunicorn as every deployment runs it, from ``root``; returns once it answers."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "PYTHONPATH"}}
    env.update(PYTHONPATH=str(root), RUMMY_ADMIN_TOKEN=ADMIN, RUMMY_RATE_LIMITS="off")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
         "service.api.app:wsgi()", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=root, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if call(port, "GET", "/healthz")[0] == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"the server did not start: see {log}")


def call(port: int, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body, headers or {})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def views(port: int, path: str, seconds: float) -> list[float]:
    """The view's latencies (ms), one request every ``PACE_S``."""
    took = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.perf_counter()
        status, _ = call(port, "GET", path)
        took.append((time.perf_counter() - began) * 1000)
        assert status == 200, status
        time.sleep(max(0.0, PACE_S - (time.perf_counter() - began)))
    return took


def summary(took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered), 1),
            "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1], 1),
            "max_ms": round(ordered[-1], 1)}


class Uploader(threading.Thread):
    """Uploads ``body`` again and again until ``stop`` is set."""

    def __init__(self, port: int, body: bytes, states: bool, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.body, self.states, self.stop = port, body, states, stop
        self.seconds: list[float] = []
        self.statuses: list[int] = []

    def run(self) -> None:
        while not self.stop.is_set():
            began = time.perf_counter()
            status, _ = call(self.port, "POST", f"/v1/audits?states={str(self.states).lower()}",
                             self.body, {"Content-Type": "application/x-ndjson"}, timeout=120)
            self.statuses.append(status)
            self.seconds.append(round(time.perf_counter() - began, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=None)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--case", default="long-rummy-states")
    args = parser.parse_args()
    body, states = cases(args.logs, 15_000)[args.case]
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"audit-load-{port}.log"
    server = serve(args.root.resolve(), port, log)
    try:
        created = json.loads(call(port, "POST", "/v1/matches", json.dumps({
            "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]}).encode(),
            {"Content-Type": "application/json"})[1])
        path = f"/v1/matches/{created['id']}"
        idle = views(port, path, args.seconds / 2)
        stop = threading.Event()
        uploaders = [Uploader(port, body, states, stop) for _ in range(2)]
        for uploader in uploaders:
            uploader.start()
        time.sleep(1.0)  # both uploads under way
        loaded = views(port, path, args.seconds)
        stop.set()
        for uploader in uploaders:
            uploader.join(120)
    finally:
        server.terminate()
        server.wait(30)
    uploads = [s for u in uploaders for s in u.seconds]
    result: dict[str, Any] = {
        "root": str(args.root), "case": args.case, "log_bytes": len(body),
        "idle": summary(idle), "two_audits": summary(loaded),
        "uploads": {"count": len(uploads), "statuses": sorted({s for u in uploaders
                                                                for s in u.statuses}),
                    "median_s": statistics.median(uploads) if uploads else None}}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
