"""How soon the next hand shows after a knock, as ``make serve`` runs (embedded mode).

    python bench/next_deal.py [--hands 30] [--root .] [--poll-ms 1]

Starts ``python -m service.serve`` (gunicorn's gevent worker, embedded mode) from
``--root`` on a free port, then ``--hands`` times: a gin match from the prepared deck
played to the point where seat 1 can knock, the knock, and the public view read every
``--poll-ms`` until it shows hand 2. Prints JSON: the knock's answer, the time from
sending the knock until the view shows the next hand, and the time between the knock's
and the next deal's stored events (the server's own clock, millisecond times): median,
p95 and max, milliseconds. ``--root`` points at another checkout to measure it the same
way (before and after a change).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.service.test_matches_api import DECK  # noqa: E402

ADMIN = "bench-admin"


class Api:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body) if body is not None else None,
                          headers)
        answer = self.conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def started(root: Path, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(RUMMY_ADMIN_TOKEN=ADMIN, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    process = subprocess.Popen([sys.executable, "-m", "service.serve", "--port", str(port)],
                               cwd=root, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if Api(port).call("GET", "/healthz")[0] == 200:
                return process
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("the server did not start")


def one_hand(api: Api, poll_s: float) -> tuple[float, float, float]:
    """(knock answered, next hand shown), seconds after the knock was sent, and the time
    from the knock's append to the next deal's, by the stored events' times."""
    status, match = api.call("POST", "/v1/matches", {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"first_dealer": 0}, "deck": DECK}, token=ADMIN)
    assert status == 201, match
    tokens = [seat["token"] for seat in match["seats"]]
    path = f"/v1/matches/{match['id']}"
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})]:
        assert api.call("POST", path + "/actions", action, token=tokens[seat])[0] == 200
    sent = time.perf_counter()
    status, _ = api.call("POST", path + "/actions", {"type": "knock", "discard": "5S"},
                         token=tokens[1])
    answered = time.perf_counter() - sent
    assert status == 200
    while api.call("GET", path)[1]["hand_number"] != 2:
        if time.perf_counter() - sent > 10:
            raise SystemExit("the next hand did not show within 10 s")
        time.sleep(poll_s)
    shown = time.perf_counter() - sent
    times = {e["type"]: e["ts"] for e in api.call("GET", path + "/events")[1]["events"]}
    return answered, shown, times["HandDealt"] - times["HandKnocked"]


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
            "max_ms": round(ordered[-1] * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--poll-ms", type=float, default=1.0,
                        help="the pause between two reads of the view")
    args = parser.parse_args()
    port = free_port()
    process = started(args.root.resolve(), port)
    try:
        api = Api(port)
        one_hand(api, args.poll_ms / 1000)  # warm up
        hands = [one_hand(api, args.poll_ms / 1000) for _ in range(args.hands)]
    finally:
        process.terminate()
        process.wait(30)
    print(json.dumps({"hands": args.hands, "root": str(args.root.resolve()),
                      "knock_answered": summary([h[0] for h in hands]),
                      "next_hand_shown": summary([h[1] for h in hands]),
                      "dealt_after_knock_stored": summary([h[2] for h in hands])},
                     indent=2))


if __name__ == "__main__":
    main()
