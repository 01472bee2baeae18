"""Contract suite for the event store, run on every backend (fakeredis, real Redis and a
3-master Redis Cluster: ``tests.cluster``).

STYLE.md 9: one suite that every storage backend passes. Every key lives under the
fixture's prefix, so the real server is left as found.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any, cast

import fakeredis
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.cluster import RedisCluster

from domain.chain import event_hash
from service.adapters.snapshots import RedisSnapshots
from service.adapters.store import (
    GENESIS_HASH,
    AppendResult,
    IdempotencyKeyReused,
    MatchExists,
    NewEvent,
    RedisEventStore,
    StoredEvent,
    UnknownMatch,
    VersionConflict,
)
from service.ports import Appending, Reading
from tests.conftest import backend


class StepClock:
    """A clock that moves on a fixed step per reading, so creation order is unambiguous."""

    def __init__(self, start: float = 1_700_000_000.0, step: float = 1.25) -> None:
        self._now = start
        self._step = step

    def __call__(self) -> float:
        self._now += self._step
        return self._now


@pytest.fixture(params=["fakeredis", "real_redis", "cluster"])
def redis_backend(request: pytest.FixtureRequest) -> Iterator[tuple[redis.Redis, str]]:
    """The conftest's backends, and the cluster."""
    with backend(request) as given:
        yield given


@pytest.fixture
def store(redis_backend: tuple[redis.Redis, str]) -> RedisEventStore:
    client, prefix = redis_backend
    return RedisEventStore(client, prefix=prefix, clock=StepClock())


def _sibling_client(client: redis.Redis, **overrides: Any) -> redis.Redis:
    """A separate client (own pool, own connections) talking to the same server.

    Copying the pool's connection class and kwargs works for both backends: for fakeredis
    the kwargs carry the FakeServer, so the sibling shares its data.
    """
    if isinstance(client, RedisCluster):
        node = client.get_default_node()
        return cast(redis.Redis, RedisCluster(host=node.host, port=node.port, **overrides))
    pool = client.connection_pool
    kwargs = {**pool.connection_kwargs, **overrides}
    return redis.Redis(
        connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    )


OtherStore = Callable[..., RedisEventStore]


@pytest.fixture
def other_store(redis_backend: tuple[redis.Redis, str]) -> Iterator[OtherStore]:
    """Makes stores on separate clients of the same server (the same key prefix); closes
    their clients afterwards, so no socket outlives the test."""
    client, prefix = redis_backend
    clients: list[redis.Redis] = []

    def make(clock: Callable[[], float] | None = None, **overrides: Any) -> RedisEventStore:
        clients.append(_sibling_client(client, **overrides))
        if clock is None:
            return RedisEventStore(clients[-1], prefix=prefix)
        return RedisEventStore(clients[-1], prefix=prefix, clock=clock)

    yield make
    for sibling in clients:
        sibling.close()


def _events(*types: str) -> list[NewEvent]:
    return [NewEvent(name, {"n": index, "type": name}) for index, name in enumerate(types)]


def _new_match(store: RedisEventStore, count: int = 2) -> str:
    match_id = uuid.uuid4().hex[:12]
    store.create(match_id, _events(*(f"E{i}" for i in range(count))), {"variant": "gin"})
    return match_id



def version(store: RedisEventStore, match_id: str) -> int:
    """A match's version as a reader sees it: the version of its last event (0: none)."""
    events = store.read(match_id)
    return events[-1].version if events else 0

# -- create / read / version / meta --------------------------------------------------------


def test_create_read_version_meta_round_trip(store: RedisEventStore) -> None:
    new = [NewEvent("MatchCreated", {"seats": 2, "name": "Zoë"}), NewEvent("HandDealt", {})]
    result = store.create("m1", new, {"variant": "gin", "owner": "ana"}, command_id="c-1")

    assert result == AppendResult(version=2, events=result.events, replayed=False)
    assert [e.version for e in result.events] == [1, 2]
    assert store.read("m1") == list(result.events)
    assert version(store, "m1") == 2
    assert store.meta("m1") == {"variant": "gin", "owner": "ana"}
    first = store.read("m1")[0]
    assert (first.type, first.schema, first.data) == ("MatchCreated", 1, new[0].data)
    assert first.command_id == "c-1"
    assert first.ts == 1_700_000_001.25


