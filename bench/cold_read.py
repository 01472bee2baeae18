"""Cold reads: the first load of a long match after a restart, with and without snapshots.

    python bench/cold_read.py --redis redis://127.0.0.1:6379/8 [--events 1000] [--repeat 20]

Plays a short (10-event) and a long (``--events``) match of each variant through the real
service, then times ``Repository.get`` on a fresh repository (empty cache, as after a
restart) with snapshots (every ``--every`` events) and without, alone (``get``, an API
process's read) and as a worker's batch reads it (``get_many``). Also reports the bytes
Redis holds per stored event (``MEMORY USAGE`` of the events stream / its events). Prints
JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis  # noqa: E402

from bench.replay import ADMIN, play  # noqa: E402
from service.adapters.snapshots import RedisSnapshots  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.config import Settings  # noqa: E402
from service.usecases.repository import Repository  # noqa: E402
from service.usecases.snapshots import Snapshots  # noqa: E402
from tests.conftest import rq_left_as_found  # noqa: E402


def cold_ms(store: Any, match_id: str, snapshots: Snapshots | None, repeat: int,
            batch: bool = False) -> float:
    """Median milliseconds of the first ``get`` (``get_many`` when ``batch``) of a fresh
    repository."""
    samples = []
    for _ in range(repeat):
        repository = Repository(store, snapshots=snapshots)
        start = time.perf_counter()
        if batch:
            repository.get_many([match_id])
        else:
            repository.get(match_id)
        samples.append(time.perf_counter() - start)
    return round(statistics.median(samples) * 1000, 2)


def measure(client: redis.Redis, prefix: str, variant: str, events: int, every: int,
            repeat: int) -> dict[str, Any]:
    settings = Settings(redis_url="redis://bench", admin_token=ADMIN, key_prefix=prefix,
                        snapshot_every=every)
    app = create_app(settings, client=client, jobs_inline=True)
    store = app.extensions["rummy"].repository.store
    snapshots = Snapshots(RedisSnapshots(client, store.key), every)
    short = play(app.test_client(), variant, 10, random.Random(1))
    long = play(app.test_client(), variant, events, random.Random(2))
    length = len(store.read(long))
    stream = int(client.memory_usage(store.events_key(long)) or 0)
    plain = {name: cold_ms(store, match_id, None, repeat)
             for name, match_id in (("short", short), ("long", long))}
    snapped = {name: cold_ms(store, match_id, snapshots, repeat)
               for name, match_id in (("short", short), ("long", long))}
    batched = {"without_snapshots": cold_ms(store, long, None, repeat, batch=True),
               "with_snapshots": cold_ms(store, long, snapshots, repeat, batch=True)}
    return {"variant": variant, "events": length,
            "without_snapshots_ms": plain, "with_snapshots_ms": snapped,
            "worker_batch_long_ms": batched,
            "extra_ms_without": round(plain["long"] - plain["short"], 2),
            "extra_ms_with": round(snapped["long"] - snapped["short"], 2),
            "bytes_per_event": round(stream / length)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", required=True, help="a real Redis URL")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--variants", default="gin,rummy")
    args = parser.parse_args()
    client = redis.Redis.from_url(args.redis)
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    try:
        with rq_left_as_found(client, prefix):
            results = [measure(client, prefix, variant, args.events, args.every, args.repeat)
                       for variant in args.variants.split(",")]
    finally:
        keys = list(client.scan_iter(f"*{prefix}*"))
        if keys:
            client.delete(*keys)
    print(json.dumps({"store": args.redis, "every": args.every, "results": results}, indent=2))


if __name__ == "__main__":
    main()
