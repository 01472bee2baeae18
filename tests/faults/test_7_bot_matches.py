"""All-bot matches in real mode: the workers play every bot's turn as owed work, so a
worker ``kill -9`` mid-move, or a Redis restart, loses nothing: another worker (or the
restarted one, once Redis is back) claims the match when its lease ends and the bots play
on. Afterwards every match is complete and its exported log verifies offline: versions
1..n with no gap, every bot's move exactly once (one command id, one group of events),
each legal where it stands."""

from __future__ import annotations

import os
import random
import sys
import time
from itertools import groupby
from typing import Any

from domain.audit import parse_ndjson, verify
from domain.variants import VARIANTS
from tests.faults.conftest import ROOT, WORKER_COMMAND, Proc, Stack, _env, wait_until

MATCHES = 6
DONE_S = 120.0
"""Every match completes within this (generous: two cores, bots playing hundreds of moves
a match through a real Redis)."""
LEVELS = ("random", "basic", "expert")


def create_all_bot(stack: Stack, count: int, think_ms: int = 0) -> list[str]:
    """``count`` three-bot matches, rummy and rami by turns, one round each."""
    ids = []
    for number in range(count):
        answer = stack.http.request("POST", "/v1/matches", token=stack.admin, body={
            "variant": ("rummy", "rami")[number % 2], "options": {"rounds": 1},
            "players": [{"bot": level, "think_ms": think_ms} for level in LEVELS]})
        assert answer.status == 201, answer.body
        ids.append(answer.body["id"])
    return ids


def phase(stack: Stack, match_id: str) -> str:
    answer = stack.http.request("GET", f"/v1/matches/{match_id}", token=stack.admin)
    return str(answer.body["phase"]) if answer.status == 200 else "unknown"


def wait_complete(stack: Stack, ids: list[str], since: float) -> dict[str, float]:
    """Seconds from ``since`` until each match was seen complete (polled)."""
    seen: dict[str, float] = {}

    def all_done() -> bool:
        for match_id in ids:
            if match_id not in seen and phase(stack, match_id) == "complete":
                seen[match_id] = time.monotonic() - since
        return len(seen) == len(ids)

    wait_until(all_done, DONE_S, f"{len(ids)} all-bot matches to complete", interval=0.2)
    return seen


def check_logs(stack: Stack, ids: list[str]) -> int:
    """Each log verifies and has each bot move once; how many bot moves there were."""
    moves = 0
    for match_id in ids:
        answer = stack.http.request("GET", f"/v1/matches/{match_id}/export",
                                    token=stack.admin)
        records = parse_ndjson(str(answer.body).splitlines())
        report = verify(records, VARIANTS)
        assert report.ok, report.to_dict()
        assert [r["version"] for r in records] == list(range(1, len(records) + 1))
        commands = [command for command, _ in groupby(r["command_id"] for r in records)]
        assert len(commands) == len(set(commands)), "a command appended twice"
        bot_moves = [c for c in commands if ":bot:" in (c or "")]
        assert all(c.split(":")[3] == str(r["version"] - 1) for c, r in
                   ((r["command_id"], r) for r in records
                    if r["command"] and r["command"].get("bot")))
        moves += len(bot_moves)
    return moves


def lease_held(stack: Stack) -> bool:
    """A worker holds a bot's turn now (its score in the bots' set is a lease ahead)."""
    client = stack.rq()
    try:
        return bool(client.zcount(f"{stack.prefix}:work:bots", f"({time.time()}", "+inf"))
    finally:
        client.close()


def second_worker(stack: Stack) -> Proc:
    argv = [part.format(python=sys.executable, url=stack.redis.url, prefix=stack.prefix)
            for part in WORKER_COMMAND]
    return Proc("worker-b", argv, _env(), ROOT, stack.workdir / "worker-b.log")


def report(label: str, done: dict[str, float], moves: int, **extra: Any) -> None:
    times = sorted(done.values())
    more = "".join(f", {key} {value}" for key, value in extra.items())
    print(f"\n[faults] {label}: {len(times)} all-bot matches, {moves} bot moves; complete "
          f"after {times[0]:.1f}-{times[-1]:.1f}s{more}", flush=True)


def test_a_worker_killed_mid_move_leaves_the_bots_to_another(stack: Stack) -> None:
    seed = int(os.environ.get("RUMMY_FAULTS_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    other = second_worker(stack)
    stack.worker.start()
    other.start()
    try:
        stack.worker.wait_registered()
        began = time.monotonic()
        ids = create_all_bot(stack, MATCHES, think_ms=20)
        kills = 0
        for _ in range(3):  # the first worker, killed mid-move, then started again
            time.sleep(rng.uniform(0.2, 0.8))
            mid_move = wait_until(lambda: lease_held(stack), 10, "a bot's turn claimed",
                                  interval=0.002)
            stack.worker.kill9()
            kills += bool(mid_move)
            time.sleep(rng.uniform(0.1, 0.5))
            stack.worker.start()
        stack.worker.kill9()  # and for good: the other worker finishes every match
        done = wait_complete(stack, ids, began)
        other.check_running()
    finally:
        other.kill()
    report(f"seed {seed}, worker kill -9 x3 ({kills} mid-move)", done,
           check_logs(stack, ids))


def test_the_bots_play_on_after_a_redis_restart(stack: Stack) -> None:
    stack.worker.start()
    stack.worker.wait_registered()
    worker_pid = stack.worker.pid
    began = time.monotonic()
    ids = create_all_bot(stack, MATCHES, think_ms=20)
    wait_until(lambda: lease_held(stack), 10, "a bot's turn claimed", interval=0.002)
    stack.redis.kill9()
    time.sleep(1.5)
    load_s = stack.redis.start()
    done = wait_complete(stack, ids, began)
    assert stack.worker.pid == worker_pid  # the same worker rode it out
    stack.worker.proc.check_running()
    report("redis kill -9 and restart", done, check_logs(stack, ids),
           reload=f"{load_s:.2f}s")
