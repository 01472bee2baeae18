"""Lost wake-ups and queues: hands (and matches) end while no worker runs, then the
wake-up tokens and RQ's keys go (a push that never reached Redis, a flushed queue). A
worker started afterwards must score every hand and complete every match that is due
within RECOVERY_S."""

from __future__ import annotations

import pytest

from tests.faults.conftest import Stack
from tests.faults.tables import (
    Players,
    expect_recovery,
    specs,
)

MATCHES = 15


def delete_keys(stack: Stack, pattern: str, lists_only: bool) -> list[str]:
    client = stack.rq()
    try:
        keys = [k for k in client.scan_iter(match=pattern)
                if not lists_only or client.type(k) == b"list"]
        if keys:
            client.delete(*keys)
        return sorted(k.decode() for k in keys)
    finally:
        client.close()


@pytest.mark.parametrize("lost", ["queue_lists", "all_rq_keys"])
def test_a_worker_started_later_redrives_lost_enqueues(stack: Stack, lost: str) -> None:
    players = Players(stack)
    tables = players.create_all(specs(MATCHES))
    for table in tables:
        players.end_first_hand(table)
    assert all(table.state == "waiting" for table in tables)

    deleted = delete_keys(stack, f"{stack.prefix}:work:wake", lists_only=True)
    if lost == "queue_lists":  # the job hashes stay "queued", no list holds their ids
        deleted += delete_keys(stack, "rq:queue:*", lists_only=True)
    else:  # a FLUSH of RQ's keys only: jobs, queues, registries
        deleted += delete_keys(stack, "rq:*", lists_only=False)
    print(f"\n[faults] {lost}: deleted {len(deleted)} keys, e.g. {deleted[:4]}")

    since = stack.worker.start()
    expect_recovery(stack, players, tables, since, f"lost enqueue ({lost})")
