"""Snapshots of a match's fold: a cold load from one equals the fold of every event."""

from __future__ import annotations

import random
from dataclasses import replace

import fakeredis
import pytest

from bench.replay import ADMIN, play
from domain.snapshots import STATE_FINGERPRINT, match_fingerprint
from service.adapters.snapshots import RedisSnapshots
from service.api.app import create_app
from service.config import Settings
from service.usecases.errors import NotFound
from service.usecases.repository import Repository
from service.usecases.snapshots import Snapshots, SnapshotWriter, freeze, thaw
from service.usecases.subscribers import Appended


def test_the_state_shape_is_recorded_with_its_version() -> None:
    """A changed state dataclass needs a new ``STATE_VERSION`` and its fingerprint."""
    assert match_fingerprint() == STATE_FINGERPRINT, (
        "the match state's shape changed: bump domain.snapshots.STATE_VERSION and record "
        f"STATE_FINGERPRINT = {match_fingerprint()!r}")


@pytest.fixture(scope="module")
def played() -> tuple[fakeredis.FakeRedis, object, dict[str, str]]:
    client = fakeredis.FakeRedis()
    settings = Settings(redis_url="redis://test", admin_token=ADMIN, snapshot_every=0)
    app = create_app(settings, client=client, jobs_inline=True)
    matches = {variant: play(app.test_client(), variant, 230, random.Random(variant))
               for variant in ("gin", "gem", "rummy", "rami")}
    return client, app.extensions["rummy"].repository.store, matches


@pytest.mark.parametrize("variant", ["gin", "gem", "rummy", "rami"])
@pytest.mark.parametrize("every", [1, 7, 50, 100])
def test_a_cold_load_from_a_snapshot_equals_the_whole_fold(played, variant, every) -> None:
    client, store, matches = played
    match_id = matches[variant]
    snapshots = Snapshots(RedisSnapshots(client, store.key), every)
    plain = Repository(store)
    whole = plain.get(match_id)
    writer = SnapshotWriter(snapshots)
    for version in (every, 2 * every + 3, whole.version - 1):
        at = plain.at(match_id, version)
        writer(Appended(match_id, tuple(store.read(match_id, version - 1, version)), at))
        assert client.get(store.key(match_id, "snapshot")) is not None or version % every
        cold = Repository(store, snapshots=snapshots)
        assert cold.get(match_id) == whole
        assert cold.stats.events <= whole.version - version + 1 or version % every


def test_a_snapshot_of_other_code_or_beyond_the_stream_is_not_trusted(played) -> None:
    client, store, matches = played
    match_id = matches["gin"]
    whole = Repository(store).get(match_id)
    blank = Repository(store)._empty(match_id)
    record = freeze(whole)
    assert thaw(record, blank) == whole
    assert thaw(b"1 0 " + record.split(b" ", 2)[2], blank) is None
    assert thaw(b"garbage", blank) is None
    beyond = Repository(store).at(match_id, whole.version)
    client.set(store.key(match_id, "snapshot"), freeze(replace(beyond, version=whole.version + 5)))
    snapshots = Snapshots(RedisSnapshots(client, store.key), 100)
    assert Repository(store, snapshots=snapshots).get(match_id) == whole


def test_a_record_that_names_anything_but_the_domain_s_classes_is_refused() -> None:
    """A forged snapshot cannot run code in the server: the record is refused (and the
    match is folded from its events)."""
    import os
    import pickle

    from domain.match import Match
    from domain.snapshots import STATE_VERSION
    from domain.variants import VARIANTS
    from service.usecases.snapshots import SNAPSHOT_SCHEMA, thaw

    class Forged:
        def __reduce__(self):
            return (os.system, ("true",))

    header = f"{SNAPSHOT_SCHEMA} {STATE_VERSION} 5\n".encode()
    assert thaw(header + pickle.dumps((Forged(),)), Match.new(VARIANTS["gin"])) is None


@pytest.fixture
def unsnapshotted(played):
    """The played matches, without the snapshots other tests leave behind."""
    client, store, matches = played
    keys = [store.key(match_id, "snapshot") for match_id in matches.values()]
    client.delete(*keys)
    yield played
    client.delete(*keys)


def test_a_batch_of_cold_loads_starts_each_from_its_snapshot(unsnapshotted, monkeypatch) -> None:
    """A worker's batch (``get_many``) reads the snapshots first, then each log from its
    snapshot's version only: what it folds equals the whole fold, and no log is read
    alone."""
    client, store, matches = unsnapshotted
    snapshots = Snapshots(RedisSnapshots(client, store.key), 100)
    plain = Repository(store)
    for variant, version in (("gin", 100), ("rummy", 200)):
        snapshots.save(matches[variant], plain.at(matches[variant], version))
    ids = [matches["gin"], matches["rummy"], matches["gem"], "no-such-match"]
    cold = Repository(store, snapshots=snapshots)
    for alone in ("read", "meta"):
        monkeypatch.setattr(store, alone, None)
    batch = cold.get_many(ids)
    monkeypatch.undo()
    whole = {match_id: plain.get(match_id) for match_id in ids[:3]}
    assert {match_id: batch[match_id] for match_id in ids[:3]} == whole
    assert cold.stats.events == sum((whole[matches["gin"]].version - 99,
                                     whole[matches["rummy"]].version - 199,
                                     whole[matches["gem"]].version))
    assert isinstance(batch["no-such-match"], NotFound)
    assert client.get(store.key(matches["gem"], "snapshot")) is not None  # its long fold owed one


@pytest.mark.parametrize("untrusted", ["beyond the stream", "another stream", "other code",
                                       "before the stream"])
def test_a_batch_does_not_trust_a_snapshot_the_stream_does_not_vouch_for(
        unsnapshotted, untrusted) -> None:
    client, store, matches = unsnapshotted
    match_id = matches["rummy"]
    whole = Repository(store).get(match_id)
    at = Repository(store).at(match_id, 150)
    record = {"beyond the stream": freeze(replace(whole, version=whole.version + 5)),
              "another stream": freeze(replace(at, head_hash="0" * 64)),
              "other code": b"1 0 " + freeze(at).split(b" ", 2)[2],
              "before the stream": freeze(at).replace(b" 150\n", b" -3\n", 1)}[untrusted]
    assert record.partition(b"\n")[0] != freeze(at).partition(b"\n")[0] or \
        untrusted == "another stream"
    client.set(store.key(match_id, "snapshot"), record)
    snapshots = Snapshots(RedisSnapshots(client, store.key), 100)
    assert Repository(store, snapshots=snapshots).get_many([match_id])[match_id] == whole
