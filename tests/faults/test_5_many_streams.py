"""Many live streams on one real process: gunicorn's gevent worker (service/gunicorn_conf.py,
as ``make serve`` and the image run it) on the harness's redis-server holds 300 open streams
of one match and still answers ordinary requests at once, and every stream gets the move.

Speed is the benchmark's business (bench/streams.py); the limits here are generous."""

from __future__ import annotations

import json
import socket
import time

from tests.faults.conftest import (
    Stack,
    gevent_api,
)
from tests.service.test_matches_api import DECK

STREAMS = 300


def open_stream(port: int, match_id: str, token: str | None, after: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    sock.sendall(f"GET /v1/matches/{match_id}/stream?after={after} HTTP/1.1\r\n"
                 f"Host: x\r\n{auth}\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes, seen: bytes = b"") -> bytes:
    while marker not in seen:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"stream closed before {marker!r}: {seen[-200:]!r}")
        seen += chunk
    return seen


def test_one_gevent_process_holds_300_streams_and_still_answers(stack: Stack):
    proc, http = gevent_api(stack, "gevent", 1, RUMMY_RATE_LIMITS="off",
                            RUMMY_SSE_KEEPALIVE_MS="2000")
    streams: list[socket.socket] = []
    try:
        created = http.request("POST", "/v1/matches", {
            "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"first_dealer": 0}, "deck": DECK}, token=stack.admin)
        assert created.status == 201, created.body
        match = created.body
        tokens = [seat["token"] for seat in match["seats"]]
        for n in range(STREAMS):
            streams.append(open_stream(http.port, match["id"], [tokens[0], tokens[1], None][n % 3],
                                       match["version"]))
        received = [read_until(sock, b"retry: 2000") for sock in streams]
        began = time.monotonic()
        view = http.request("GET", f"/v1/matches/{match['id']}", timeout=10)
        assert view.status == 200 and view.seconds < 5, view.seconds
        assert [s["presence"]["online"] for s in view.body["seats"]] == [True, True]
        moved = http.request("POST", f"/v1/matches/{match['id']}/actions", {"type": "pass"},
                             token=tokens[1], timeout=10)
        assert moved.status == 200 and moved.seconds < 5, (moved.status, moved.seconds)
        marker = f"id: {moved.body['version']}".encode()
        for n, sock in enumerate(streams):
            received[n] = read_until(sock, marker, received[n])
            assert received[n].count(marker) == 1
        other = http.request("GET", "/v1/variants", timeout=10)
        assert other.status == 200 and time.monotonic() - began < 30
        event = received[0].split(marker, 1)[1].split(b"data: ", 1)[1].split(b"\n", 1)[0]
        assert json.loads(event)["type"] == "UpcardPassed"
    finally:
        for sock in streams:
            sock.close()
        proc.stop(grace=10)
