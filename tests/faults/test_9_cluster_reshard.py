"""Slots move between masters while matches are played on a Redis Cluster.

A 3-master cluster of this test's own serves the API (a Flask test app, jobs in-process).
Matches are created, their public live streams opened, and each match is played on a
thread of its own, hand after hand. Meanwhile every slot holding a match is moved to
another master, twice, its keys migrated two at a time with a pause between batches (as
``redis-cli --cluster reshard`` does, slower), so actions meet their match's slot half
moved: the store's scripts are then answered ASK or TRYAGAIN.

Afterwards every action the API acknowledged is in its match's log, every hand it ended
was scored once, no answer was a 5xx the client does not retry (503 ``store_unavailable``,
retried with the same Idempotency-Key, is counted and printed), and every live stream got
every event of its match, the ones appended after its slot moved included: the stream hub
followed the slot to its new master.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.adapters.fanout import StreamHub, Subscription, notify
from service.bootstrap import connect
from tests.cluster import ClusterProcesses, disconnect, missing, running_cluster
from tests.conftest import cannot_run
from tests.faults.conftest import Response
from tests.faults.tables import SPECS, Players, Table, check, run_client, wait_recovered
from tests.service.conftest import ADMIN
from tests.service.test_cluster_api import cluster_settings

PLAYED = ("gin2", "gem2", "gin3")
MATCHES = 6
HANDS = 3
ROUNDS = 2
"""Each match's slot moves this many times (to the next master each time)."""
BATCH = 2
PAUSE_S = 0.02
SETTLE_S = 20.0
REDIRECTIONS = ("MOVED", "ASK", "TRYAGAIN", "NOSCRIPT")
"""The replies of a moving slot (others, such as a Redis 7.0's ERR to redis-py's
``CLIENT SETINFO`` on every new connection, are not counted)."""


class FlaskHttp:
    """The faults' ``Http`` over a Flask test client, so ``tables.Players`` plays on it."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None, timeout: float = 30.0) -> Response:
        began = time.monotonic()
        sent = {**(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        answer = self.client.open(path, method=method, json=body, headers=sent)
        return Response(answer.status_code, answer.get_json(silent=True),
                        time.monotonic() - began)


class Watcher:
    """A match's public live stream, read on a thread: the event ids it delivered."""

    def __init__(self, client: FlaskClient, match_id: str) -> None:
        self.ids: list[int] = []
        self._stop = threading.Event()
        self._response = client.get(f"/v1/matches/{match_id}/stream?after=0", buffered=False)
        assert self._response.status_code == 200
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for chunk in self._response.response:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                self.ids += [int(found) for found in re.findall(r"^id: (\d+)$", text, re.M)]
                if self._stop.is_set():
                    break
        finally:
            self._response.close()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterProcesses]:
    """This module's cluster (its slots move): stopped after every test's wiring closed."""
    why = missing()
    if why is not None:
        cannot_run("REDIS-CLUSTER", why)
    with running_cluster(tmp_path_factory.mktemp("reshard")) as started:
        yield started
        shard_readers_ended()


