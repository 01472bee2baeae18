"""A worker that dies right after it claimed due steps: its claims hold them out of every
other worker's reach until their lease ends. A worker started afterwards must recover
every match within RECOVERY_S. And a worker killed while idle, blocked in its waits, is
replaced by a new one without losing the hands that end in between."""

from __future__ import annotations

import time

from domain.match import StepDue
from service.adapters.work import WorkIndex
from service.usecases.obligations import KINDS
from tests.faults.conftest import Stack
from tests.faults.tables import (
    Players,
    expect_recovery,
    specs,
)
from workers.reconciler import LEASE_S

MATCHES = 12


def claim_everything(stack: Stack) -> list[str]:
    """Claim every due step with the workers' own claim, as a worker would just before
    it was killed."""
    client = stack.rq()
    try:
        return WorkIndex(client, stack.prefix, KINDS).claim(StepDue.kind, LEASE_S,
                                                         limit=1000)[1]
    finally:
        client.close()


def test_steps_claimed_by_a_worker_that_then_died_are_done(stack: Stack) -> None:
    players = Players(stack)
    tables = players.create_all(specs(MATCHES, offset=3))
    for table in tables:
        players.end_first_hand(table)
    assert all(table.state == "waiting" for table in tables)

    claimed = claim_everything(stack)
    print(f"\n[faults] claimed {len(claimed)} matches' steps, then the claimer died")
    assert {table.id for table in tables} <= set(claimed), "a hand end was not marked due"

    since = stack.worker.start()
    expect_recovery(stack, players, tables, since, "claimed by a dead worker")


def test_a_worker_killed_idle_in_its_waits_is_replaced(stack: Stack) -> None:
    players = Players(stack)
    tables = players.create_all(specs(MATCHES, offset=5))
    for table in tables:
        players.end_first_hand(table, but=1)  # each hand is one action from its end

    stack.worker.start()
    ready = stack.worker.wait_registered()
    blocked = stack.worker.wait_idle_blocked()
    print(f"\n[faults] worker registered after {ready:.2f}s; Redis shows a blocked client: "
          f"{blocked}")
    stack.worker.kill9()
    killed = time.monotonic()
    for table in tables:  # at once: Redis may not yet have dropped the dead connection
        players.end_first_hand(table)
    print(f"[faults] {len(tables)} hands ended {time.monotonic() - killed:.2f}s after the kill")
    assert all(table.state == "waiting" for table in tables)

    since = stack.worker.start()
    expect_recovery(stack, players, tables, since, "idle worker killed")
