"""Metrics across real processes: gunicorn's workers summed by one scrape (prometheus-client's
multiprocess mode, set up by service/gunicorn_conf.py), a dead worker's open streams
dropped by the ``child_exit`` hook, and ``python -m workers --metrics-port``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from tests.conftest import (
    LIVE_ADMIN,
    REAL_REDIS_URL,
    ROOT,
    _delete_prefix,
    _real_redis,
    rq_left_as_found,
    server_env,
    serving_api,
)
from tests.faults.conftest import free_port, wait_until
from tests.service.test_metrics import samples, value

ROUTE = "/v1/variants"


def gunicorn_workers(count: int):
    def argv(port: int) -> list[str]:
        return [sys.executable, "-m", "gunicorn", "service.api.app:wsgi()", "-c",
                "python:service.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
                "--workers", str(count)]
    return argv


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return bytes(answer.read())


def served(url: str) -> float:
    """``ROUTE``'s requests as one scrape of ``url`` counts them."""
    found = samples(get(url + "/metrics").decode())
    return value(found, "rummy_http_request_duration_seconds_count", route=ROUTE, method="GET",
                 status="200")


def shares(folder: Path, tmp: Path) -> dict[int, float]:
    """``ROUTE``'s requests by worker process, from each one's own files."""
    out: dict[int, float] = {}
    for path in folder.glob("histogram_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        alone = tmp / f"pid-{pid}"
        shutil.rmtree(alone, ignore_errors=True)
        alone.mkdir()
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        found = {(s.name, tuple(sorted(s.labels.items()))): s.value
                 for family in registry.collect() for s in family.samples}
        out[pid] = value(found, "rummy_http_request_duration_seconds_count", route=ROUTE,
                         method="GET", status="200")
    return out


def open_streams_by_worker(folder: Path, tmp: Path) -> dict[int, float]:
    out: dict[int, float] = {}
    for path in folder.glob("gauge_livesum_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        alone = tmp / f"gauge-{pid}"
        shutil.rmtree(alone, ignore_errors=True)
        alone.mkdir()
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        out[pid] = sum(s.value for family in registry.collect() for s in family.samples
                       if s.name == "rummy_open_streams")
    return out


def test_one_scrape_sums_every_gunicorn_worker_and_forgets_a_dead_ones_streams(tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"an earlier run's file")  # emptied at the start
    env = server_env(PROMETHEUS_MULTIPROC_DIR=str(folder), RUMMY_ADMIN_TOKEN=LIVE_ADMIN,
                     RUMMY_RATE_LIMITS="off")
    with serving_api("metrics-api", gunicorn_workers(2), env, tmp_path / "api.log") as url:
        assert not (folder / "counter_1.db").exists()
        sent = 0
        deadline = time.monotonic() + 20
        with ThreadPoolExecutor(16) as pool:
            while True:  # until both workers have answered some
                sent += len(list(pool.map(lambda _: get(url + ROUTE), range(32))))
                by_worker = shares(folder, tmp_path)
                if sum(1 for n in by_worker.values() if n) == 2 or time.monotonic() > deadline:
                    break
        assert sorted(by_worker.values())[0] > 0, by_worker  # each worker answered some
        assert sum(by_worker.values()) == sent
        for _ in range(4):  # whichever worker answers the scrape
            assert served(url) == sent
        # a stream held open on one worker, which then dies
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as stream:
            stream.sendall(f"GET /v1/feed HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                           f"{LIVE_ADMIN}\r\n\r\n".encode())
            assert b"X-Request-Id: " in stream.recv(65536)
            holders = wait_until(lambda: {pid: n for pid, n in open_streams_by_worker(
                folder, tmp_path).items() if n}, 10, "the stream counted open")
            (holder,) = holders
            found = samples(get(url + "/metrics").decode())
            assert value(found, "rummy_open_streams") == 1
            os.kill(holder, signal.SIGKILL)
            wait_until(lambda: value(samples(get(url + "/metrics").decode()),
                                     "rummy_open_streams") == 0, 15,
                       "the dead worker's stream gone")
        assert served(url) == sent  # its requests still count
    log = (tmp_path / "api.log").read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("logger") == "gunicorn.access"]
    assert len(access) >= sent and all(line["request_id"] for line in access)
    assert {line["path"] for line in access} >= {ROUTE, "/metrics", "/healthz"}


def test_the_worker_serves_its_own_metrics():
    client = _real_redis()
    prefix = f"t{uuid.uuid4().hex[:10]}"
    port = free_port()
    env = server_env(RUMMY_WORKER_METRICS_PORT=str(port))
    worker = None
    try:
        with rq_left_as_found(client, prefix):
            client.zadd(f"{prefix}:work:steps", {"no-such-match": time.time() - 10})
            worker = subprocess.Popen(
                [sys.executable, "-m", "workers", "--url", REAL_REDIS_URL, "--prefix", prefix],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

            def redriven() -> bool:
                try:
                    found = samples(get(f"http://127.0.0.1:{port}/metrics").decode())
                except OSError:
                    return False
                return value(found, "rummy_reconciler_redrives_total", kind="steps",
                             result="gone") == 1 and value(found, "rummy_owed_work_due",
                                                           kind="steps") == 0
            wait_until(redriven, 20, "the worker's scrape")
            worker.terminate()
            _, errors = worker.communicate(timeout=20)
            lines = [json.loads(line) for line in errors.decode().splitlines()]
            assert any("metrics on http://127.0.0.1" in line["message"] for line in lines)
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.wait()
        _delete_prefix(client, prefix)
        client.close()
