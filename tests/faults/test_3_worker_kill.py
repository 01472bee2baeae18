"""``kill -9`` of the worker at random moments (aimed at moments it runs a job) while a
client keeps ending hands; every match must recover within RECOVERY_S of the worker's
last restart."""

from __future__ import annotations

import os
import random
import time

from tests.faults.conftest import Stack
from tests.faults.tables import (
    Players,
    expect_recovery,
    run_client,
)

MATCHES = 20
KILLS = 6


def busy(stack: Stack, timeout: float) -> bool:
    """Wait up to ``timeout`` for the worker to be mid-step (a step claimed in the work
    index: its score is a lease in the future) or in an RQ job (the worker's state
    ``busy``); True if it was."""
    client = stack.rq()
    steps = f"{stack.prefix}:work:steps"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if client.zcount(steps, f"({time.time()}", "+inf"):
                return True
            if any(r.get("state") == "busy" for r in stack.worker.registrations()):
                return True
            time.sleep(0.003)
        return False
    finally:
        client.close()


def test_worker_killed_at_random_moments_mid_job(stack: Stack) -> None:
    seed = int(os.environ.get("RUMMY_FAULTS_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    players = Players(stack, max_hands=3)
    stack.worker.start()
    stack.worker.wait_registered()
    thread, stop, errors = run_client(
        players, lambda stop: players.keep_playing(stop, MATCHES, offset=1, create_every=0.25),
        "faults-client")
    try:
        mid_job = []
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.0, 0.4))
            mid_job.append(busy(stack, rng.uniform(0.3, 1.5)))
            stack.worker.kill9()
            time.sleep(rng.uniform(0.05, 0.5))
            if len(mid_job) < KILLS:
                stack.worker.start()
                stack.worker.wait_registered()
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive(), "the client thread did not stop"
    assert not errors, errors
    ended = sum(len(t.ended) for t in players.tables)
    print(f"\n[faults] seed {seed}: {KILLS} kills, {sum(mid_job)} seen mid-job; "
          f"{len(players.tables)} matches, {ended} hands ended")

    since = stack.worker.start()  # the last restart
    expect_recovery(stack, players, players.tables, since, f"worker kill -9 x{KILLS}")
