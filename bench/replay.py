"""Replay speed: rebuilding a match's state from its events, and verifying its log.

    python bench/replay.py [--redis redis://127.0.0.1:6379/0] [--events 1000] [--repeat 20]

For each variant, plays one match with random legal actions through the real service
(in-process, jobs inline) until its log holds at least ``--events`` events, then times:
- ``fold``: the pure domain fold of those events (events per second);
- ``rebuild``: reading the whole stream from Redis and folding it, as the API does for a
  match it has not cached (milliseconds per rebuild);
- ``verify``: ``domain.audit.verify`` of the full log (milliseconds), as the replays job
  and ``rummy verify`` run it.
Without ``--redis`` the store is an in-process fakeredis. Prints JSON.
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

import fakeredis  # noqa: E402
import redis  # noqa: E402

from domain.audit import verify  # noqa: E402
from domain.bots.policies import ENDERS, PLACEMENTS, discarding, keen, of_type  # noqa: E402
from domain.match import Match  # noqa: E402
from domain.variants import VARIANTS  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.config import Settings  # noqa: E402
from tests.conftest import rq_left_as_found  # noqa: E402

ADMIN = "bench-admin"
LONG = {"gin": (2, {"target": 100000}), "gem": (3, {"target": 100000}),
        "rummy": (4, {"rounds": 50}), "rami": (4, {"rounds": 50})}


def play(client: Any, variant: str, events: int, rng: random.Random) -> str:
    players, options = LONG[variant]
    match = client.post("/v1/matches", json={
        "variant": variant, "players": [{"name": f"P{n}"} for n in range(players)],
        "options": options}).json
    admin = {"Authorization": f"Bearer {ADMIN}"}
    while True:
        full = client.get(f"/v1/matches/{match['id']}", headers=admin).json
        if full["version"] >= events or full["phase"] == "complete":
            return str(match["id"])
        token = {"Authorization": f"Bearer {match['seats'][full['turn']]['token']}"}
        view = client.get(f"/v1/matches/{match['id']}", headers=token).json
        best = view.get("best_discard", {}).get("cards", ())
        action = keen(rng, view["legal_actions"], (of_type(*ENDERS, *PLACEMENTS), 1.0),
                      (discarding(best), 1.0))
        client.post(f"/v1/matches/{match['id']}/actions", json=action, headers=token)


def timed(func: Any, repeat: int) -> float:
    """Median seconds of ``func()`` over ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def measure(client_redis: redis.Redis, prefix: str, name: str, events: int,
            repeat: int) -> dict[str, Any]:
    settings = Settings(redis_url="redis://bench", admin_token=ADMIN, key_prefix=prefix)
    app = create_app(settings, client=client_redis, jobs_inline=True)
    match_id = play(app.test_client(), name, events, random.Random(name))
    repository = app.extensions["rummy"].repository
    variant = VARIANTS[name]
    stored = repository.stored(match_id)
    records = [event.to_dict() for event in stored]
    empty = Match.new(variant)
    fold_s = timed(lambda: repository.fold(empty, stored), repeat)
    rebuild_s = timed(lambda: repository.fold(empty, repository.stored(match_id)), repeat)
    verify_s = timed(lambda: verify(records, VARIANTS), max(1, repeat // 5))
    return {"variant": name, "events": len(stored),
            "fold_events_per_second": round(len(stored) / fold_s),
            "rebuild_from_redis_ms": round(rebuild_s * 1000, 2),
            "verify_ms": round(verify_s * 1000, 1),
            "verify_events_per_second": round(len(stored) / verify_s)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default=None, help="a Redis URL (default: fakeredis)")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--variants", default="gin,gem,rummy,rami")
    args = parser.parse_args()
    client = redis.Redis.from_url(args.redis) if args.redis else fakeredis.FakeRedis()
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    try:
        with rq_left_as_found(client, prefix):
            results = [measure(client, prefix, v, args.events, args.repeat)
                       for v in args.variants.split(",")]
    finally:
        keys = list(client.scan_iter(f"*{prefix}*"))
        if keys:
            client.delete(*keys)
    print(json.dumps({"store": args.redis or "fakeredis", "results": results}, indent=2))


if __name__ == "__main__":
    main()
