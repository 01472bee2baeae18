"""Real mode runs several API processes: a rotation made through one ends the old token's
streams held by another, within a second or two (issue 16, finding 2), and so does an
organiser key's revocation end the streams the key opened.

Two gunicorn processes share the machine's Redis under this test's own key prefix; a
seat's streams (one by its token, one by a ticket) are opened on the first, the token is
rotated through the second; an organiser key's full-view streams and feeds likewise.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import redis

from tests.conftest import (
    REAL_REDIS_URL,
    cannot_run,
    gunicorn_argv,
    rq_left_as_found,
    server_env,
    serving_api,
)
from tests.service.test_matches_api import DECK

ADMIN = "cutoff-admin"


def call(base: str, method: str, path: str, token: str | None = None,
         body: Any = None) -> tuple[int, Any]:
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


class Stream:
    """A Server-Sent Events response read line by line on its own thread."""

    def __init__(self, base: str, path: str, token: str | None = None) -> None:
        url = urlparse(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {token}"}
                                if token else {})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()
        self.events: list[tuple[str, Any]] = []
        self.closed_at: float | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        """``read1`` until the server ends the body (http.client's line iteration fails
        at the end of a chunked body instead of stopping)."""
        name, buffer = None, b""
        try:
            while chunk := self.response.read1(65536):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in (raw.decode() for raw in lines):
                    if line.startswith("event: "):
                        name = line[len("event: "):]
                    elif line.startswith("data: ") and name is not None:
                        self.events.append((name, json.loads(line[len("data: "):])))
                        name = None
        except (OSError, AttributeError, http.client.HTTPException):  # the test hung up
            return
        self.closed_at = time.monotonic()

    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    def close(self) -> None:
        """Hang up: a shutdown wakes the reading thread at once (closing the response
        would first wait for the read in progress, until the server's next keep-alive)."""
        if self.connection.sock is not None:
            try:
                self.connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(5)
        self.connection.close()


@pytest.fixture
def two_apis(tmp_path: Path) -> Iterator[tuple[str, str]]:
    client = redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        cannot_run("REAL-MODE STREAM CUT-OFF", f"no Redis at {REAL_REDIS_URL}: {exc}")
    prefix = f"t{uuid.uuid4().hex[:10]}"
    env = server_env(REDIS_URL=REAL_REDIS_URL, RUMMY_KEY_PREFIX=prefix,
                     RUMMY_ADMIN_TOKEN=ADMIN, RUMMY_RATE_LIMITS="off",
                     RUMMY_SSE_KEEPALIVE_MS="500")  # a hung-up stream is noticed soon
    try:
        with rq_left_as_found(client, prefix), \
                serving_api("api-a", gunicorn_argv, env, tmp_path / "a.log") as first, \
                serving_api("api-b", gunicorn_argv, env, tmp_path / "b.log") as second:
            yield first, second
    finally:
        keys = list(client.scan_iter(match=f"*{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def wait_until(check: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_rotation_through_one_process_ends_streams_held_by_another(two_apis):
    first, second = two_apis
    status, match = call(first, "POST", "/v1/matches", ADMIN, {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"first_dealer": 0}, "deck": DECK})
    assert status == 201, match
    match_id, version = match["id"], match["version"]
    bob, ann = match["seats"][1]["token"], match["seats"][0]["token"]
    path = f"/v1/matches/{match_id}/stream?after={version}"
    _, issued = call(second, "POST", f"/v1/matches/{match_id}/stream-tickets", bob)
    by_token = Stream(first, path, bob)
    by_ticket = Stream(first, f"{path}&ticket={issued['ticket']}")
    public = Stream(first, path)
    wait_until(lambda: call(second, "GET", f"/v1/matches/{match_id}")[1]["seats"][1]
               ["presence"]["online"], 10)
    time.sleep(0.2)  # both of Bob's streams are subscribed by now

    rotated_at = time.monotonic()
    status, fresh = call(second, "POST", f"/v1/matches/{match_id}/seats/1/token",
                         match["creator_token"])
    assert status == 200, fresh
    for stream in (by_token, by_ticket):
        stream.thread.join(5)
        assert stream.closed_at is not None, stream.names()
        assert stream.events[-1] == ("end", {"reason": "token_rotated"})
        assert stream.closed_at - rotated_at < 2.0

    for seat_token, action in [(fresh["token"], {"type": "pass"}), (ann, {"type": "pass"}),
                               (fresh["token"], {"type": "draw", "source": "stock"})]:
        status, answer = call(second, "POST", f"/v1/matches/{match_id}/actions",
                              seat_token, action)
        assert status == 200, answer
    wait_until(lambda: "CardDrawn" in public.names(), 5)
    assert "card" not in dict(public.events)["CardDrawn"]["data"]
    for stream in (by_token, by_ticket):
        assert "UpcardPassed" not in stream.names() and "CardDrawn" not in stream.names()
    status, refused = call(first, "GET", f"/v1/matches/{match_id}", bob)
    assert (status, refused["code"]) == (401, "invalid_token")
    public.close()
    public.thread.join(5)
    for stream in (by_token, by_ticket):
        stream.close()


def game_events(stream: Stream) -> list[str]:
    return [name for name in stream.names() if name not in ("presence", "end")]


def test_a_revocation_through_one_process_ends_the_keys_streams_held_by_another(two_apis):
    first, second = two_apis
    status, club = call(second, "POST", "/v1/organisers", ADMIN, {"name": "club"})
    assert status == 201, club
    key = club["key"]
    status, match = call(first, "POST", "/v1/matches", key, {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"first_dealer": 0}, "deck": DECK})
    assert status == 201, match
    match_id, version = match["id"], match["version"]
    bob, ann = match["seats"][1]["token"], match["seats"][0]["token"]
    path = f"/v1/matches/{match_id}/stream?after={version}"
    _, issued = call(second, "POST", f"/v1/matches/{match_id}/stream-tickets", key)
    _, feed_ticket = call(second, "POST", "/v1/feed/tickets", key)
    keys_streams = [Stream(first, path, key), Stream(first, f"{path}&ticket={issued['ticket']}"),
                    Stream(first, "/v1/feed", key),
                    Stream(first, f"/v1/feed?ticket={feed_ticket['ticket']}")]
    public, admin = Stream(first, path), Stream(first, path, ADMIN)
    time.sleep(0.5)  # every stream is subscribed by now

    revoked_at = time.monotonic()
    status, revoked = call(second, "DELETE", f"/v1/organisers/{club['id']}", ADMIN)
    assert status == 200, revoked
    for stream in keys_streams:
        stream.thread.join(5)
        assert stream.closed_at is not None, stream.names()
        assert stream.events[-1] == ("end", {"reason": "key_revoked"})
        assert stream.closed_at - revoked_at < 2.0

    for seat_token, action in [(bob, {"type": "pass"}), (ann, {"type": "pass"}),
                               (bob, {"type": "draw", "source": "stock"})]:
        status, answer = call(second, "POST", f"/v1/matches/{match_id}/actions",
                              seat_token, action)
        assert status == 200, answer
    status, aborted = call(second, "POST", f"/v1/matches/{match_id}/abort", ADMIN,
                           {"reason": "club closed"})
    assert status == 200, aborted
    wait_until(lambda: "MatchAborted" in public.names() and "MatchAborted" in admin.names(), 5)
    assert "card" in dict(admin.events)["CardDrawn"]["data"]  # the admin token goes on
    for stream in keys_streams:
        assert game_events(stream) == []
    status, refused = call(first, "GET", f"/v1/matches/{match_id}", key)
    assert (status, refused["code"]) == (401, "invalid_token")
    for stream in [*keys_streams, public, admin]:
        stream.close()
