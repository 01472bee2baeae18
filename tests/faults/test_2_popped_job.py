"""A worker that dies after its dequeue took a job id off the queue: the job's hash says
"queued" but no list holds its id any more. A worker started afterwards must recover
every match within RECOVERY_S. And a worker killed while idle in its blocking dequeue is
replaced by a new one without losing the hands that end in between."""

from __future__ import annotations

from collections import Counter

from tests.faults.conftest import Stack, text
from tests.faults.tables import (
    Players,
    expect_recovery,
    specs,
)

MATCHES = 12


def pop_job_ids(stack: Stack) -> dict[str, str]:
    """LPOP every job id off RQ's queue lists, as a dequeue does; {job id: its status}."""
    client = stack.rq()
    try:
        popped = []
        for key in client.scan_iter(match="rq:queue:*"):
            if client.type(key) != b"list":
                continue
            while isinstance(job_id := client.lpop(key), (bytes, str)):
                popped.append(text(job_id))
        return {job_id: text(client.hget(f"rq:job:{job_id}", "status") or b"missing")
                for job_id in popped}
    finally:
        client.close()


def test_jobs_popped_by_a_worker_that_then_died_are_redriven(stack: Stack) -> None:
    players = Players(stack)
    tables = players.create_all(specs(MATCHES, offset=3))
    for table in tables:
        players.end_first_hand(table)
    assert all(table.state == "waiting" for table in tables)

    popped = pop_job_ids(stack)
    print(f"\n[faults] popped {len(popped)} job ids, their hashes: {Counter(popped.values())}")
    assert popped, "no job id was queued: did the API enqueue anything?"

    since = stack.worker.start()
    expect_recovery(stack, players, tables, since, "popped job ids")
