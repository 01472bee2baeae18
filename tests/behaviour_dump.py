"""A dump of everything the API shows, for comparing two versions of the code byte for byte.

Plays seeded matches of every variant through the HTTP API (the Flask test client, in
embedded mode: fakeredis, jobs in-process) with seeded random legal moves, and writes, at
every step, every viewer's view (public, each seat, the organiser) and the events that
viewer gets from ``/events`` since the last step; at the end each viewer's export, and the
state at a few versions. A redesign that must not change behaviour runs it before and
after and compares the outputs (``cmp``); docs/testing.md says how.

What is left out so that runs compare: every time (an event's ``ts``, a last action, a
creation) is written as ``<time>``, and every id, token and hash (which depend on ids
and times) is replaced by a name given in order of first appearance, so a change in how
often the code draws a uuid or reads the clock does not show, while a change in what it
shows does.

    python -m tests.behaviour_dump --matches 100 --out before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import fakeredis

from domain.bots.policies import ENDERS, PLACEMENTS, discarding, keen, of_type
from service.api.app import create_app
from service.config import Settings

ADMIN = "dump-admin"
TABLES = [("gin", 2, {"target": 40}), ("gin", 3, {"target": 30}), ("gin", 4, {"target": 30}),
          ("gem", 2, {"target": 40}), ("gem", 3, {"target": 40}),
          ("rummy", 2, {"rounds": 1}), ("rummy", 4, {"rounds": 1}),
          ("rami", 3, {"rounds": 1}), ("rami", 6, {"rounds": 1})]
"""(variant, players, options): short matches, so that many fit in a run."""
MAX_STEPS = 1500
FULL = False
IDS = re.compile(r"\b[0-9a-f]{64}\b|\b[0-9a-f]{32}\b|\b[0-9a-f]{12}\b")
TIMES = re.compile(r'"(ts|last_action_at|created_at|requested_at)":\s*[0-9.]+')


@contextmanager
def deterministic() -> Iterator[None]:
    """A frozen clock and numbered uuids and tokens, for the length of the block."""
    numbers = itertools.count(1)
    fake_uuid = lambda: uuid.UUID(int=next(numbers))  # noqa: E731
    fake_token = lambda n=24: f"tok{next(numbers):020d}"  # noqa: E731
    with mock.patch("time.time", return_value=1_800_000_000.0), \
            mock.patch("uuid.uuid4", fake_uuid), \
            mock.patch("secrets.token_urlsafe", fake_token):
        yield


class Names:
    """Ids, tokens and hashes renamed in order of first appearance (one match at a time)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        text = re.sub(r"tok\d{20}", self._rename, text)
        text = TIMES.sub(lambda found: f'"{found.group(1)}":<time>', text)
        return IDS.sub(self._rename, text)

    def _rename(self, found: re.Match[str]) -> str:
        return self.names.setdefault(found.group(0), f"<{len(self.names)}>")


def play(client: Any, variant: str, players: int, options: dict[str, Any], seed: int,
         out: Any) -> None:
    names = Names()
    rng = random.Random(f"{variant}-{players}-{seed}")
    body = {"variant": variant, "players": [{"name": f"P{s}"} for s in range(players)],
            "options": options, "seed": f"dump-{variant}-{players}-{seed}"}
    created = client.post("/v1/matches", json=body, headers=_bearer(ADMIN))
    write(out, names, "create", created)
    match = created.json
    viewers = [("public", None), ("admin", ADMIN)] + [
        (f"seat{s['seat']}", s["token"]) for s in match["seats"]]
    url = f"/v1/matches/{match['id']}"
    seen = dict.fromkeys([label for label, _ in viewers], 0)
    for _ in range(MAX_STEPS):
        full = client.get(url, headers=_bearer(ADMIN)).json
        for label, token in viewers:
            write(out, names, f"view {label}", client.get(url, headers=_bearer(token)))
            events = client.get(f"{url}/events?after={seen[label]}", headers=_bearer(token))
            write(out, names, f"events {label}", events)
            seen[label] = full["version"]
        if full["phase"] in ("complete", "aborted") or full.get("turn") is None:
            break
        seat = full["turn"]
        token = match["seats"][seat]["token"]
        action = choose(rng, client.get(url, headers=_bearer(token)).json)
        write(out, names, f"act seat{seat}", client.post(f"{url}/actions", json=action,
                                                         headers=_bearer(token)))
    for label, token in viewers:
        write(out, names, f"export {label}", client.get(f"{url}/export", headers=_bearer(token)))
    last = client.get(url).json["version"]
    for version in sorted({1, 2, last // 2, last}):
        write(out, names, f"state {version}", client.get(f"{url}/state?at={version}"))


def choose(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
    """A seeded random legal action, keen to end hands: knock or place cards when it can,
    else mostly discard what the view's advice names."""
    advised = set((view.get("best_discard") or {}).get("cards") or ())
    return keen(rng, view["legal_actions"], (of_type(*ENDERS, *PLACEMENTS), 0.8),
                (discarding(advised), 0.8))


def write(out: Any, names: Names, what: str, response: Any) -> None:
    """One response, renamed; as its SHA-256 unless ``--full`` asked for the text."""
    body = response.get_data(as_text=True)
    etag = response.headers.get("ETag", "")
    line = names(f"{what} {response.status_code} {etag} {body}")
    out.write(line + "\n" if FULL else f"{what} {hashlib.sha256(line.encode()).hexdigest()}\n")


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--matches", type=int, default=100, help="matches per variant")
    parser.add_argument("--out", required=True)
    parser.add_argument("--full", action="store_true",
                        help="write each response's text, not its SHA-256 (to find a change)")
    parser.add_argument("--only", help="one table, e.g. gin-2 (to find a change)")
    args = parser.parse_args(argv)
    global FULL
    FULL = args.full
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix="dump")
    started = time.monotonic()
    digest = hashlib.sha256()
    with open(args.out, "w") as out, deterministic():
        client = create_app(settings, client=fakeredis.FakeRedis(server=fakeredis.FakeServer()),
                            jobs_inline=True).test_client()
        for variant, players, options in TABLES:
            if args.only and args.only != f"{variant}-{players}":
                continue
            began = time.monotonic()
            for seed in range(args.matches):
                out.write(f"match {variant}-{players} {seed}\n")
                play(client, variant, players, options, seed, out)
            print(f"{variant}-{players}: {time.monotonic() - began:.1f} s", file=sys.stderr)
    with open(args.out, "rb") as written:
        for block in iter(lambda: written.read(1 << 20), b""):
            digest.update(block)
    print(f"{args.out}: sha256 {digest.hexdigest()} "
          f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
