"""A master of a Redis Cluster is killed (``kill -9``) while matches are appended to, and
its replica takes over. With ``RUMMY_REPLICA_ACKS=1`` no append the store acknowledged
is lost: each was on the replica before it was answered (tests/faults/failover.py).
Without it some may be lost, or none: bench/failover.py measures it, nothing asserts it."""

from __future__ import annotations

from pathlib import Path

from tests.cluster import missing
from tests.conftest import cannot_run
from tests.faults.failover import run


def test_no_acknowledged_append_is_lost_when_replicas_confirm_them(tmp_path: Path) -> None:
    why = missing()
    if why is not None:
        cannot_run("REDIS-CLUSTER", why)
    outcome = run(tmp_path, replica_acks=1)
    print(f"acknowledged {outcome.acknowledged}, lost {outcome.lost}, refused "
          f"{outcome.refused}, promoted in {outcome.promoted_s:.1f} s")
    assert outcome.acknowledged > 0
    assert outcome.lost == 0
