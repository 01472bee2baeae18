"""Tournament formats at scale, in the pure domain: what pairing a Swiss round costs.

    python bench/tournament.py --swiss-pairing 1000 [--history 5] [--table-size 2] [--seed 7]

``--swiss-pairing N`` builds a synthetic Swiss tournament of N entrants over ``--history``
rounds: each round is paired by ``domain.tournaments.swiss.pair`` and decided by a seeded
RNG (two seats: the higher seed wins 55% of the games that are not drawn, 10% are drawn;
larger tables: a random finishing order). Then it times the pairing of the next round
(wall clock, one run) and prints a table: entrants, seconds, tables, byes, rematches (pairs
of tablemates who met before), floaters (entrants seated with someone of another score)
and the violations ``swiss.check`` finds, which must be none. Exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.tournaments import swiss  # noqa: E402
from domain.tournaments.model import Bye, Result, table_points  # noqa: E402

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
    args = parser.parse_args()
    if not args.swiss_pairing:
        parser.error("nothing to measure: give --swiss-pairing N")
    rows = [swiss_pairing(entrants, args.history, args.table_size, args.seed)
            for entrants in args.swiss_pairing]
    print(table(rows))
    if any(row["violations"] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
