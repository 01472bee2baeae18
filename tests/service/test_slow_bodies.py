"""Slow clients under a real gunicorn (the gevent worker, configured by
service/gunicorn_conf.py as every deployment is), with short deadlines: a body that stalls,
trickles or drags on is answered 408 ``body_timeout`` and its connection closed; slow
request lines and headers are cut by gunicorn itself.

Every socket here has a timeout, so a server that waits for ever fails the test instead of
hanging it."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import LIVE_ADMIN, gunicorn_argv, server_env, serving_api

GRACE_S, TOTAL_S, MIN_RATE = 1.0, 4.0, 64 * 1024
KEEPALIVE_S = 2.0
"""gunicorn's keep-alive timeout (its default): the gevent worker reads a request line and
headers within it."""
SLACK_S = 1.5
GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden" / "gin-2p-schema1.ndjson"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The API under gunicorn (embedded mode) with short body deadlines: host and port."""
    env = server_env(RUMMY_ADMIN_TOKEN=LIVE_ADMIN, RUMMY_RATE_LIMITS="off",
                     RUMMY_BODY_GRACE_S=str(GRACE_S), RUMMY_BODY_TIMEOUT_S=str(TOTAL_S),
                     RUMMY_BODY_MIN_RATE=str(MIN_RATE))
    with serving_api("quick-api", gunicorn_argv, env,
                     tmp_path_factory.mktemp("quick") / "api.log") as url:
        parts = urlsplit(url)
        yield str(parts.hostname), int(parts.port or 80)


def connect(server: tuple[str, int]) -> socket.socket:
    return socket.create_connection(server, timeout=TOTAL_S + 10)


def head(path: str, length: int, content_type: str = "application/json") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def answer(received: bytes) -> tuple[int, dict[str, str]]:
    status, _, body = received.partition(b"\r\n\r\n")
    return int(status.split()[1]), json.loads(body)


def test_a_stalled_body_is_a_408_and_its_connection_is_closed(quick):
    with connect(quick) as sock:
        began = time.monotonic()
        sock.sendall(head("/v1/matches", 1000) + b'{"variant": ')
        received = until_closed(sock)
    status, error = answer(received)
    assert (status, error["code"]) == (408, "body_timeout"), error
    assert b"\r\nConnection: close\r\n" in received.partition(b"\r\n\r\n")[0]
    assert GRACE_S - 0.2 < time.monotonic() - began < GRACE_S + SLACK_S


def test_a_body_that_trickles_below_the_minimum_rate_is_cut(quick):
    with connect(quick) as sock:
        began = time.monotonic()
        sock.sendall(head("/v1/matches", 1000))
        with pytest.raises(OSError):  # the server hangs up while the client still sends
            for _ in range(40):
                sock.sendall(b" ")  # one byte every half grace: never silent for a grace
                time.sleep(GRACE_S / 2)
        status, error = answer(until_closed(sock))
    assert (status, error["code"]) == (408, "body_timeout")
    assert time.monotonic() - began < GRACE_S + SLACK_S + GRACE_S / 2


def test_no_body_takes_longer_than_the_total(quick):
    blank = b" " * (MIN_RATE // 2 - 1) + b"\n"  # blank lines: an audit reads on
    with connect(quick) as sock:
        began = time.monotonic()
        sock.sendall(head("/v1/audits", 6 * 10**6, "application/x-ndjson"))
        with pytest.raises(OSError):
            for _ in range(100):
                sock.sendall(blank)  # twice the minimum rate
                time.sleep(0.25)
        status, error = answer(until_closed(sock))
    assert (status, error["code"]) == (408, "body_timeout")
    assert TOTAL_S - 0.2 < time.monotonic() - began < TOTAL_S + SLACK_S


def test_a_stalled_audit_upload_is_a_408_too(quick):
    body = GOLDEN.read_bytes()
    with connect(quick) as sock:
        sock.sendall(head("/v1/audits", len(body), "application/x-ndjson") + body[:-10])
        status, error = answer(until_closed(sock))
    assert (status, error["code"]) == (408, "body_timeout")


def test_a_body_in_time_is_served_and_the_connection_kept(quick):
    body = json.dumps({"variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]})
    with connect(quick) as sock:
        for _ in range(2):
            sock.sendall(head("/v1/matches", len(body)) + body.encode())
            received = b""
            while b'"creator_token"' not in received or not received.endswith(b"}\n"):
                received += sock.recv(65536)
            assert received.startswith(b"HTTP/1.1 201")


@pytest.mark.parametrize("trickle", [False, True])
def test_slow_request_lines_and_headers_are_cut_by_gunicorn(quick, trickle):
    """The gevent worker reads a request's line and headers under its keep-alive timeout
    (a ``gevent.Timeout`` around its parser), however slowly they trickle in: the
    connection is closed, without an answer."""
    partial = b"POST /v1/matches HTTP/1.1\r\nHost: test\r\nContent-Len"
    with connect(quick) as sock:
        began = time.monotonic()
        if trickle:
            with pytest.raises(OSError):
                for byte in partial * 10:
                    sock.send(bytes([byte]))
                    time.sleep(0.2)
        else:
            sock.sendall(partial)
        assert until_closed(sock) == b""
    assert time.monotonic() - began < KEEPALIVE_S + SLACK_S