def test_unknown_match_reads_as_empty(store: RedisEventStore) -> None:
    assert store.read("nope") == []
    assert version(store, "nope") == 0
    assert store.meta("nope") is None


def test_versions_are_contiguous_and_map_to_stream_ids(
    store: RedisEventStore, redis_backend: tuple[redis.Redis, str]
) -> None:
    client, prefix = redis_backend
    store.create("m1", _events("A", "B"), {})
    store.append("m1", 2, _events("C"))
    store.append("m1", 3, _events("D", "E", "F"))

    assert [e.version for e in store.read("m1")] == [1, 2, 3, 4, 5, 6]
    assert [e.type for e in store.read("m1")] == ["A", "B", "C", "D", "E", "F"]
    # Entry id <version>-0 is what SSE Last-Event-ID and XRANGE by version rely on.
    ids = [entry_id for entry_id, _ in client.xrange(f"{prefix}:{{m1}}:events") or []]
    assert ids == [f"{v}-0".encode() for v in range(1, 7)]


def test_command_id_absent_is_none_and_schema_kept(store: RedisEventStore) -> None:
    store.create("m1", [NewEvent("A", {"x": 1}, schema=3)], {})
    store.append("m1", 1, [NewEvent("B", {})], command_id="cmd-9")

    first, second = store.read("m1")
    assert (first.schema, first.command_id) == (3, None)
    assert (second.schema, second.command_id) == (1, "cmd-9")


def test_create_twice_raises_match_exists_and_changes_nothing(store: RedisEventStore) -> None:
    store.create("m1", _events("A"), {"variant": "gin"})
    before = store.read("m1")

    with pytest.raises(MatchExists):
        store.create("m1", _events("X", "Y"), {"variant": "rami"})

    assert store.read("m1") == before
    assert store.meta("m1") == {"variant": "gin"}
    assert store.match_ids() == ["m1"]


def test_create_without_events_starts_at_version_zero(store: RedisEventStore) -> None:
    result = store.create("m1", [], {"variant": "gin"})

    assert result == AppendResult(version=0, events=())
    assert (version(store, "m1"), store.read("m1"), store.meta("m1")) == (0, [], {"variant": "gin"})
    with pytest.raises(MatchExists):
        store.create("m1", [], {})
    assert store.append("m1", 0, _events("A")).events[0].prev_hash == GENESIS_HASH


def test_append_to_unknown_match_raises(store: RedisEventStore) -> None:
    with pytest.raises(UnknownMatch):
        store.append("ghost", 0, _events("A"))
    assert version(store, "ghost") == 0
    assert store.meta("ghost") is None


def test_append_without_events_is_refused(store: RedisEventStore) -> None:
    match_id = _new_match(store)
    with pytest.raises(ValueError):
        store.append(match_id, 2, [])


# -- concurrency control -------------------------------------------------------------------


def test_version_conflict_leaves_stream_unchanged(store: RedisEventStore) -> None:
    match_id = _new_match(store, count=3)
    before = store.read(match_id)

    for stale in (0, 2, 4):
        with pytest.raises(VersionConflict) as caught:
            store.append(match_id, stale, _events("Late"))
        assert (caught.value.expected, caught.value.actual) == (stale, 3)

    assert store.read(match_id) == before
    assert version(store, match_id) == 3


