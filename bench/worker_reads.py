"""What a worker's read of a match costs before paying its step: cold, or kept folded.

    python bench/worker_reads.py [--url redis://127.0.0.1:6379/0] [--matches 400]

Plays ``--matches`` gin matches to a knock (as ``bench/steps.py``), has a worker's wiring
(``workers.__main__.CACHE_SIZE``) pay every step in-process, then plays the second hand's
first moves (both seats pass the upcard, one draws from the stock). Then times, in CPU
(``time.process_time``), ``Repository.get_many`` in batches of 50 (a worker's claim) of
every match: ``cold`` on a fresh repository (a worker that never paid the match, or
whose cache let it go: meta and whole log read and folded), then ``kept`` on the
worker's (only the three new events read and folded). Prints JSON: microseconds per
match and the events each way read in all. Run it a few times: one round each, on a
shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.steps import ADMIN, _delete, knocked_matches  # noqa: E402
from domain.errors import RuleError  # noqa: E402
from service.bootstrap import Wiring, bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402
from service.usecases.errors import AppError  # noqa: E402
from service.usecases.repository import Repository  # noqa: E402
from workers.__main__ import CACHE_SIZE  # noqa: E402
from workers.reconciler import BATCH, Reconciler  # noqa: E402

MOVES = ({"type": "pass"}, {"type": "pass"}, {"type": "draw", "source": "stock"})


def second_hand_begun(api: Wiring, ids: list[str], tokens: dict[str, list[str]]) -> None:
    """Each match's second hand, three moves in, whoever's turn each one is."""
    for match_id in ids:
        for move in MOVES:
            for seat_token in tokens[match_id]:
                try:
                    api.play.act(match_id, seat_token, move)
                    break
                except (AppError, RuleError):
                    continue


def cpu_per_match(loading: Repository, ids: list[str]) -> tuple[float, int]:
    """CPU microseconds per match of reading every one in batches, and the events read."""
    read_before = loading.stats.events
    started = time.process_time()
    for at in range(0, len(ids), BATCH):
        loading.get_many(ids[at:at + BATCH])
    return (time.process_time() - started) * 1e6 / len(ids), loading.stats.events - read_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("REDIS_URL",
                                                        "redis://127.0.0.1:6379/0"))
    parser.add_argument("--matches", type=int, default=400)
    args = parser.parse_args()
    settings = Settings(redis_url=args.url, admin_token=ADMIN,
                        key_prefix=f"bench{uuid.uuid4().hex[:8]}")
    api = bootstrap(settings, in_process=False)
    worker = bootstrap(settings, in_process=False, cache_size=CACHE_SIZE)
    try:
        tokens: dict[str, list[str]] = {}
        ids = knocked_matches(api, args.matches, tokens)
        Reconciler(worker.index, worker.obligations).drain()
        second_hand_begun(api, ids, tokens)
        store = worker.repository.store
        cold = cpu_per_match(Repository(store, CACHE_SIZE), ids)
        kept = cpu_per_match(worker.repository, ids)
        print(json.dumps({
            "matches": args.matches, "batch": BATCH,
            "cold_us_per_match": round(cold[0], 1), "cold_events_read": cold[1],
            "kept_us_per_match": round(kept[0], 1), "kept_events_read": kept[1],
        }, indent=2))
    finally:
        _delete(api.client, settings.key_prefix)
        worker.close()
        api.close()


if __name__ == "__main__":
    main()
