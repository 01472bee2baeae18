"""One round of an 8-player round-robin, run over HTTP the way a tournament backend would.

    python bench/round_robin.py --url http://127.0.0.1:8000 --admin-token s3cret [--target 50]

Against a running server (embedded, or real Redis with `make worker`) started with
`RUMMY_WEBHOOK_PRIVATE=allow` (the receiver listens on 127.0.0.1, a private address the
default policy refuses), it:
1. makes an organiser key with the admin token;
2. starts a local webhook receiver and registers it for `hand_scored` and
   `match_completed`, checking every delivery's HMAC-SHA256 signature;
3. creates the round as one batch of 4 gin matches (1 v 8, 2 v 7, 3 v 6, 4 v 5), tagged
   `tournament:<name>` and `round:1`, with each player's `external_id`;
4. plays all four matches with simple random players (knock when allowed, else a best
   discard), interleaved, through each seat's own token;
5. waits until every match's `match_completed` webhook has arrived, then reads the
   round's results as JSON and CSV and checks that they agree with the webhooks.
Prints a JSON summary; exits 1 if anything disagrees.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import hmac
import io
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PLAYERS = [f"player-{n}" for n in range(1, 9)]
PAIRINGS = [(0, 7), (1, 6), (2, 5), (3, 4)]


class Api:
    """A tiny JSON client for the server. An error answer ends the run
    (``SystemExit`` with it), unless ``fail_fast`` is off: then the ``HTTPError`` is the
    caller's (bench/tournament.py's players, who look again after a 409 or 422)."""

    def __init__(self, url: str, fail_fast: bool = True) -> None:
        self.url = url.rstrip("/")
        self.fail_fast = fail_fast

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             raw: bool = False) -> Any:
        request = urllib.request.Request(
            self.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json",
                     **({"Authorization": f"Bearer {token}"} if token else {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                data = response.read()
        except urllib.error.HTTPError as exc:
            if not self.fail_fast:
                raise
            raise SystemExit(f"{method} {path} -> {exc.code} {exc.read().decode()}") from exc
        return data.decode() if raw else json.loads(data or b"null")


class Receiver:
    """A webhook endpoint on 127.0.0.1 that checks signatures and keeps each delivery once."""

    def __init__(self, secret: str) -> None:
        self.secret = secret.encode()
        self.deliveries: dict[str, dict[str, Any]] = {}
        self.bad_signatures = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                expected = "sha256=" + hmac.new(receiver.secret, body,
                                                hashlib.sha256).hexdigest()
                with receiver.lock:
                    if hmac.compare_digest(expected, self.headers.get("X-Rummy-Signature", "")):
                        receiver.deliveries[self.headers["X-Rummy-Delivery"]] = json.loads(body)
                    else:
                        receiver.bad_signatures += 1
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.deliveries.values() if m["kind"] == kind]


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["legal_actions"]
    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
    best = [a for a in legal if a["type"] == "discard"
            and a["card"] in view.get("best_discard", {}).get("cards", ())]
    return rng.choice(enders or best or legal)


def play_round(api: Api, matches: list[dict[str, Any]], key: str, rng: random.Random,
               timeout: float) -> int:
    """Play every match to its end, one action at a time in turn; returns the actions."""
    live, actions, deadline = {m["id"]: m for m in matches}, 0, time.monotonic() + timeout
    while live and time.monotonic() < deadline:
        for match_id, match in list(live.items()):
            full = api.call("GET", f"/v1/matches/{match_id}", token=key)
            if full["phase"] == "complete":
                del live[match_id]
                continue
            if full["turn"] is None:  # the hand is being scored (a worker, or the timer)
                time.sleep(0.02)
                continue
            token = match["seats"][full["turn"]]["token"]
            view = api.call("GET", f"/v1/matches/{match_id}", token=token)
            api.call("POST", f"/v1/matches/{match_id}/actions", choose(view, rng), token)
            actions += 1
    if live:
        raise SystemExit(f"matches still live after {timeout} s: {sorted(live)}")
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--target", type=int, default=50, help="gin target of each match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    api, rng = Api(args.url), random.Random(args.seed)
    tournament = f"club-{uuid.uuid4().hex[:6]}"

    organiser = api.call("POST", "/v1/organisers", {"name": tournament}, args.admin_token)
    key = organiser["key"]
    receiver = Receiver(secret=uuid.uuid4().hex)
    api.call("POST", "/v1/webhooks", {"url": receiver.url, "secret": receiver.secret.decode(),
                                      "events": ["hand_scored", "match_completed"]}, key)
    tags = [f"tournament:{tournament}", "round:1"]
    batch = api.call("POST", "/v1/batches", {"tags": tags, "matches": [
        {"variant": "gin", "external_id": f"{tournament}-r1-t{table}",
         "tags": [f"table:{table}"], "options": {"target": args.target},
         "players": [{"name": PLAYERS[a], "external_id": f"ext-{a + 1}"},
                     {"name": PLAYERS[b], "external_id": f"ext-{b + 1}"}]}
        for table, (a, b) in enumerate(PAIRINGS, start=1)]}, key)
    started = time.monotonic()
    actions = play_round(api, batch["matches"], key, rng, args.timeout)
    played_s = time.monotonic() - started

    ids = {m["id"] for m in batch["matches"]}
    while {m["match_id"] for m in receiver.of_kind("match_completed")} != ids:
        if time.monotonic() - started > args.timeout:
            raise SystemExit("not every match_completed webhook arrived")
        time.sleep(0.05)
    hooks = {m["match_id"]: m["data"] for m in receiver.of_kind("match_completed")}
    results = api.call("GET", "/v1/results?tag=round:1&tag=tournament:" + tournament,
                       token=key)["matches"]
    rows = list(csv.DictReader(io.StringIO(api.call(
        "GET", f"/v1/results?tag=tournament:{tournament}&format=csv", token=key, raw=True))))
    agree = (len(results) == 4 and len(rows) == 8 and receiver.bad_signatures == 0
             and all(r["final_scores"] == hooks[r["id"]]["final_scores"]
                     and r["winner"] == hooks[r["id"]]["winner"] for r in results))
    summary = {"tournament": tournament, "batch": batch["id"], "actions": actions,
               "played_seconds": round(played_s, 1),
               "webhooks": {"hand_scored": len(receiver.of_kind("hand_scored")),
                            "match_completed": len(hooks),
                            "bad_signatures": receiver.bad_signatures},
               "standings": sorted(
                   ({"player": p["name"], "external_id": p["external_id"],
                     "won": p["winner"], "final_score": p["final_score"]}
                    for r in results for p in r["players"]),
                   key=lambda s: (not s["won"], -(s["final_score"] or 0))),
               "results_agree_with_webhooks": agree}
    print(json.dumps(summary, indent=2))
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
