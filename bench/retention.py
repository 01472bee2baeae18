"""Embedded-mode memory with and without retention: keys and bytes as matches finish.

    python bench/retention.py [--matches 3000] [--keep 1000] [--every 500] [--no-baseline]

Creates gin matches in embedded mode (in-process fakeredis, through the use cases) and
aborts each at once, twice: with ``keep_finished`` = ``--keep``, and with a cap above
``--matches`` (every match kept, as before retention). Every ``--every`` matches it counts
the keys and the Python heap (``tracemalloc``: fakeredis keeps its data there, so this is
the server's memory for matches, caches included). Prints JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import fakeredis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.bootstrap import bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402

ADMIN = "bench-admin"


def run(matches: int, keep: int, every: int) -> dict[str, Any]:
    """Finish ``matches`` matches with ``keep`` kept; key counts and heap along the way."""
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    settings = Settings(redis_url=None, admin_token=ADMIN, keep_finished=keep)
    wiring = bootstrap(settings, client)
    samples = []
    started = time.perf_counter()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for number in range(1, matches + 1):
        created = wiring.creation.create({"variant": "gin", "tags": ["bench"],
                                         "players": [{"name": "A"}, {"name": "B"}]}, ADMIN)
        wiring.play.abort(created["id"], ADMIN, {"reason": "bench"})
        if number % every == 0:
            gc.collect()
            samples.append({"finished": number, "keys": client.dbsize(),
                            "heap_kb": round((tracemalloc.get_traced_memory()[0] - base) / 1024)})
    tracemalloc.stop()
    wiring.close()
    return {"keep": keep, "seconds": round(time.perf_counter() - started, 1),
            "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--keep", type=int, default=1000)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the run that keeps every match")
    args = parser.parse_args()
    runs = [run(args.matches, args.keep, args.every)]
    if not args.no_baseline:
        runs.append(run(args.matches, args.matches + 1, args.every))
    print(json.dumps({"matches": args.matches, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
