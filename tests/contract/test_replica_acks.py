"""``RUMMY_REPLICA_ACKS``: an append is acknowledged only once that many replicas hold it
(``WAIT`` on the append's own connection), on a plain Redis and on a Redis Cluster.

fakeredis has no replicas (nor ``WAIT``): these run on the real server (which has none, so
asking for one is refused) and on a master with a replica of this module's own."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.adapters.replica_acks import ReplicaAcks, ReplicasBehind
from service.adapters.store import RedisEventStore
from service.config import Settings
from service.ports import Appending, NewEvent
from tests.cluster import cluster_ports, missing
from tests.conftest import backend, cannot_run

STARTED = NewEvent("MatchStarted", {"players": 2})
DREW = NewEvent("Drew", {"seat": 0})


@pytest.fixture(params=["real_redis", "cluster"])
def redis_backend(request: pytest.FixtureRequest) -> Iterator[tuple[redis.Redis, str]]:
    """The real server and the session's cluster: neither has a replica."""
    with backend(request) as given:
        yield given


@pytest.fixture(scope="module")
def replicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, int]]:
    """A redis-server and its replica, of this module's own: their ports."""
    why = missing()
    if why is not None:
        cannot_run("REDIS-SERVER", why)
    directory = tmp_path_factory.mktemp("replicated")
    master, replica = cluster_ports(2)
    processes = [_server(directory, master), _server(directory, replica, master)]
    try:
        with redis.Redis(port=replica) as client:
            for _ in range(200):
                if client.info("replication").get("master_link_status") == "up":
                    break
                subprocess.run(["sleep", "0.05"], check=True)
            else:
                raise RuntimeError("the replica did not sync")
        yield master, replica
    finally:
        for process in processes:
            process.kill()
            process.wait(10)


def _server(directory: Path, port: int, of: int | None = None) -> subprocess.Popen[bytes]:
    argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(directory)]
    if of is not None:
        argv += ["--replicaof", "127.0.0.1", str(of)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    with redis.Redis(port=port) as client:
        for _ in range(200):
            try:
                client.ping()
                return process
            except redis.ConnectionError:
                subprocess.run(["sleep", "0.05"], check=True)
    raise RuntimeError(f"redis-server on {port} did not start")


def test_without_replica_acks_an_append_answers_at_once(
        redis_backend: tuple[redis.Redis, str]) -> None:
    client, prefix = redis_backend
    store = RedisEventStore(client, prefix, acks=ReplicaAcks(0))
    store.create("m1", [STARTED], {})
    assert store.append("m1", 1, [DREW]).version == 2


def test_an_append_no_replica_confirms_is_refused_yet_a_retry_is_safe(
        redis_backend: tuple[redis.Redis, str]) -> None:
    client, prefix = redis_backend
    RedisEventStore(client, prefix).create("m1", [STARTED], {})
    waiting = RedisEventStore(client, prefix, acks=ReplicaAcks(1, timeout_ms=20))
    with pytest.raises(ReplicasBehind, match="0 of 1 replicas"):
        waiting.append("m1", 1, [DREW], idempotency_key="k1", fingerprint="f")
    retried = RedisEventStore(client, prefix).append("m1", 1, [DREW], idempotency_key="k1",
                                                     fingerprint="f")
    assert retried.replayed
    assert [event.version for event in waiting.read("m1")] == [1, 2]


def test_a_workers_batch_no_replica_confirms_answers_each_append_refused(
        redis_backend: tuple[redis.Redis, str]) -> None:
    """A worker's batch of appends is held to the replicas too: none is acknowledged that
    no replica confirmed, each answers so in its own place, and a retry of the step finds
    the match moved (the write may have been stored)."""
    client, prefix = redis_backend
    plain = RedisEventStore(client, prefix)
    for match_id in ("m1", "m2"):
        plain.create(match_id, [STARTED], {})
    waiting = RedisEventStore(client, prefix, acks=ReplicaAcks(1, timeout_ms=20))
    answers = waiting.append_many([Appending("m1", 1, (DREW,)), Appending("m2", 1, (DREW,))])
    assert [type(answer) for answer in answers] == [ReplicasBehind, ReplicasBehind]
    assert [len(plain.read(match_id)) for match_id in ("m1", "m2")] == [2, 2]


def test_a_confirmed_batch_is_on_the_replica_when_it_answers(
        replicated: tuple[int, int]) -> None:
    master, replica = replicated
    with redis.Redis(port=master) as client, redis.Redis(port=replica) as copy:
        store = RedisEventStore(client, "batched", acks=ReplicaAcks(1, timeout_ms=2000))
        ids = [f"m{n}" for n in range(5)]
        for match_id in ids:
            store.create(match_id, [STARTED], {})
        answers = store.append_many([Appending(match_id, 1, (DREW,)) for match_id in ids])
        assert [answer.version for answer in answers] == [2] * 5  # type: ignore[union-attr]
        assert [copy.xlen(f"batched:{{{match_id}}}:events") for match_id in ids] == [2] * 5


def test_a_confirmed_append_is_on_the_replica_when_it_answers(
        replicated: tuple[int, int]) -> None:
    master, replica = replicated
    with redis.Redis(port=master) as client, redis.Redis(port=replica) as copy:
        store = RedisEventStore(client, "acked", acks=ReplicaAcks(1, timeout_ms=2000))
        store.create("m1", [STARTED], {})
        for version in range(1, 30):
            store.append("m1", version, [DREW])
            assert copy.xlen("acked:{m1}:events") == version + 1


def test_replica_acks_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("RUMMY_REPLICA_ACKS", "1")
    monkeypatch.setenv("RUMMY_REPLICA_ACK_TIMEOUT_MS", "250")
    settings = Settings.from_env()
    assert (settings.replica_acks, settings.replica_ack_timeout_ms) == (1, 250)


@pytest.mark.parametrize("acks", ["-1", "one", "1.5"])
def test_a_misspelt_replica_acks_stops_the_start(monkeypatch: pytest.MonkeyPatch,
                                                 acks: str) -> None:
    monkeypatch.setenv("RUMMY_REPLICA_ACKS", acks)
    with pytest.raises(ValueError, match="RUMMY_REPLICA_ACKS"):
        Settings.from_env()


def test_the_embedded_store_cannot_promise_replicas() -> None:
    with pytest.raises(ValueError, match="needs REDIS_URL"):
        Settings(replica_acks=1)
