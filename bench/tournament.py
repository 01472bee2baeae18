"""Tournaments at scale: what pairing a Swiss round costs, and whole tournaments played
through a server and its workers.

    python bench/tournament.py --swiss-pairing 1000 [--history 5] [--table-size 2] [--seed 7]
    python bench/tournament.py --url http://127.0.0.1:8000 --admin-token T [--target 25]

``--swiss-pairing N`` builds a synthetic Swiss tournament of N entrants over ``--history``
rounds: each round is paired by ``domain.tournaments.swiss.pair`` and decided by a seeded
RNG (two seats: the higher seed wins 55% of the games that are not drawn, 10% are drawn;
larger tables: a random finishing order). Then it times the pairing of the next round
(wall clock, one run) and prints a table: entrants, seconds, tables, byes, rematches (pairs
of tablemates who met before), floaters (entrants seated with someone of another score)
and the violations ``swiss.check`` finds, which must be none. Exits 1 on any violation.

``--url`` plays two whole tournaments on a running server in real mode (a Redis, the API,
``make worker``), as a tournament backend and its players would, and reports each one's
wall time, matches, matches per second and final standings (top five):

- a 32-entrant Swiss of gin, 5 rounds: 16 computer players (basic) and 16 scripted people,
  each a thread that asks ``GET /v1/tournaments/{id}/me`` with its player token for its
  table and plays its seat there over HTTP (knock when it may, else a best discard, else
  any legal action), so the workers pair each round only once its people have played;
- a 6-entrant rummy round robin at three-seat tables (one round a match), all bots.

Both must end ``complete``; the export of each must verify offline (``rummy verify``'s
checks). Exits 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.round_robin import Api, choose  # noqa: E402
from domain.audit import parse_ndjson  # noqa: E402
from domain.tournaments import swiss  # noqa: E402
from domain.tournaments.audit import verify_tournament  # noqa: E402
from domain.tournaments.model import Bye, Result, table_points  # noqa: E402
from domain.variants import VARIANTS  # noqa: E402

COLUMNS = ("entrants", "history", "seconds", "tables", "byes", "rematches", "floaters",
           "violations")


def decided(rng: random.Random, round_: int, seats: tuple[int, ...]) -> Result:
    """A synthetic result: at two seats a draw one time in ten, otherwise the better seed
    wins 55% of the time; at larger tables a random finishing order."""
    if len(seats) == 2:
        roll = rng.random()
        if roll < 0.1:
            ranks = [0, 0]
        else:
            better_wins = roll < 0.1 + 0.9 * 0.55
            ranks = [0, 1] if (seats[0] < seats[1]) == better_wins else [1, 0]
    else:
        ranks = rng.sample(range(len(seats)), len(seats))
    points = table_points(ranks)
    return Result(round_, seats, points, points)


def swiss_history(entrants: int, rounds: int, table_size: int,
                  seed: int) -> tuple[list[Result], list[Bye]]:
    """``rounds`` rounds of a Swiss tournament of ``entrants``, paired by ``swiss.pair``."""
    rng = random.Random(seed)
    results: list[Result] = []
    byes: list[Bye] = []
    for number in range(1, rounds + 1):
        pairing = swiss.pair(range(entrants), results, byes, table_size)
        results += [decided(rng, number, table.seats) for table in pairing.tables]
        byes += [Bye(number, entrant) for entrant in pairing.byes]
    return results, byes


def swiss_pairing(entrants: int, history: int, table_size: int, seed: int) -> dict[str, Any]:
    """Times ``swiss.pair`` for round ``history + 1`` and measures what it paired."""
    results, byes = swiss_history(entrants, history, table_size, seed)
    active = list(range(entrants))
    started = time.perf_counter()
    pairing = swiss.pair(active, results, byes, table_size)
    seconds = time.perf_counter() - started
    violations = swiss.check(pairing, active, results, byes, table_size)
    for violation in violations:
        print(f"violation: {violation}", file=sys.stderr)
    return {"entrants": entrants, "history": history, "seconds": round(seconds, 2),
            "tables": len(pairing.tables), "byes": len(pairing.byes),
            "rematches": swiss.rematches(pairing, results),
            "floaters": len(swiss.floaters(pairing, active, results, byes)),
            "violations": len(violations)}


# --- whole tournaments through a server ---------------------------------------------------


def person(api: Api, tournament_id: str, token: str, seed: int, stop: threading.Event,
           moves: list[int]) -> None:
    """One scripted entrant: find the table, play its seat whenever it is to act. A
    request that fails (the view moved on meanwhile, a slow answer) is looked at again."""
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            if not step(api, tournament_id, token, rng):
                return
            moves.append(1)
        except (urllib.error.URLError, TimeoutError, IndexError, KeyError) as exc:
            print(f"{token[:6]}: {type(exc).__name__}: {exc}", file=sys.stderr)
            time.sleep(0.05)


def step(api: Api, tournament_id: str, token: str, rng: random.Random) -> bool:
    """Wait for the entrant's turn and make one move; False once the tournament is over."""
    while True:
        me = api.call("GET", f"/v1/tournaments/{tournament_id}/me", token=token)
        if me["status"] != "running":
            return False
        table = me["table"]
        if table is not None and not table["result_recorded"]:
            view = api.call("GET", f"/v1/matches/{table['match_id']}", token=token)
            if view["turn"] == table["seat"] and view.get("legal_actions"):
                api.call("POST", f"/v1/matches/{table['match_id']}/actions",
                         choose(view, rng), token)
                return True
        time.sleep(0.03)


