"""The real processes, as docs/configuration.md runs them: gunicorn via ``python -m service.serve``
(what ``make serve`` runs), in embedded mode and on the real Redis with RQ's own worker."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REAL_REDIS_URL, _delete_prefix, _real_redis, rq_left_as_found
from tests.service.test_matches_api import DECK

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ADMIN = "serve-test-admin"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(port: int, method: str, path: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:  # closed however the call ends: a server still starting may drop the connection
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


@contextmanager
def server(**env: str) -> Iterator[int]:
    """``python -m service.serve`` on a free port until the block ends."""
    port = _free_port()
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    environment.update(env, RUMMY_ADMIN_TOKEN=ADMIN)
    process = subprocess.Popen(
        [sys.executable, "-m", "service.serve", "--port", str(port)], cwd=ROOT,
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if call(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError("the server did not start")
        yield port
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
        assert b"Traceback" not in errors, errors.decode()


def play_to_knock(port: int) -> tuple[str, list[str]]:
    status, match = call(port, "POST", "/v1/matches", {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"first_dealer": 0}, "deck": DECK}, token=ADMIN)
    assert status == 201, match
    tokens = [seat["token"] for seat in match["seats"]]
    path = f"/v1/matches/{match['id']}/actions"
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"}),
                         (1, {"type": "knock", "discard": "5S"})]:
        status, body = call(port, "POST", path, action, token=tokens[seat])
        assert status == 200, body
    return match["id"], tokens


def test_make_serve_runs_the_gevent_worker_sized_by_the_open_file_limit():
    from service.gunicorn_conf import raise_fd_limit
    from service.serve import command

    limit = raise_fd_limit()
    line = command("127.0.0.1", "8000", embedded=True, fd_limit=limit)
    assert line[line.index("--worker-class") + 1] == "gevent"
    assert line[line.index("--workers") + 1] == "1"
    assert int(line[line.index("--worker-connections") + 1]) == limit - 256
    assert line[line.index("-c") + 1] == "python:service.gunicorn_conf"


def next_hand_shown(port: int, match_id: str, within_s: float = 1.0) -> dict[str, Any]:
    """The public view once it shows hand 2: embedded mode scores and deals on its timer
    thread right after the knock answers (a few milliseconds), never in the knock."""
    deadline = time.monotonic() + within_s
    while True:
        _, view = call(port, "GET", f"/v1/matches/{match_id}")
        if view["hand_number"] == 2 or time.monotonic() > deadline:
            return view
        time.sleep(0.005)


def test_make_serve_embedded_mode_scores_in_process():
    with server() as port:
        status, health = call(port, "GET", "/healthz")
        assert (status, health["mode"]) == (200, "embedded")
        match_id, tokens = play_to_knock(port)
        view = next_hand_shown(port, match_id)
        assert (view["hand_number"], view["scores"]) == (2, [0, 67])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as live:
            live.sendall(f"GET /v1/matches/{match_id}/stream?after=6 HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization: Bearer {tokens[0]}\r\n\r\n".encode())
            seen = b""
            while b"event: HandKnocked" not in seen:
                chunk = live.recv(65536)
                assert chunk, seen
                seen += chunk
            _, view = call(port, "GET", f"/v1/matches/{match_id}")
            assert [s["presence"]["online"] for s in view["seats"]] == [True, False]
            assert view["seats"][1]["presence"]["last_action_at"] > 0


def test_real_redis_with_a_worker_process():
    client = _real_redis()
    prefix = f"t{uuid.uuid4().hex[:10]}"
    try:
        with rq_left_as_found(client, prefix), \
                server(REDIS_URL=REAL_REDIS_URL, RUMMY_KEY_PREFIX=prefix) as port:
            match_id, _ = play_to_knock(port)
            _, view = call(port, "GET", f"/v1/matches/{match_id}")
            assert (view["phase"], view["awaiting"]) == ("scoring", "scoring")
            subprocess.run(
                [sys.executable, "-m", "workers", "--burst", "--url", REAL_REDIS_URL,
                 "--prefix", prefix], cwd=ROOT, check=True, timeout=120,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, view = call(port, "GET", f"/v1/matches/{match_id}")
            assert (view["hand_number"], view["scores"]) == (2, [0, 67])
    finally:
        _delete_prefix(client, prefix)
        client.close()


def test_a_round_robin_round_runs_end_to_end_with_webhooks_and_results():
    """bench/round_robin.py, as a tournament backend would run it: an organiser key, a
    webhook receiver, one batch of four gin matches for eight players, played to the end
    over HTTP; every result arrives by signed webhook and matches the results export."""
    with server(RUMMY_WEBHOOK_PRIVATE="allow") as port:  # the receiver is on 127.0.0.1
        finished = subprocess.run(
            [sys.executable, "bench/round_robin.py", "--url", f"http://127.0.0.1:{port}",
             "--admin-token", ADMIN, "--target", "25", "--timeout", "120"],
            cwd=ROOT, capture_output=True, text=True, timeout=180)
        assert finished.returncode == 0, finished.stdout + finished.stderr
        summary = json.loads(finished.stdout)
        assert summary["results_agree_with_webhooks"] is True
        assert summary["webhooks"]["match_completed"] == 4
        assert summary["webhooks"]["bad_signatures"] == 0
        assert len(summary["standings"]) == 8
        assert sum(s["won"] for s in summary["standings"]) >= 4
