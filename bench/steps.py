"""System steps per second of one worker process: a burst of hand ends, scored.

    python bench/steps.py [--url redis://127.0.0.1:6379/0] [--hands 200]

Plays ``--hands`` gin matches to a knock through the use cases in real mode (each knock
makes its scoring step due in the work index), then starts one worker process
(``python -m workers``) and waits until every hand is scored and the next one dealt.
Prints JSON: the time from the worker's start until the last hand was scored, and steps
per second measured between the first and the last ``HandScored`` (the worker's start-up
left out). Works under its own
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

from service.bootstrap import bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402
from tests.service.test_matches_api import DECK  # noqa: E402

ADMIN = "bench-admin"


def knocked_matches(wiring, hands: int) -> list[str]:
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
        left = ids
        while left and time.monotonic() - started < args.timeout:
            time.sleep(0.05)
            left = waiting(wiring, left)
        elapsed = time.monotonic() - started
        scored = [e.ts for m in ids for e in wiring.repository.stored(m)
                  if e.type == "HandScored"]
        span = max(scored) - min(scored) if len(scored) > 1 else 0.0
        print(json.dumps({
            "hands": args.hands, "scored": len(scored), "left_waiting": len(left),
            "seconds_from_worker_start": round(elapsed, 2),
            "steps_per_second": round((len(scored) - 1) / span, 1) if span else None,
        }, indent=2))
    finally:
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
        _delete(wiring.client, prefix)


def _delete(client: redis.Redis, prefix: str) -> None:
    keys = list(client.scan_iter(match=f"*{prefix}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start:start + 500])


if __name__ == "__main__":
    main()
