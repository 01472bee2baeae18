"""Appends under load on a Redis Cluster with a replica per master, one master killed
(``kill -9``) mid-load, its replica promoted: which acknowledged appends survived.

Shared by tests/faults/test_10_failover.py (with ``RUMMY_REPLICA_ACKS=1``: none lost) and
bench/failover.py (both settings, and what WAIT costs each append)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.adapters.replica_acks import ReplicaAcks
from service.adapters.store import RedisEventStore
from service.bootstrap import _cluster
from service.ports import MatchExists, NewEvent, VersionConflict
from tests.cluster import ClusterProcesses, disconnect, running_cluster

THREADS = 8
BEFORE_S = 1.0
AFTER_S = 1.0
PROMOTION_S = 20.0


@dataclass
class Outcome:
    """What the clients were told, and what the cluster kept."""

    acknowledged: int = 0
    lost: int = 0
    refused: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    promoted_s: float = 0.0

    def median_ms(self) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[len(ordered) // 2] if ordered else 0.0


def _play(store: RedisEventStore, match_id: str, stop: threading.Event,
          acknowledged: dict[str, int], outcome: Outcome, lock: threading.Lock) -> None:
    """Append one event after another to ``match_id``; a refused one is sent again with
    its idempotency key until it is acknowledged (as the API's clients do)."""
    _begin(store, match_id)
    version = 1
    while not stop.is_set():
        began = time.monotonic()
        try:
            store.append(match_id, version, [NewEvent("Drew", {"n": version})],
                         idempotency_key=f"a{version}", fingerprint="f")
        except VersionConflict:
            return  # the match lost appends it was told were stored: counted at the end
        except redis.RedisError:
            with lock:
                outcome.refused += 1
            time.sleep(0.05)
            continue
        with lock:
            outcome.latencies_ms.append((time.monotonic() - began) * 1000)
        version += 1
        acknowledged[match_id] = version


def _begin(store: RedisEventStore, match_id: str) -> None:
    """Create the match, sent again while it is refused (a replica not yet linked, the
    cluster still settling); one that exists was stored by a try answered too late."""
    deadline = time.monotonic() + PROMOTION_S
    while True:
        try:
            store.create(match_id, [NewEvent("MatchStarted", {})], {})
            return
        except MatchExists:
            return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def run(directory: Path, replica_acks: int, threads: int = THREADS) -> Outcome:
    """One cluster, ``threads`` matches played, one master killed once all are under way."""
    outcome = Outcome()
    with running_cluster(directory, replicas=1) as cluster:
        client = _cluster(cluster.url)
        store = RedisEventStore(client, "failover", acks=ReplicaAcks(replica_acks, 500))
        acknowledged: dict[str, int] = {}
        stop, lock = threading.Event(), threading.Lock()
        players = [threading.Thread(target=_play, daemon=True,
                                    args=(store, uuid.uuid4().hex[:8], stop, acknowledged,
                                          outcome, lock))
                   for _ in range(threads)]
        for player in players:
            player.start()
        _until(lambda: len(acknowledged) == threads)  # every match under way
        time.sleep(BEFORE_S)
        outcome.promoted_s = _kill_a_master(cluster)
        time.sleep(AFTER_S)
        stop.set()
        for player in players:
            player.join(30)
        for match_id, version in acknowledged.items():
            outcome.acknowledged += version - 1
            outcome.lost += max(0, version - _kept(store, match_id))
        disconnect(client)
    return outcome


def _until(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PROMOTION_S
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError("the appends did not get under way")
        time.sleep(0.05)


def _kill_a_master(cluster: ClusterProcesses) -> float:
    """Kill the first master and wait for its replica's promotion (as many masters as
    before, and every live node says ``cluster_state:ok``); the seconds it took."""
    masters = cluster.masters()
    cluster.kill(masters[0])
    killed = time.monotonic()
    while len(cluster.masters()) < len(masters) or not cluster.ok():
        if time.monotonic() - killed > PROMOTION_S:
            raise RuntimeError("no replica was promoted")
        time.sleep(0.05)
    return time.monotonic() - killed


def _kept(store: RedisEventStore, match_id: str) -> int:
    """The match's last stored version, read once the cluster serves every slot again."""
    deadline = time.monotonic() + PROMOTION_S
    while True:
        try:
            events = store.read(match_id)
            return events[-1].version if events else 0
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
