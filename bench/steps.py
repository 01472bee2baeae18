"""System steps per second of one worker process: a burst of hand ends, scored.

    python bench/steps.py [--url redis://127.0.0.1:6379/0] [--hands 200]

Plays ``--hands`` gin matches to a knock through the use cases in real mode (each knock
makes its scoring step due in the work index), then starts one worker process
(``python -m workers``) and waits until every hand is scored and the next one dealt.
Prints JSON:

- ``steps_per_second``: the worker's pace, between the first and the last ``HandScored``
  (as stamped by the worker's appends; its start-up left out);
- ``hands_per_second_from_outside``: hands over the time from the first ``HandScored``
  until this process saw the work index empty (every hand scored and the next dealt);
- ``seconds_from_worker_start``: from starting the process until then, start-up included;
- ``worker_cpu_ms_per_step``: the worker's CPU time (Linux ``/proc``) per step paid after
  the first poll that saw steps paid, until the index was empty: the rates above depend on
  what else the machine runs, this far less.

It polls the work index's size (one command each 10 ms, so the poll costs the worker
next to nothing), then reads every match to check it was dealt anew. Works under its own
key prefix and deletes its keys afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from domain.match import StepDue  # noqa: E402
from service.bootstrap import bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402
from tests.service.test_matches_api import DECK  # noqa: E402

ADMIN = "bench-admin"


def knocked_matches(wiring, hands: int, tokens: dict[str, list[str]] | None = None
                    ) -> list[str]:
    """``hands`` new matches, each one's first hand knocked; ``tokens``, when given, gets
    each one's seat tokens."""
    body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
            "options": {"first_dealer": 0}, "deck": DECK}
    ids = []
    for _ in range(hands):
        created = wiring.creation.create(body, ADMIN)
        seat1 = created["seats"][1]["token"]
        seat0 = created["seats"][0]["token"]
        for seat, action in ((seat1, {"type": "pass"}), (seat0, {"type": "pass"}),
                             (seat1, {"type": "draw", "source": "stock"}),
                             (seat1, {"type": "knock", "discard": "5S"})):
            wiring.play.act(created["id"], seat, action)
        ids.append(created["id"])
        if tokens is not None:
            tokens[created["id"]] = [seat0, seat1]
    return ids


def waiting(wiring, ids: list[str]) -> list[str]:
    return [m for m in ids if wiring.repository.get(m).owed()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("REDIS_URL",
                                                        "redis://127.0.0.1:6379/0"))
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    wiring = bootstrap(Settings(redis_url=args.url, admin_token=ADMIN, key_prefix=prefix),
                       in_process=False)
    worker = None
    try:
        ids = knocked_matches(wiring, args.hands)
        started = time.monotonic()
        worker = subprocess.Popen([sys.executable, "-m", "workers", "--url", args.url,
                                   "--prefix", prefix], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first: tuple[int, float | None] | None = None
        while (pending := wiring.index.pending(StepDue.kind)) and \
                time.monotonic() - started < args.timeout:
            if first is None and pending < args.hands:
                first = (pending, cpu_seconds(worker.pid))
            time.sleep(0.01)
        done_at, elapsed = time.time(), time.monotonic() - started
        cpu = _cpu_ms_per_step(first, cpu_seconds(worker.pid))
        left = waiting(wiring, ids)
        scored = [e.ts for m in ids for e in wiring.repository.stored(m)
                  if e.type == "HandScored"]
        span = max(scored) - min(scored) if len(scored) > 1 else 0.0
        seen = done_at - min(scored) if scored else 0.0
        print(json.dumps({
            "hands": args.hands, "scored": len(scored), "left_waiting": len(left),
            "seconds_from_worker_start": round(elapsed, 2),
            "steps_per_second": round((len(scored) - 1) / span, 1) if span else None,
            "hands_per_second_from_outside": round((len(scored) - len(left)) / seen, 1)
            if seen > 0 else None,
            "worker_cpu_ms_per_step": cpu,
        }, indent=2))
    finally:
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
        _delete(wiring.client, prefix)


def cpu_seconds(pid: int) -> float | None:
    """The process's CPU time so far (user and system), on Linux; None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_ms_per_step(first: tuple[int, float | None] | None, last: float | None) -> float | None:
    """The worker's CPU per step from the first poll that found steps paid (its start-up
    left out) until the index was empty: a figure the other processes on the machine
    change far less than the wall-clock rates."""
    if first is None or first[1] is None or last is None or not first[0]:
        return None
    return round((last - first[1]) * 1000 / first[0], 3)


def _delete(client: redis.Redis, prefix: str) -> None:
    keys = list(client.scan_iter(match=f"*{prefix}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start:start + 500])


if __name__ == "__main__":
    main()
