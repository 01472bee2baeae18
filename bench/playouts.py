"""Random complete gin hands per second, in the pure domain (no Redis, no HTTP).

    python bench/playouts.py [--hands 300] [--seed 1]

Each hand is dealt from a fresh seed and played with random legal actions until the
scoring command has recorded it; legal actions, decide, evolve and scoring are all
included. Two random players are measured: ``uniform`` picks any legal action (knocking
most of the time it may), which makes long hands; ``sensible`` knocks whenever it may
and otherwise discards at random among the cards that leave the least deadwood, closer
to the length of real hands; ``basic`` is two ``basic`` bots (``domain.bots``), each
move chosen from the seat's information state, which shows what a bot's move costs.
Prints JSON with hands_per_second and events_per_hand for each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.playouts import Policy, bots, keen_to_end, new_match, sensibly, steps  # noqa: E402

POLICIES: dict[str, Policy] = {"uniform": keen_to_end, "sensible": sensibly,
                               "basic": bots("basic", "basic")}


def one_hand(rng: random.Random, policy: Policy) -> int:
    """Play one hand to its score; returns the number of events it took."""
    state, log, seed = new_match(rng, 2)
    for _, events in steps(rng, state, seed, policy=policy):
        log.extend(events)
        if any(event.type == "HandScored" for event in events):
            return len(log)
    return len(log)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    report = {}
    for name, policy in POLICIES.items():
        rng = random.Random(args.seed)
        started = time.perf_counter()
        events = sum(one_hand(rng, policy) for _ in range(args.hands))
        elapsed = time.perf_counter() - started
        report[name] = {"hands": args.hands, "seconds": round(elapsed, 3),
                          "hands_per_second": round(args.hands / elapsed, 1),
                          "events_per_hand": round(events / args.hands, 1)}
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
