"""Scripts called through slot moves (service/adapters/slot_moves.py): a script refused
because its slot is half moved is called again after a pause, for a bounded time; any
other error is the caller's at once. The real thing, a reshard under play, is
tests/faults/test_9_cluster_reshard.py."""

from __future__ import annotations

import fakeredis
import pytest
from redis.exceptions import ClusterError, ResponseError, TryAgainError

from service.adapters.slot_moves import SlotMoveScript, through_slot_moves


class Slot:
    """A slot refused ``refusals`` times (the error given), then the script's reply; the
    clock moves only when the caller pauses."""

    def __init__(self, refusals: int, error: Exception) -> None:
        self.refusals = refusals
        self.error = error
        self.calls = 0
        self.now = 0.0
        self.pauses: list[float] = []

    def script(self) -> str:
        self.calls += 1
        if self.calls <= self.refusals:
            raise self.error
        return "appended"

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds

    def run(self, wait_s: float = 2.0) -> str:
        return through_slot_moves(self.script, wait_s, self.sleep, lambda: self.now)


@pytest.mark.parametrize("error", [TryAgainError("TRYAGAIN"), ClusterError("TTL exhausted.")])
def test_a_script_refused_while_its_slot_moves_runs_once_the_move_is_done(error):
    slot = Slot(refusals=3, error=error)
    assert slot.run() == "appended"
    assert slot.calls == 4 and slot.pauses == [0.05, 0.1, 0.2]


def test_a_slot_that_stays_half_moved_gives_up_after_the_wait():
    slot = Slot(refusals=100, error=TryAgainError("TRYAGAIN"))
    with pytest.raises(TryAgainError):
        slot.run(wait_s=1.0)
    assert sum(slot.pauses) <= 1.0 and slot.calls == len(slot.pauses) + 1
    assert slot.pauses == [0.05, 0.1, 0.2, 0.4]


def test_any_other_error_is_raised_at_once():
    slot = Slot(refusals=1, error=ResponseError("WRONGTYPE"))
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        slot.run()
    assert slot.calls == 1 and slot.pauses == []


def test_a_registered_script_is_called_as_redis_pys_alone_or_pipelined():
    client = fakeredis.FakeRedis()
    incr = SlotMoveScript(client, "return redis.call('INCRBY', KEYS[1], ARGV[1])")
    assert incr(keys=["count"], args=[2]) == 2
    pipe = client.pipeline(transaction=False)
    incr(keys=["count"], args=[3], client=pipe)
    assert pipe.execute() == [5]
