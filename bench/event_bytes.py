"""Bytes per stored event, and the cost of reading them: the compact form against the first.

    python bench/event_bytes.py --redis redis://127.0.0.1:6379/8 [--events 1000] [--repeat 40]
        [--before DIR]

Plays one ``--events``-event match of each variant through the real service (which stores
it in the compact form), then writes the same events again under a second match id in the
first form (every field spelled out, ``prev`` and ``hash`` in hex, ``ts`` a float's repr),
and reports for both: ``MEMORY USAGE ... SAMPLES 0`` of the stream over its events, and the
median milliseconds of ``XRANGE`` of the whole stream and of ``RedisEventStore.read``
(``XRANGE`` and decoding), the two forms alternated. Both forms are read by this checkout's
store, so the read times compare the encodings, not two versions of the code; with
``--before DIR`` (a ``git archive`` of an older commit), ``before`` is the first form read
by that commit's store module (its ``_decode`` of each entry), alternated with the others.
Prints JSON.
"""

from __future__ import annotations

import argparse
import importlib.util
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


def older_reader(root: Path) -> Callable[[list[Any]], Any]:
    """Reading entries with the store module of another checkout (its ``_decode``)."""
    spec = importlib.util.spec_from_file_location("before_store",
                                                  root / "service/adapters/store.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no store module under {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["before_store"] = module
    spec.loader.exec_module(module)
    return lambda entries: [module._decode(entry_id, fields) for entry_id, fields in entries]


def measure(client: redis.Redis, prefix: str, variant: str, events: int,
            repeat: int, before: Callable[[list[Any]], Any] | None) -> dict[str, Any]:
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
    if before is not None:
        read["before"] = []
    for _ in range(repeat):
        for name, match_id in forms.items():
            key = store.events_key(match_id)
            timed(lambda key=key: client.xrange(key, "1-0", "+"), xrange[name])
            timed(lambda match_id=match_id: store.read(match_id), read[name])
        if before is not None:
            timed(lambda: before(client.xrange(store.events_key(first), "1-0", "+")),
                  read["before"])
    return {
        "variant": variant, "events": len(stored),
        "bytes_per_event": {
            name: round(int(client.memory_usage(store.events_key(match_id), samples=0) or 0)
                        / len(stored)) for name, match_id in forms.items()},
        "xrange_ms": {name: round(statistics.median(xrange[name]) * 1000, 2) for name in forms},
        "read_ms": {name: round(statistics.median(read[name]) * 1000, 2) for name in read},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", required=True, help="a real Redis URL")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--variants", default="gin,rummy")
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout of an older commit, whose store reads the first form")
    args = parser.parse_args()
    before = older_reader(args.before) if args.before is not None else None
    client = redis.Redis.from_url(args.redis)
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    try:
        with rq_left_as_found(client, prefix):
            results = [measure(client, prefix, variant, args.events, args.repeat, before)
                       for variant in args.variants.split(",")]
    finally:
        keys = list(client.scan_iter(f"*{prefix}*"))
        if keys:
            client.delete(*keys)
    print(json.dumps({"store": args.redis, "results": results}, indent=2))


if __name__ == "__main__":
    main()
