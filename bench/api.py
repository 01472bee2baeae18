"""API actions per second: random players play whole gin matches over HTTP.

    python bench/api.py --url http://127.0.0.1:8000 [--matches 5] [--target 100]

Run it against a real-mode server (REDIS_URL set, plus `make worker`) to measure the
action path on the real Redis; it works against `make serve` too. Each seat reads its
view, picks one of its `legal_actions` (knocking when it can) and posts it. Prints JSON:
actions_per_second over the whole run (each action also costs the player two GETs),
action_only_per_second (actions over the time spent in action POSTs alone), and the
p50/p95 action latency in milliseconds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse


class Client:
    """A keep-alive JSON client for one server."""

    def __init__(self, url: str) -> None:
        parsed = urlparse(url)
        self._conn = http.client.HTTPConnection(parsed.hostname, parsed.port or 80, timeout=30)

    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = self._conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


def play_match(client: Client, rng: random.Random, target: int,
               latencies: list[float]) -> dict[str, Any]:
    status, match = client.call("POST", "/v1/matches", {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"target": target}})
    assert status == 201, match
    tokens = [seat["token"] for seat in match["seats"]]
    path = f"/v1/matches/{match['id']}"
    while True:
        _, view = client.call("GET", path)
        if view["phase"] == "complete":
            return view
        if view["turn"] is None:  # a job is scoring the hand
            time.sleep(0.01)
            continue
        token = tokens[view["turn"]]
        _, seat_view = client.call("GET", path, token=token)
        actions = seat_view["legal_actions"]
        if not actions:
            continue
        enders = [a for a in actions if a["type"] in ("knock", "big_gin")]
        action = rng.choice(enders) if enders else rng.choice(actions)
        started = time.perf_counter()
        status, body = client.call("POST", f"{path}/actions", action, token=token)
        latencies.append(time.perf_counter() - started)
        if status != 200:
            raise SystemExit(f"action {action} refused: {status} {body}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="matches played at once, each by its own connection")
    args = parser.parse_args(argv)
    latencies: list[float] = []

    def one(index: int) -> dict[str, Any]:
        return play_match(Client(args.url), random.Random(args.seed + index), args.target,
                          latencies)

    started = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        finals = list(pool.map(one, range(args.matches)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    json.dump({
        "matches": len(finals),
        "hands": sum(len(view["hands"]) for view in finals),
        "actions": len(latencies),
        "seconds": round(elapsed, 3),
        "concurrency": args.concurrency,
        "actions_per_second": round(len(latencies) / elapsed, 1),
        "action_only_per_second": round(len(latencies) / sum(latencies) * args.concurrency, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p95_ms": round(latencies[int(len(latencies) * 0.95)] * 1000, 2),
        "final_scores": [view["final_scores"] for view in finals],
    }, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
