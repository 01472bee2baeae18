"""The repository and the command runner are generic over the aggregate
(``domain.aggregate``): a second kind of aggregate, here a tally, is stored, loaded,
written, retried and followed up by the same classes as a match, in a stream of its own
kind with its own creation index."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import fakeredis
import pytest

from domain.aggregate import Recorded
from domain.chain import GENESIS_HASH
from domain.events import Event
from service.adapters.store import RedisEventStore
from service.codec import to_store
from service.usecases.commands import Decision
from service.usecases.errors import NotFound
from service.usecases.repository import AggregateKind, Repository
from service.usecases.runner import CommandRunner, Idempotency
from service.usecases.subscribers import Appended, Subscribers


@dataclass(frozen=True)
class Due:
    kind: str = "tallies"

    def due(self, now: float) -> float:
        return now


@dataclass(frozen=True)
class TallyAhead:
    before: Tally
    events: tuple[Event, ...]

    def owed(self, at: float) -> tuple[Due, ...]:
        return (Due(),) if (self.before.total + len(self.events)) % 2 else ()


@dataclass(frozen=True)
class Tally:
    """Counts its ``Counted`` events; owes work while the count is odd."""

    total: int = 0
    version: int = 0
    head_hash: str = GENESIS_HASH

    def apply(self, records: Sequence[Recorded]) -> Tally:
        if not records:
            return self
        return Tally(self.total + len(records), records[-1].version, records[-1].hash)

    def ahead(self, events: Sequence[Event]) -> TallyAhead:
        return TallyAhead(self, tuple(events))

    def stored(self, ahead: TallyAhead, records: Sequence[Recorded]) -> Tally:
        return self.apply(records)

    @property
    def is_over(self) -> bool:
        return self.total >= 10

    def owed(self) -> tuple[Due, ...]:
        return (Due(),) if self.total % 2 else ()


@dataclass(frozen=True)
class Count:
    times: int
    retry_on_conflict: bool = True

    def decide(self, tally: Tally, context: Any) -> Decision | None:
        if tally.is_over:
            return None
        return Decision([Event("Counted", {"by": context})] * self.times, "count")


class FollowUp:
    def __init__(self) -> None:
        self.expected: list[tuple[str, tuple[Due, ...]]] = []
        self.owing: list[tuple[str, Tally]] = []

    def expect(self, tally_id: str, ahead: TallyAhead) -> None:
        self.expected.append((tally_id, ahead.owed(0.0)))

    def after(self, tally_id: str, tally: Tally) -> None:
        self.owing.append((tally_id, tally))


TALLIES: AggregateKind[Tally] = AggregateKind(
    "tally", lambda meta: Tally(), lambda meta: meta["owner"],
    lambda tally_id: NotFound("tally_not_found", f"no tally {tally_id!r}"))


@pytest.fixture
def wired() -> tuple[RedisEventStore, CommandRunner[Tally], list[Appended[Any]], FollowUp]:
    client = fakeredis.FakeRedis()
    store = RedisEventStore(client, "agg", index="tallies")
    heard: list[Appended[Any]] = []
    follow_up = FollowUp()
    runner = CommandRunner(Repository(store, kind=TALLIES), Subscribers([heard.append]),
                           follow_up)
    store.create("t1", to_store([Event("Counted")]), {"aggregate": "tally", "owner": "ann"})
    return store, runner, heard, follow_up


def test_a_second_kind_joins_its_own_index(wired):
    store, runner, *_ = wired
    assert store.match_ids() == ["t1"]
    assert store.client.zrange("agg:tallies", 0, -1) == [b"t1"]
    assert not store.client.exists("agg:matches")


def test_the_runner_writes_it_and_the_follow_up_hears_what_it_owes(wired):
    store, runner, heard, follow_up = wired
    assert runner.repository.get("t1").total == 1
    outcome = runner.run("t1", Count(2))
    assert outcome.aggregate.total == 3 and outcome.aggregate.version == 3
    assert [event.data for event in outcome.appended] == [{"by": "ann"}] * 2
    assert heard[-1].aggregate == outcome.aggregate
    assert follow_up.expected == [("t1", (Due(),))]
    assert follow_up.owing == [("t1", outcome.aggregate)]
    assert outcome.aggregate.owed() == (Due(),)


def test_an_idempotent_retry_appends_nothing_more(wired):
    store, runner, *_ = wired
    key = Idempotency("k1", "fp")
    first = runner.run("t1", Count(1), idempotency=key)
    again = runner.run("t1", Count(1), idempotency=key)
    assert again.replayed == first.aggregate.version == 2
    assert runner.repository.get("t1").total == 2


def test_a_command_with_nothing_to_do_appends_nothing(wired):
    store, runner, *_ = wired
    runner.run("t1", Count(9))
    assert runner.run("t1", Count(1)).appended == ()


def test_an_unknown_one_is_its_own_kind_of_not_found(wired):
    store, runner, *_ = wired
    with pytest.raises(NotFound) as missing:
        runner.run("t2", Count(1))
    assert missing.value.code == "tally_not_found"
