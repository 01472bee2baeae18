"""Concurrent retries of one Idempotency-Key: does every retry get the first answer?

    python bench/idempotency.py --url http://127.0.0.1:8000 [--matches 20] [--retries 50]

For each of ``--matches`` new gin matches, the seat to act sends its legal first action
``--retries`` times at once, each copy on its own connection with the same
Idempotency-Key. Prints JSON: how many answers were identical to the first (status and
body) and in how many matches the action was appended exactly once.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import uuid
from typing import Any
from urllib.parse import urlparse


def call(url: str, method: str, path: str, body: Any = None, token: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port or 80, timeout=60)
    sent = {"Content-Type": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None, sent)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def one_match(url: str, retries: int) -> dict[str, Any]:
    status, match = call(url, "POST", "/v1/matches", {
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]})
    assert status == 201, match
    path = f"/v1/matches/{match['id']}"
    seat = call(url, "GET", path)[1]["turn"]
    token = match["seats"][seat]["token"]
    action = call(url, "GET", path, token=token)[1]["legal_actions"][0]
    key = uuid.uuid4().hex
    answers: list[tuple[int, Any]] = []
    start = threading.Barrier(retries)

    def send() -> None:
        start.wait()
        answers.append(call(url, "POST", f"{path}/actions", action, token,
                            {"Idempotency-Key": key}))

    threads = [threading.Thread(target=send) for _ in range(retries)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    events = call(url, "GET", f"{path}/events", token=token)[1]["events"]
    appends = [e for e in events
               if (e.get("command_id") or "").endswith(key) and e.get("command")]
    first = answers[0]
    return {"answers": len(answers), "same": sum(a == first for a in answers),
            "statuses": sorted({a[0] for a in answers}), "appends": len(appends)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--retries", type=int, default=50)
    args = parser.parse_args()
    results = [one_match(args.url, args.retries) for _ in range(args.matches)]
    answers = sum(r["answers"] for r in results)
    same = sum(r["same"] for r in results)
    summary = {"matches": args.matches, "retries_each": args.retries, "answers": answers,
               "identical_to_first": same, "percent": round(100 * same / answers, 2),
               "statuses": sorted({s for r in results for s in r["statuses"]}),
               "matches_where_the_action_was_applied_once": sum(r["appends"] == 1
                                                                for r in results)}
    print(json.dumps(summary, indent=2))
    sys.exit(0 if same == answers else 1)


if __name__ == "__main__":
    main()
