"""Bytes per stored event, and the cost of reading them: the compact form against the first.

    python bench/event_bytes.py --redis redis://127.0.0.1:6379/8 [--events 1000] [--repeat 40]

Plays one ``--events``-event match of each variant through the real service (which stores
it in the compact form), then writes the same events again under a second match id in the
first form (every field spelled out, ``prev`` and ``hash`` in hex, ``ts`` a float's repr),
and reports for both: ``MEMORY USAGE ... SAMPLES 0`` of the stream over its events, and the
median milliseconds of ``XRANGE`` of the whole stream and of ``RedisEventStore.read``
(``XRANGE`` and decoding), the two forms alternated. Both forms are read by this checkout's
store, so the read times compare the encodings, not two versions of the code. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis  # noqa: E402

from bench.replay import ADMIN, play  # noqa: E402
from domain.chain import canonical_json  # noqa: E402
from service.adapters.store import RedisEventStore  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.config import Settings  # noqa: E402
from service.ports import StoredEvent  # noqa: E402
from tests.conftest import rq_left_as_found  # noqa: E402


def first_form(event: StoredEvent) -> dict[str, str]:
    """An entry as the store wrote it before the compact form."""
    fields = {"type": event.type, "schema": str(event.schema),
              "data": canonical_json(event.data), "ts": repr(event.ts),
              "prev": event.prev_hash, "hash": event.hash}
    if event.command_id is not None:
        fields["cmd"] = event.command_id
    if event.command is not None:
        fields["command"] = canonical_json(event.command)
    return fields


def timed(run: Callable[[], Any], samples: list[float]) -> None:
    """Run once, adding its seconds to ``samples``."""
    start = time.perf_counter()
    run()
    samples.append(time.perf_counter() - start)


def measure(client: redis.Redis, prefix: str, variant: str, events: int,
            repeat: int) -> dict[str, Any]:
    settings = Settings(redis_url="redis://bench", admin_token=ADMIN, key_prefix=prefix)
    app = create_app(settings, client=client, jobs_inline=True)
    store: RedisEventStore = app.extensions["rummy"].repository.store
    compact = play(app.test_client(), variant, events, random.Random(2))
    stored = store.read(compact)
    first = f"{compact}-first"
    with client.pipeline(transaction=False) as pipe:
        for event in stored:
            pipe.xadd(store.events_key(first), first_form(event), id=f"{event.version}-0")
        pipe.execute()
    if store.read(first) != stored:
        raise SystemExit("the first form did not read back as the compact one")
    forms = {"first": first, "compact": compact}
    xrange: dict[str, list[float]] = {name: [] for name in forms}
    read: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(repeat):
        for name, match_id in forms.items():
            key = store.events_key(match_id)
            timed(lambda key=key: client.xrange(key, "1-0", "+"), xrange[name])
            timed(lambda match_id=match_id: store.read(match_id), read[name])
    return {
        "variant": variant, "events": len(stored),
        "bytes_per_event": {
            name: round(int(client.memory_usage(store.events_key(match_id), samples=0) or 0)
                        / len(stored)) for name, match_id in forms.items()},
        "xrange_ms": {name: round(statistics.median(xrange[name]) * 1000, 2) for name in forms},
        "read_ms": {name: round(statistics.median(read[name]) * 1000, 2) for name in forms},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", required=True, help="a real Redis URL")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--variants", default="gin,rummy")
    args = parser.parse_args()
    client = redis.Redis.from_url(args.redis)
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    try:
        with rq_left_as_found(client, prefix):
            results = [measure(client, prefix, variant, args.events, args.repeat)
                       for variant in args.variants.split(",")]
    finally:
        keys = list(client.scan_iter(f"*{prefix}*"))
        if keys:
            client.delete(*keys)
    print(json.dumps({"store": args.redis, "results": results}, indent=2))


if __name__ == "__main__":
    main()