def test_concurrent_appends_at_same_version_exactly_one_wins(
    store: RedisEventStore,
    other_store: OtherStore,
) -> None:
    match_id = _new_match(store)
    writers = 16
    stores = [other_store() for _ in range(writers)]
    assert all(version(s, match_id) == 2 for s in stores)  # they all see the same server
    barrier = threading.Barrier(writers)
    outcomes: list[object] = [None] * writers

    def race(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = stores[index].append(match_id, 2, [NewEvent("Move", {"by": index})])
        except VersionConflict as exc:
            outcomes[index] = exc

    threads = [threading.Thread(target=race, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    wins = [o for o in outcomes if isinstance(o, AppendResult)]
    losses = [o for o in outcomes if isinstance(o, VersionConflict)]
    assert (len(wins), len(losses)) == (1, writers - 1)
    assert all(loss.actual == 3 for loss in losses)
    assert version(store, match_id) == 3
    assert store.read(match_id, after=2) == list(wins[0].events)


# -- hash chain ----------------------------------------------------------------------------


def _assert_chain(events: list[StoredEvent]) -> None:
    previous = GENESIS_HASH
    for event in events:
        assert event.prev_hash == previous
        recomputed = event_hash(
            event.version, event.type, event.schema, event.data,
            event.command_id, event.ts, event.prev_hash,
        )  # fmt: skip
        assert event.hash == recomputed
        previous = event.hash


def test_hash_chain_links_and_recomputes(store: RedisEventStore) -> None:
    store.create("m1", _events("A", "B"), {}, command_id="c0")
    # An int key and a tuple, on purpose: the hash must cover what comes back from JSON.
    data: dict[Any, Any] = {"cards": ("7H", "8H"), 3: "three"}
    store.append("m1", 2, [NewEvent("C", data)], command_id="c1")
    store.append("m1", 3, _events("D"))

    events = store.read("m1")
    _assert_chain(events)
    assert len({event.hash for event in events}) == 4
    assert events[2].data == {"cards": ["7H", "8H"], "3": "three"}  # stored as JSON


@pytest.mark.parametrize("data, as_read", [
    ({10: "ten", 2: "two"}, {"10": "ten", "2": "two"}),  # sorted as strings once stored
    ({"cards": ["7H"], "seats": {1: ("AS",)}}, {"cards": ["7H"], "seats": {"1": ["AS"]}}),
    ({True: 1, None: 2.5}, {"true": 1, "null": 2.5}),
    ({"plain": [1, 2.0, "é", None, False, {"b": 0, "a": 1}]},
     {"plain": [1, 2.0, "é", None, False, {"a": 1, "b": 0}]}),
])
def test_what_an_append_returns_is_what_is_read_and_hashed(
        store: RedisEventStore, data: dict[Any, Any], as_read: dict[str, Any]) -> None:
    store.create("m1", _events("A"), {})
    appended = store.append("m1", 1, [NewEvent("B", data)], command={"sent": data}).events
    events = store.read("m1")
    event = events[1]
    assert event.hash == event_hash(event.version, event.type, event.schema, event.data,
                                    event.command_id, event.ts, event.prev_hash, event.command)
    assert list(appended) == events[1:]
    assert events[1].data == as_read and events[1].command == {"sent": as_read}
    assert all(isinstance(key, str) for key in events[1].data)


def test_event_hash_is_canonical_json_sha256() -> None:
    import hashlib
    import json

    body = {
        "version": 1, "type": "A", "schema": 1, "data": {"b": 1, "a": "é"},
        "command_id": None, "ts": 1.5, "prev_hash": GENESIS_HASH,
    }  # fmt: skip
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert event_hash(1, "A", 1, {"a": "é", "b": 1}, None, 1.5, GENESIS_HASH) == expected
    assert event_hash(1, "A", 1, {"a": "é", "b": 2}, None, 1.5, GENESIS_HASH) != expected


def test_to_dict_has_every_field(store: RedisEventStore) -> None:
    event = store.create("m1", _events("A"), {}).events[0]
    assert event.to_dict() == {
        "version": 1, "type": "A", "schema": 1, "data": {"n": 0, "type": "A"},
        "command_id": None, "ts": event.ts, "prev_hash": GENESIS_HASH, "hash": event.hash,
        "command": None,
    }  # fmt: skip


def test_the_command_is_stored_and_hashed_with_the_first_event_it_caused(
        store: RedisEventStore) -> None:
    store.create("m1", _events("A"), {})
    action = {"seat": 1, "action": {"type": "discard", "card": "5S"}}
    appended = store.append("m1", 1, _events("B", "C"), command_id="c", command=action).events
    assert [e.command for e in appended] == [action, None]
    assert list(store.read("m1", after=1)) == list(appended)
    first = appended[0]
    assert first.hash == event_hash(first.version, first.type, first.schema, first.data,
                                    first.command_id, first.ts, first.prev_hash, action)
    assert first.hash != event_hash(first.version, first.type, first.schema, first.data,
                                    first.command_id, first.ts, first.prev_hash)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.dictionaries(st.text(), json_values, max_size=4))
def test_any_json_payload_round_trips_with_a_valid_hash(
    store: RedisEventStore, data: dict[str, Any]
) -> None:
    match_id = uuid.uuid4().hex
    created = store.create(match_id, [NewEvent("Payload", data)], {})

    assert store.read(match_id) == list(created.events)
    assert store.read(match_id)[0].data == data
    _assert_chain(store.read(match_id))


_FRESH = "0123456789abcdef" * 2


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command_id=st.one_of(st.text(min_size=1), st.text().map(lambda head: f"{head}:{_FRESH}")),
       command=st.dictionaries(st.text(), json_values, max_size=3))
def test_any_command_id_and_command_round_trip_with_a_valid_hash(
    store: RedisEventStore, command_id: str, command: dict[str, Any]
) -> None:
    """The command id and the command are stored shorter (a fresh id's hex, the commonest
    JSON pieces as control characters) and read back as they were sent."""
    match_id = uuid.uuid4().hex
    store.create(match_id, _events("A"), {})
    appended = store.append(match_id, 1, _events("B", "C"), command_id=command_id,
                            command=command).events
    read = store.read(match_id, after=1)
    assert read == list(appended)
    assert [(e.command_id, e.command) for e in read] == [(command_id, command),
                                                         (command_id, None)]


@pytest.mark.parametrize("command_id", [
    f"seat1:{_FRESH}", f"create:{_FRESH}", f"job:scoring:{_FRESH}", f"seat0:{_FRESH.upper()}",
    "~seat1:AAAA", "=x", "~", "job:scoring:21", f"{_FRESH}", f":{_FRESH}"])
def test_command_ids_of_every_shape_read_back(store: RedisEventStore, command_id: str) -> None:
    action = {"action": {"source": "discard", "type": "draw"}, "seat": 1}
    store.create("m1", [NewEvent("CardDrawn", {"card": "QH", "seat": 1, "source": "discard"})],
                 {}, command_id=command_id)
    store.append("m1", 1, _events("B"), command_id=command_id, command=action)
    first, second = store.read("m1")
    assert (first.command_id, second.command_id, second.command) == (
        command_id, command_id, action)
    _assert_chain([first])


def test_decode_responses_client_reads_the_same_events(
    store: RedisEventStore,
    other_store: OtherStore,
) -> None:
    text_store = other_store(clock=StepClock(2e9), decode_responses=True)
    store.create("m1", _events("A"), {"variant": "gin"}, command_id="c")
    text_store.append("m1", 1, _events("B"), idempotency_key="k", fingerprint="f")

    assert text_store.read("m1") == store.read("m1")
    assert text_store.meta("m1") == {"variant": "gin"}
    assert version(text_store, "m1") == 2
    assert text_store.match_ids() == ["m1"]
    assert text_store.append("m1", 1, _events("B"), idempotency_key="k", fingerprint="f").replayed
    _assert_chain(store.read("m1"))


# -- idempotency ---------------------------------------------------------------------------


def test_same_idempotency_key_appends_once(store: RedisEventStore) -> None:
    match_id = _new_match(store)
    first = store.append(match_id, 2, _events("Draw"), idempotency_key="k1", fingerprint="a|b")
    again = store.append(match_id, 2, _events("Draw"), idempotency_key="k1", fingerprint="a|b")

    assert (first.version, first.replayed, len(first.events)) == (3, False, 1)
    assert again == AppendResult(version=3, events=(), replayed=True)
    assert version(store, match_id) == 3


def test_an_append_the_client_library_sends_twice_lands_once_as_the_first_answered(
        store: RedisEventStore) -> None:
    """redis-py sends a command again when its connection drops before the reply came: the
    second call finds its own events at the head and answers as the first did, rather than
    a version conflict (which would have the command decided again on the moved match) or
    a replay of its idempotency key (which would hide the events it appended)."""
    match_id = _new_match(store)
    send = store._append_script
    store._append_script = lambda **call: (send(**call), send(**call))[1]  # type: ignore[method-assign]

    plain = store.append(match_id, 2, _events("Draw"))
    keyed = store.append(match_id, 3, _events("Discard"), idempotency_key="k1", fingerprint="fp")

    assert (plain.version, plain.replayed, len(plain.events)) == (3, False, 1)
    assert (keyed.version, keyed.replayed, len(keyed.events)) == (4, False, 1)
    assert [event.type for event in store.read(match_id)] == ["E0", "E1", "Draw", "Discard"]


def test_replay_reports_first_version_even_after_later_appends(store: RedisEventStore) -> None:
    match_id = _new_match(store)
    store.append(match_id, 2, _events("Draw"), idempotency_key="k1", fingerprint="fp")
    store.append(match_id, 3, _events("Discard"), idempotency_key="k2", fingerprint="fp2")

    replay = store.append(match_id, 2, _events("Draw"), idempotency_key="k1", fingerprint="fp")
    assert replay == AppendResult(version=3, events=(), replayed=True)
    assert version(store, match_id) == 4


def test_reused_idempotency_key_with_other_fingerprint_raises(store: RedisEventStore) -> None:
    match_id = _new_match(store)
    store.append(match_id, 2, _events("Draw"), idempotency_key="k1", fingerprint="draw|stock")

    with pytest.raises(IdempotencyKeyReused):
        store.append(match_id, 3, _events("Knock"), idempotency_key="k1", fingerprint="knock")
    assert version(store, match_id) == 3


def test_idempotency_keys_are_per_match(store: RedisEventStore) -> None:
    one, two = _new_match(store), _new_match(store)
    store.append(one, 2, _events("Draw"), idempotency_key="k", fingerprint="fp")
    result = store.append(two, 2, _events("Draw"), idempotency_key="k", fingerprint="fp")
    assert (result.version, result.replayed) == (3, False)


def test_failed_append_does_not_record_its_idempotency_key(store: RedisEventStore) -> None:
    match_id = _new_match(store)
    with pytest.raises(VersionConflict):
        store.append(match_id, 1, _events("Draw"), idempotency_key="k", fingerprint="fp")
    result = store.append(match_id, 2, _events("Draw"), idempotency_key="k", fingerprint="fp")
    assert (result.version, result.replayed) == (3, False)


# -- reading ranges, waiting, listing ------------------------------------------------------


def test_read_after_and_until(store: RedisEventStore) -> None:
    match_id = _new_match(store, count=5)

    def versions(after: int = 0, until: int | None = None) -> list[int]:
        return [event.version for event in store.read(match_id, after, until)]

    assert versions() == [1, 2, 3, 4, 5]
    assert versions(after=2) == [3, 4, 5]
    assert versions(until=2) == [1, 2]
    assert versions(after=1, until=3) == [2, 3]
    assert versions(after=3, until=3) == []
    assert versions(after=4, until=2) == []
    assert versions(after=5) == []
    assert versions(until=0) == []
    assert versions(after=2, until=99) == [3, 4, 5]


def test_match_ids_newest_first_with_paging(store: RedisEventStore) -> None:
    for match_id in ("first", "second", "third", "fourth"):
        store.create(match_id, _events("A"), {})

    assert store.match_ids() == ["fourth", "third", "second", "first"]
    assert store.match_ids(offset=1, limit=2) == ["third", "second"]
    assert store.match_ids(offset=4) == []
    assert store.match_ids(limit=0) == []


def test_keys_are_hash_tagged_by_match(
    store: RedisEventStore, redis_backend: tuple[redis.Redis, str]
) -> None:
    client, prefix = redis_backend
    store.create("m1", _events("A"), {})
    store.append("m1", 1, _events("B"), idempotency_key="k")

    keys = sorted(key.decode() for key in client.scan_iter(match=f"{prefix}:*"))
    assert keys == [
        f"{prefix}:matches",
        f"{prefix}:{{m1}}:events",
        f"{prefix}:{{m1}}:idem",
        f"{prefix}:{{m1}}:meta",
    ]


def test_a_known_prev_hash_skips_the_head_read_and_a_wrong_one_is_refused(
    store: RedisEventStore,
) -> None:
    match_id = _new_match(store)
    head = store.read(match_id)[-1]
    with pytest.raises(VersionConflict):
        store.append(match_id, head.version, _events("Forged"), prev_hash="f" * 64)
    assert version(store, match_id) == head.version
    result = store.append(match_id, head.version, _events("Next"), prev_hash=head.hash)
    assert result.events[0].prev_hash == head.hash
    assert store.read(match_id)[-1] == result.events[0]


# -- batches -------------------------------------------------------------------------------


def test_a_batch_reads_and_appends_as_each_alone_would(store: RedisEventStore) -> None:
    """A worker's batch: every log read at once (with the meta it asks for), then every
    append sent at once; one that lost its race is refused alone, one whose match is gone
    too, and the others are stored as ``append`` would have stored them."""
    first, moved = _new_match(store), _new_match(store)
    read = store.read_many([Reading(first, 0, with_meta=True), Reading(moved, 1),
                            Reading("gone", 0, with_meta=True)])
    assert [len(each.events) for each in read] == [2, 1, 0]
    assert read[0].meta == {"variant": "gin"} and read[1].meta is None
    assert read[2].meta is None
    store.append(moved, 2, _events("Elsewhere"))
    results = store.append_many([Appending(first, 2, tuple(_events("Paid"))),
                                 Appending(moved, 2, tuple(_events("Late"))),
                                 Appending("gone", 0, tuple(_events("Lost")))])
    assert isinstance(results[0], AppendResult) and results[0].version == 3
    assert isinstance(results[1], VersionConflict) and isinstance(results[2], UnknownMatch)
    assert store.read(first)[-1] == results[0].events[0]
    assert [event.type for event in store.read(moved)] == ["E0", "E1", "Elsewhere"]


def test_a_batch_reads_the_snapshots_of_matches_in_many_slots(
        store: RedisEventStore, redis_backend: tuple[redis.Redis, str]) -> None:
    """A worker's batch of cold loads reads their snapshots at once, each where ``load``
    reads it (the match's own slot: on a cluster the batch spans nodes)."""
    snapshots = RedisSnapshots(redis_backend[0], store.key)
    ids = [_new_match(store) for _ in range(12)]
    for index, match_id in enumerate(ids[:8]):
        snapshots.save(match_id, f"record {index}".encode())
    batch = snapshots.load_many([*ids, "gone"])
    assert batch == [*(f"record {index}".encode() for index in range(8)), None, None, None,
                     None, None]
    assert batch[:12] == [snapshots.load(match_id) for match_id in ids]
    assert snapshots.load_many([]) == []


def test_a_batch_is_appended_once_by_a_server_that_forgot_its_scripts() -> None:
    """On a Redis of its own (forgetting a shared server's scripts would trouble the other
    tests): the appends a restarted Redis refused for want of the script are sent again,
    each stored once."""
    store = RedisEventStore(fakeredis.FakeRedis(), prefix="forgetful")
    first, second = _new_match(store), _new_match(store)
    store.client.script_flush()
    results = store.append_many([Appending(first, 2, tuple(_events("Paid"))),
                                 Appending(second, 2, tuple(_events("Paid")))])
    assert [result.version for result in results if isinstance(result, AppendResult)] == [3, 3]
    assert [len(store.read(match_id)) for match_id in (first, second)] == [3, 3]


# -- the entries' form in Redis -----------------------------------------------------------


def _raw_entries(client: redis.Redis, key: str) -> list[dict[str, str]]:
    def text(value: Any) -> str:
        return value.decode() if isinstance(value, bytes) else value
    return [{text(k): text(v) for k, v in fields.items()} for _, fields in client.xrange(key)]


def test_an_entry_keeps_no_previous_hash_and_every_entry_the_same_fields(
    store: RedisEventStore, redis_backend: tuple[redis.Redis, str]
) -> None:
    """The compact form: what the chain implies is left out, and a constant field set
    lets Redis keep the names once per stream node."""
    client, _ = redis_backend
    store.create("m1", _events("A"), {})
    store.append("m1", 1, _events("B"), command_id="seat0:1", command={"seat": 0})
    first, second = _raw_entries(client, store.events_key("m1"))
    assert list(first) == list(second) == ["type", "schema", "data", "ts", "hash", "cmd",
                                           "command"]
    assert (first["cmd"], first["command"]) == ("", "")
    assert (second["cmd"], second["command"]) == ("seat0:1", '{"seat":0}')
    events = store.read("m1")
    assert [int(entry["ts"]) for entry in (first, second)] == [
        round(event.ts * 1000) for event in events]
    assert all(len(entry["hash"]) == 43 for entry in (first, second))
    assert events[1].hash == event_hash(2, "B", 1, events[1].data, "seat0:1", events[1].ts,
                                        events[0].hash, {"seat": 0})


def test_a_read_from_any_version_links_to_the_event_before_it(store: RedisEventStore) -> None:
    """The previous hash of the first event read is the hash of the entry before it,
    which the read fetches too and does not return."""
    store.create("m1", _events("A", "B"), {})
    store.append("m1", 2, _events("C", "D"))
    events = store.read("m1")
    for after in range(len(events) + 1):
        assert store.read("m1", after=after) == events[after:]
        assert store.read_many([Reading("m1", after)])[0].events == events[after:]
    assert store.read("m1", after=1, until=3) == events[1:3]
    assert store.read("m1", after=3, until=3) == []


def test_an_entry_the_hub_delivers_chains_from_what_the_process_knows_or_reads(
    store: RedisEventStore, redis_backend: tuple[redis.Redis, str]
) -> None:
    """A process that wrote or read the entry before decodes the next without a read; a
    process that never saw the match reads that one entry."""
    client, prefix = redis_backend
    store.create("m1", _events("A", "B"), {})
    written = store.append("m1", 2, _events("C")).events[0]
    stranger = RedisEventStore(client, prefix=prefix)
    for reader in (store, stranger):
        entry_id, fields = client.xrange(store.events_key("m1"), "3-0", "3-0")[0]
        assert reader.decode("m1", entry_id, fields) == written


def test_entries_written_in_the_first_form_still_read(
    store: RedisEventStore, redis_backend: tuple[redis.Redis, str]
) -> None:
    """A stream written before the compact form (every field spelled out, hashes in hex, the
    time a float's repr, ``prev`` on every entry) reads as it did, and a compact entry
    appended after it links to its last hash."""
    client, _ = redis_backend
    key, meta_key = store.events_key("old"), store.events_key("old").replace(":events", ":meta")
    previous, old = GENESIS_HASH, []
    for version, (ts, command_id, command) in enumerate(
            [(1_600_000_000.1234567, None, None), (1_600_000_001.5, "seat1:k", {"seat": 1})],
            start=1):
        data = {"n": version}
        digest = event_hash(version, f"T{version}", 1, data, command_id, ts, previous, command)
        old.append(StoredEvent(version, f"T{version}", 1, data, command_id, ts, previous,
                               digest, command))
        fields = {"type": f"T{version}", "schema": "1", "data": json.dumps(data),
                  "ts": repr(ts), "prev": previous, "hash": digest}
        if command_id is not None:
            fields |= {"cmd": command_id, "command": json.dumps(command)}
        client.xadd(key, fields, id=f"{version}-0")
        previous = digest
    client.hset(meta_key, mapping={"_version": "2", "_last_hash": previous})

    assert store.read("old") == old
    assert store.read("old", after=1) == old[1:]
    entry_id, fields = client.xrange(key, "2-0", "2-0")[0]
    assert store.decode("old", entry_id, fields) == old[1]
    appended = store.append("old", 2, _events("New")).events[0]
    assert appended.prev_hash == old[1].hash
    assert store.read("old") == [*old, appended]
    assert store.read("old", after=2) == [appended]


def test_an_empty_command_id_is_refused(store: RedisEventStore) -> None:
    """An empty command id would read back as none (the compact form stores none as
    empty) and the hash would no longer match: it is refused before anything is written."""
    with pytest.raises(ValueError, match="command id"):
        store.create("m1", _events("A"), {}, command_id="")
    assert store.read("m1") == []