def shard_readers_ended(wait_s: float = 5.0) -> None:
    """Wait for the closed hubs' shard readers (they end within a second), so none is
    still reading when the cluster stops."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and any(
            thread.name.startswith("rummy-shard-") for thread in threading.enumerate()):
        time.sleep(0.05)


@pytest.fixture
def hub(cluster: ClusterProcesses) -> Iterator[tuple[StreamHub, Any]]:
    """A stream hub on the cluster, as the server builds it, and its client."""
    events = connect(cluster_settings(cluster.url, "hub"))
    hub = StreamHub(events, f"hub:wake:{uuid.uuid4().hex}", idle_ms=200)
    try:
        yield hub, events
    finally:
        hub.close()
        disconnect(events)


def append(events: Any, key: str, n: int) -> str:
    """An entry on ``key``, announced on its channel as every writer does."""
    entry_id = f"{n}-0"
    events.xadd(key, {"n": str(n)}, id=entry_id)
    notify(events, key)
    return entry_id


def delivered(sub: Subscription, wanted: int, wait_s: float = 10.0) -> list[str]:
    """The entry ids ``sub`` gets until it has ``wanted`` of them (or ``wait_s`` passed)."""
    ids: list[str] = []
    deadline = time.monotonic() + wait_s
    while len(ids) < wanted and time.monotonic() < deadline:
        ids += [entry_id for _, entries in sub.get() for entry_id, _ in entries]
    return ids


def subscribers_on(cluster: ClusterProcesses, port: int, key: str) -> int:
    with cluster.node(port) as node:
        return int(node.execute_command("PUBSUB", "SHARDNUMSUB", key)[1])


def test_each_key_is_heard_on_the_master_that_owns_it(cluster, hub):
    """Keys on every master: each channel is subscribed on its own master, and an entry
    on any of them reaches its subscriber."""
    hub, events = hub
    keys = [f"hub:{{m{n}}}:events" for n in range(12)]
    owners = {key: cluster.owner(events.keyslot(key)) for key in keys}
    assert len(set(owners.values())) == 3, "the keys should spread over the masters"
    subs = {key: hub.subscribe({key: "0-0"}, idle_s=0.2) for key in keys}
    for key in keys:
        append(events, key, 1)
    assert all(delivered(sub, 1) == ["1-0"] for sub in subs.values())
    for key, owner in owners.items():
        assert [subscribers_on(cluster, port, key) for port in cluster.ports] == \
            [1 if port == owner else 0 for port in cluster.ports]


def test_a_key_whose_slot_moves_is_heard_on_its_new_master(cluster, hub):
    """The old master ends the channel's subscription when it gives the slot away; the
    hub subscribes it again on the new one and reads the key once more."""
    hub, events = hub
    key = "hub:{moving}:events"
    sub = hub.subscribe({key: "0-0"}, idle_s=0.2)
    first = append(events, key, 1)
    assert delivered(sub, 1) == [first]
    slot = events.keyslot(key)
    old = cluster.owner(slot)
    new = next(port for port in cluster.ports if port != old)
    assert cluster.move_slot(slot, new) == 1
    appended = [append(events, key, n) for n in (2, 3)]
    assert delivered(sub, 2) == appended
    assert (subscribers_on(cluster, old, key), subscribers_on(cluster, new, key)) == (0, 1)


def test_a_lost_shard_connection_is_made_again_and_the_key_read(cluster, hub):
    hub, events = hub
    key = "hub:{cut}:events"
    sub = hub.subscribe({key: "0-0"}, idle_s=0.2)
    first = append(events, key, 1)
    assert delivered(sub, 1) == [first]
    owner = cluster.owner(events.keyslot(key))
    with cluster.node(owner) as node:
        assert node.client_kill_filter(_type="pubsub") >= 1
    appended = [append(events, key, n) for n in (2, 3)]
    assert delivered(sub, 2) == appended


def play(players: Players, table: Table, stop: threading.Event) -> None:
    while not stop.is_set() and table.state in ("playing", "waiting"):
        if not players.step(table):
            stop.wait(0.02)


def test_matches_played_while_their_slots_move_lose_nothing(cluster, serving):
    settings = cluster_settings(cluster.url, "reshard")
    events = connect(settings)
    try:
        app = serving(settings, events, jobs_inline=True)
        stack = SimpleNamespace(http=FlaskHttp(app.test_client()), admin=ADMIN)
        chosen = [spec for spec in SPECS if spec.name in PLAYED]
        creator = Players(stack, max_hands=HANDS)  # type: ignore[arg-type]
        tables = creator.create_all(chosen[n % len(chosen)] for n in range(MATCHES))
        watchers = {table.id: Watcher(app.test_client(), table.id) for table in tables}
        seats = [Players(stack, max_hands=HANDS) for _ in tables]  # type: ignore[arg-type]
        for players, table in zip(seats, tables, strict=True):
            players.tables.append(table)
        clients = [run_client(players, lambda stop, p=players, t=table: play(p, t, stop),
                              f"reshard-{table.id}")
                   for players, table in zip(seats, tables, strict=True)]

        slots = sorted({events.keyslot(f"reshard:{{{table.id}}}:events") for table in tables})
        moved_at: dict[str, int] = {}
        keys_moved = 0
        before = cluster.errors()
        began = time.monotonic()
        for round_ in range(ROUNDS):
            for slot in slots:
                owner = cluster.owner(slot)
                after = cluster.ports[(cluster.ports.index(owner) + 1 + round_) % 3]
                keys_moved += cluster.move_slot(slot, after, batch=BATCH, pause_s=PAUSE_S)
        for table in tables:
            moved_at[table.id] = table.version
        moves_done = time.monotonic()
        replies = {kind: count - before.get(kind, 0) for kind, count in cluster.errors().items()
                   if kind in REDIRECTIONS}

        for thread, stop, _ in clients:
            thread.join(SETTLE_S)
            stop.set()
        played = time.monotonic()
        errors = [error for _, _, errs in clients for error in errs]
        assert not errors, errors
        times, pending = wait_recovered(seats[0], tables, moves_done, SETTLE_S)
        assert not pending, pending
        check(seats[0], tables)

        statuses: Counter[tuple[str, int, str | None]] = Counter()
        for players in [creator, *seats]:
            statuses.update(players.statuses)
            assert not players.unexpected, players.unexpected
        acked = sum(len(table.acked) for table in tables)
        logged = {table.id: len(table.events) for table in tables}
        assert all(logged[table.id] > moved_at[table.id] for table in tables), \
            "every match should go on after its slot's last move"

        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline and any(
                len(watchers[match_id].ids) < count for match_id, count in logged.items()):
            time.sleep(0.05)
        for watcher in watchers.values():
            watcher.stop()
        for match_id, count in logged.items():
            assert watchers[match_id].ids == list(range(1, count + 1)), match_id

        retried = sum(n for (_, status, _), n in statuses.items() if status == 503)
        print(f"\n[faults] reshard: {len(slots)} slots moved {ROUNDS} times in "
              f"{moves_done - began:.1f}s ({keys_moved} keys migrated, {BATCH} a batch) "
              f"while {MATCHES} matches were played for {played - began:.1f}s: "
              f"{acked} actions acknowledged, {sum(logged.values())} events, "
              f"{retried} answers 503 (retried); Redis answered during the moves "
              f"{replies}; statuses {dict(statuses)}", flush=True)
    finally:
        disconnect(events)
