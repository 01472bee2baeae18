"""``kill -9`` of Redis under load, and a restart on the same port and directory (AOF
reload). Meanwhile the API answers 503 ``store_unavailable`` (never a 500) and the worker
process lives on (same pid); afterwards every acknowledged action is in its match's log
and every match recovers within RECOVERY_S.

Two clients: one keeps creating matches and playing them; the other starts, at the kill,
the first hands of matches created beforehand, so actions are sent while Redis is down
(retried with their Idempotency-Key until they are acknowledged)."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from tests.faults.conftest import HEALTH_PATH, Stack
from tests.faults.tables import (
    Players,
    check,
    diagnose,
    late_recoveries,
    run_client,
    specs,
    summary,
    wait_recovered,
)

MATCHES = 20
RESERVE = 8
DOWN_S = 2.5


def test_redis_killed_under_load_and_restarted(stack: Stack) -> None:
    stack.worker.start()
    stack.worker.wait_registered()
    worker_pid = stack.worker.pid
    players = Players(stack, max_hands=2, retry_for=30.0)
    reserve = Players(stack, retry_for=30.0)
    held = reserve.create_all(specs(RESERVE, offset=4))
    thread, stop, errors = run_client(
        players, lambda stop: players.keep_playing(stop, MATCHES, offset=2, create_every=0.2),
        "faults-client")
    threads = [thread]

    def end_held_hands(stop: threading.Event) -> None:
        for table in held:
            reserve.end_first_hand(table)

    probes: list[tuple[str, int, str | None, float]] = []
    try:
        time.sleep(2.0)
        assert players.tables, "no match was created before the kill"
        stack.redis.kill9()
        killed = time.monotonic()
        reserve_thread, _, reserve_errors = run_client(reserve, end_held_hands,
                                                       "faults-reserve")
        threads.append(reserve_thread)
        probe_table = players.tables[0]
        while time.monotonic() - killed < DOWN_S:  # what does the API say meanwhile?
            for kind, path, token in (
                    ("health", HEALTH_PATH, None),
                    ("events", f"/v1/matches/{probe_table.id}/events", stack.admin)):
                response = players.send(f"probe-{kind}", "GET", path, token=token)
                if response is not None:
                    probes.append((kind, response.status, response.code, response.seconds))
            time.sleep(0.2)
        load_s = stack.redis.start()
        restarted = time.monotonic()
        time.sleep(2.0)
    finally:
        stop.set()
        for each in threads:
            each.join(timeout=60)
    assert not any(each.is_alive() for each in threads), "a client thread did not stop"
    assert not errors and not reserve_errors, errors + reserve_errors
    stopped = time.monotonic()

    answers = players.answers + reserve.answers
    during = Counter((kind, status) for sent, kind, status in answers
                     if killed <= sent < restarted and not kind.startswith("probe"))
    outage = Counter((kind, status, code) for kind, status, code, _ in probes)
    slowest = max((seconds for *_, seconds in probes), default=0.0)
    print(f"\n[faults] Redis down {restarted - killed:.2f}s (reload {load_s:.2f}s); probes "
          f"meanwhile: {dict(outage)}, slowest {slowest:.2f}s; the clients' requests sent "
          f"meanwhile: {dict(during)}; all answers: {dict(players.statuses + reserve.statuses)}")

    failures = []
    if not (stack.worker.alive and stack.worker.pid == worker_pid):
        failures.append(f"the worker (pid {worker_pid}) did not survive the Redis restart; "
                        f"its log ends:\n{stack.worker.tail(3)}")
        stack.worker.kill9()
        stack.worker.start()  # so that the rest is still checked
    unexpected = players.unexpected + reserve.unexpected
    if unexpected:
        failures.append(f"unexpected answers: {unexpected[:10]}")
    if not any(status == 503 and code == "store_unavailable" for _, status, code, _ in probes):
        failures.append(f"no 503 store_unavailable while Redis was down: {outage}")
    if not all(status == 503 for _, status, _, seconds in probes if seconds < DOWN_S / 2):
        failures.append(f"quick answers other than 503 while Redis was down: {outage}")

    tables = players.tables + reserve.tables
    times, pending = wait_recovered(players, tables, stopped)
    latest = max(times.values(), default=0.0) + stopped - restarted
    line = summary(f"Redis kill -9: {len(tables)} matches, "
                   f"{sum(len(t.ended) for t in tables)} hands ended, from the clients' "
                   f"stop (the last {latest:.2f}s after the restart)", times, pending)
    if pending:
        failures.append(f"{line}\n{diagnose(stack, pending)}\n"
                        f"{late_recoveries(players, pending, stopped)}")
    try:
        check(players, tables)
    except AssertionError as exc:
        failures.append(str(exc))
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)