def played(api: Api, key: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Create a tournament, let its scripted people play, wait for its end; the summary."""
    started = time.monotonic()
    made = api.call("POST", "/v1/tournaments", body, key)
    stop, moves = threading.Event(), []
    people = [threading.Thread(target=person, args=(api, made["id"], e["token"], n, stop,
                                                    moves), daemon=True)
              for n, e in enumerate(made["entrants"]) if e["token"]]
    for thread in people:
        thread.start()
    try:
        while True:
            state = api.call("GET", f"/v1/tournaments/{made['id']}")
            if state["status"] != "running" or time.monotonic() - started > timeout:
                break
            time.sleep(0.2)
    finally:
        stop.set()
    seconds = time.monotonic() - started
    rounds = [api.call("GET", f"/v1/tournaments/{made['id']}/rounds/{n}")
              for n in range(1, state["round"] + 1)]
    matches = sum(len(r["tables"]) for r in rounds)
    export = api.call("GET", f"/v1/tournaments/{made['id']}/export", raw=True)
    report = verify_tournament(parse_ndjson(export.splitlines()), VARIANTS)
    return {"name": body["name"], "status": state["status"], "rounds": state["round"],
            "matches": matches, "seconds": round(seconds, 1),
            "matches_per_second": round(matches / seconds, 2), "people_moves": len(moves),
            "verified": report.ok,
            "top": [(row["rank"], row["name"], row["points"])
                    for row in state["standings"][:5]]}


def tournaments(url: str, admin: str, target: int, timeout: float) -> list[dict[str, Any]]:
    """The two tournaments of ``--url``, one after the other."""
    api = Api(url, fail_fast=False)
    key = api.call("POST", "/v1/organisers", {"name": "bench"}, admin)["key"]
    swiss32 = {"name": "Swiss 32", "variant": "gin", "options": {"target": target},
               "format": "swiss", "rounds": 5,
               "players": [{"bot": "basic"} if n % 2 else {"name": f"Person {n}"}
                           for n in range(32)]}
    rummy6 = {"name": "Rummy round robin 6", "variant": "rummy", "options": {"rounds": 1},
              "format": "round_robin", "table_size": 3,
              "players": [{"bot": "basic"} for _ in range(6)]}
    return [played(api, key, body, timeout) for body in (swiss32, rummy6)]


def table(rows: list[dict[str, Any]]) -> str:
    widths = {column: max(len(column), *(len(str(row[column])) for row in rows))
              for column in COLUMNS}
    lines = ["  ".join(column.rjust(widths[column]) for column in COLUMNS)]
    lines += ["  ".join(str(row[column]).rjust(widths[column]) for column in COLUMNS)
              for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swiss-pairing", type=int, metavar="N", action="append",
                        help="entrants of a Swiss round to pair (repeat for several sizes)")
    parser.add_argument("--history", type=int, default=5, help="rounds played before it")
    parser.add_argument("--table-size", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--url", help="a running server in real mode, with its workers")
    parser.add_argument("--admin-token", help="the server's admin token (with --url)")
    parser.add_argument("--target", type=int, default=25, help="each gin match's target")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds each tournament may take")
    args = parser.parse_args()
    if not args.swiss_pairing and not args.url:
        parser.error("nothing to measure: give --swiss-pairing N or --url URL")
    failed = False
    if args.swiss_pairing:
        rows = [swiss_pairing(entrants, args.history, args.table_size, args.seed)
                for entrants in args.swiss_pairing]
        print(table(rows))
        failed |= any(row["violations"] for row in rows)
    if args.url:
        for summary in tournaments(args.url, args.admin_token, args.target, args.timeout):
            print(json.dumps(summary))
            failed |= summary["status"] != "complete" or not summary["verified"]
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
