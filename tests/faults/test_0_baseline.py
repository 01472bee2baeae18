"""The harness itself: with a worker running and nothing killed, every ended hand is
scored and every match that is due completes within RECOVERY_S (a failure here is the
harness's or a plain bug, not a lost job)."""

from __future__ import annotations

import time

from tests.faults.conftest import Stack
from tests.faults.tables import (
    Players,
    expect_recovery,
    specs,
)

MATCHES = 9


def test_hands_end_and_are_scored_with_a_live_worker(stack: Stack) -> None:
    stack.worker.start()
    ready = stack.worker.wait_registered()
    print(f"\n[faults] the worker registered {ready:.2f}s after its spawn")
    players = Players(stack)
    tables = players.create_all(specs(MATCHES))
    for table in tables:
        players.end_first_hand(table)
    since = time.monotonic()
    expect_recovery(stack, players, tables, since, "baseline")
