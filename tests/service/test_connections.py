"""The pool's readiness check of a connection (``service.adapters.connections``): a
connection with a reply left unread, or one the server closed, still reads as not ready
to carry a command, and an idle one as ready."""

from __future__ import annotations

import time

import pytest
import redis

from service.adapters.connections import PlainPollConnection, quick_connections
from tests.conftest import REAL_REDIS_URL

on_real_redis = pytest.mark.parametrize("redis_backend", ["real_redis"], indirect=True)


@pytest.fixture
def connection(redis_backend):
    pool = redis.ConnectionPool.from_url(REAL_REDIS_URL, **quick_connections(REAL_REDIS_URL))
    taken = pool.get_connection()
    assert isinstance(taken, PlainPollConnection)
    yield taken
    pool.release(taken)
    pool.disconnect()


@on_real_redis
def test_an_idle_connection_has_nothing_to_read(connection):
    connection.send_command("PING")
    assert connection.read_response() == b"PONG"
    assert not connection.can_read()


@on_real_redis
def test_a_reply_left_unread_is_seen(connection):
    connection.send_command("PING")
    deadline = time.monotonic() + 5
    while not connection.can_read() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert connection.can_read()


@on_real_redis
def test_a_connection_the_server_closed_is_seen(connection, redis_client):
    connection.send_command("CLIENT", "ID")
    own = connection.read_response()
    redis_client.client_kill_filter(_id=own)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if connection.can_read():
                break
        except redis.ConnectionError:
            break
        time.sleep(0.01)
    else:
        pytest.fail("the closed connection still read as idle")


def test_only_a_plain_redis_url_gets_the_cheap_check():
    assert quick_connections("redis://127.0.0.1:6379/0")
    for url in ("rediss://127.0.0.1:6380/0", "unix:///tmp/redis.sock", "memory://",
                "redis+cluster://127.0.0.1:7000"):
        assert quick_connections(url) == {}
