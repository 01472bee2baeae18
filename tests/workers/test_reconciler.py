"""The reconciler and the index rebuild, driven by the table of obligations: one claim
loop over the table's kinds pays each kind when it falls due and leaves the work index
holding what the match owes next; ``rummy reconcile --scan`` marks each kind at its due
time. Each kind's example match comes from ``tests.usecases.conftest.OWING``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import fakeredis
import pytest

from domain.match import StepDue
from service.bootstrap import Wiring
from service.ports import ADMIN
from service.usecases.obligations import KINDS, OBLIGATIONS
from service.usecases.reconciling import index_everything
from tests.usecases.conftest import OWING, Clock, knocked, owing, wired
from workers.reconciler import LEASE_S, Reconciler


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def queued(clock: Clock) -> Iterator[Wiring]:
    wiring = wired(clock, in_process=False)
    yield wiring
    wiring.close()


def due_now(wiring: Wiring, match_id: str, kind: str, now: float) -> list[object]:
    return [owed for owed in owing(wiring, kind, match_id)
            if owed.kind == kind and owed.due(now) <= now]


def indexed(wiring: Wiring, kind: str, match_id: str) -> float | None:
    return wiring.client.zscore(wiring.index.key(kind), match_id)


@pytest.mark.parametrize("kind", KINDS)
def test_the_reconciler_pays_each_kind_when_due_and_indexes_what_is_owed_next(queued, clock,
                                                                              kind):
    match_id = OWING[kind](queued, clock)
    assert due_now(queued, match_id, kind, clock.now)
    # once; a bot's turn may take more (it knocks: then a step), each claimed as it comes
    assert Reconciler(queued.index, queued.obligations, now=clock).drain() >= 1
    if OBLIGATIONS[kind].looks_again_s is not None:  # a tournament waits on its matches
        assert all(not owed.open for owed in due_now(queued, match_id, kind, clock.now))
        assert indexed(queued, kind, match_id) == clock.now + LEASE_S  # looked at again
        return
    assert due_now(queued, match_id, kind, clock.now) == []
    later = [owed.due(clock.now) for owed in owing(queued, kind, match_id)
             if owed.kind == kind]
    assert indexed(queued, kind, match_id) == (later[0] if later else None)


@pytest.mark.parametrize("kind", KINDS)
def test_a_scan_marks_each_kind_at_its_due_time(queued, clock, kind):
    match_id = OWING[kind](queued, clock)
    queued.client.delete(*(queued.index.key(each) for each in KINDS))  # never indexed
    counts = index_everything(queued.aggregates(), queued.index, clock)
    aggregate = OBLIGATIONS[kind].aggregate
    assert counts["scanned"][aggregate] == 1  # a tournament's example may have a table
    assert {each: counts[each] for each in KINDS} == {each: int(each == kind)
                                                      for each in KINDS}
    (owed,) = owing(queued, kind, match_id)
    assert indexed(queued, kind, match_id) == owed.due(clock.now)
    assert Reconciler(queued.index, queued.obligations, now=clock).drain() >= 1
    if OBLIGATIONS[kind].looks_again_s is None:
        assert due_now(queued, match_id, kind, clock.now) == []


def test_a_batch_of_hand_ends_is_scored_with_its_appends_together(queued, clock, monkeypatch):
    """A worker pays the steps it claimed together: the batch read at once, its appends
    in one round trip (no append alone), each hand scored and the next dealt, and the
    organiser told of each in order. A match another writer moved after the batch was
    read is decided again on its newer version."""
    ids = [knocked(queued, clock) for _ in range(3)]
    store = queued.repository.store
    loaded = queued.obligations.load(StepDue.kind, ids)
    queued.obligations.pay(ids[1], StepDue.kind)  # moved since the batch was read
    monkeypatch.setattr(store, "append", None)  # were any append sent alone, it would fail
    paid = queued.obligations.pay_many(StepDue.kind, loaded)
    monkeypatch.undo()
    assert [bool(paid[match_id].appended) for match_id in ids] == [True, False, True]
    for match_id in ids:
        match = queued.repository.get(match_id)
        assert match.state.hand_number == 2 and not match.owed()
    feed = [json.loads(message) for _, message in queued.streams.feed.after(ADMIN, "0-0")]
    scored = [message["match_id"] for message in feed if message["kind"] == "hand_scored"]
    assert scored == [ids[1], ids[0], ids[2]]


def test_a_worker_reads_only_the_new_events_of_the_matches_it_keeps(clock):
    """A worker's next look at a match it paid and still keeps folded reads only the events
    since; one its cache let go is read whole again, meta first (``cache_size``)."""
    server = fakeredis.FakeServer()
    api = wired(clock, in_process=False, server=server)
    worker = wired(clock, in_process=False, server=server, cache_size=2)
    ids = [knocked(api, clock) for _ in range(3)]
    assert Reconciler(worker.index, worker.obligations, now=clock).drain() == 3
    dropped = [match_id for match_id in ids if worker.repository.cached(match_id) is None]
    assert len(dropped) == 1
    read_before = worker.repository.stats.events
    loaded = worker.obligations.load(StepDue.kind, ids)
    assert all(loaded[match_id].state.hand_number == 2 for match_id in ids)
    assert worker.repository.stats.events - read_before == len(api.repository.stored(dropped[0]))
    api.close()
    worker.close()
