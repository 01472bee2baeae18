"""A tournament's rounds are the workers' owed work: a worker ``kill -9`` at any moment,
as a round's last match ends or while a new round's tables are being created, loses
nothing and repeats nothing. The next worker finds the tournament still due, pays what
is left of the step, and every round is paired exactly once, each table's match created
once under the id its pairing derived. Afterwards the tournament's export verifies
offline: the chain, every pairing from the results before it, every result from its
match's own log."""

from __future__ import annotations

import os
import random
import time
from collections import Counter

from domain.audit import parse_ndjson
from domain.tournaments.audit import verify_tournament
from domain.variants import VARIANTS
from tests.faults.conftest import Stack

ENTRANTS = 5
ROUNDS = 5
"""A round robin of five: five rounds of two tables and a bye."""
DONE_S = 240.0
POLL_S = 0.01
"""How often the test reads the tournament: far shorter than a round (two whole matches),
so it sees every round begin however fast the machine plays them."""
MID_ROUND_CHANCE = 0.004
"""The chance, at each read once a worker has been spared, of killing it mid-round: about
once in two and a half seconds."""
SPARED_S = 3.0
"""How long a started worker runs before it may be killed mid-round: longer than the 2 s
lease a killed one left on the tournament's row, so however slowly a loaded machine starts
workers, each one gets to pay a step."""


def test_a_worker_killed_between_and_during_rounds_pairs_each_round_once(stack: Stack) -> None:
    rng = random.Random(int(os.environ.get("RUMMY_FAULTS_SEED", time.time_ns() % 100_000)))
    stack.worker.start()
    stack.worker.wait_registered()
    created = stack.http.request("POST", "/v1/tournaments", token=stack.admin, body={
        "variant": "gin", "options": {"target": 10}, "format": "round_robin",
        "players": [{"bot": "basic"} for _ in range(ENTRANTS)]})
    assert created.status == 201, created.body
    tournament_id = created.body["id"]
    path = f"/v1/tournaments/{tournament_id}"
    deadline = time.monotonic() + DONE_S
    kills, seen_round, spared_until = 0, 1, time.monotonic() + SPARED_S
    while time.monotonic() < deadline:
        state = stack.http.request("GET", path).body
        if state["status"] == "complete":
            break
        # every round's start, and now and then mid-round once the worker has been spared
        mid_round = time.monotonic() > spared_until and rng.random() < MID_ROUND_CHANCE
        if state["round"] != seen_round or mid_round:
            seen_round = state["round"]
            time.sleep(rng.uniform(0.0, 0.05))
            stack.worker.kill9()
            kills += 1
            time.sleep(rng.uniform(0.05, 0.3))
            stack.worker.start()
            stack.worker.wait_registered()
            spared_until = time.monotonic() + SPARED_S
        time.sleep(POLL_S)
    final = stack.http.request("GET", path).body
    assert final["status"] == "complete", (final, stack.logs())
    assert kills >= ROUNDS - 1

    export = stack.http.request("GET", f"{path}/export", headers={
        "Accept": "application/octet-stream"})
    assert export.status == 200
    records = parse_ndjson(str(export.body).splitlines())
    own = [r for r in records if "match_id" not in r]
    paired = Counter(r["data"]["round"] for r in own if r["type"] == "RoundPaired")
    assert paired == Counter(range(1, ROUNDS + 1))  # every round paired once
    tables = [t["match_id"] for r in own if r["type"] == "RoundPaired"
              for t in r["data"]["tables"]]
    assert len(tables) == len(set(tables)) == ROUNDS * 2
    recorded = Counter(r["data"]["match_id"] for r in own if r["type"] == "MatchRecorded")
    assert set(recorded) == set(tables) and set(recorded.values()) == {1}
    listed = stack.http.request("GET", f"/v1/matches?tag=tournament:{tournament_id}&limit=50",
                                token=stack.admin).body["matches"]
    assert sorted(m["id"] for m in listed) == sorted(tables)  # each match created once
    report = verify_tournament(records, VARIANTS)
    assert report.ok, report.to_dict()
