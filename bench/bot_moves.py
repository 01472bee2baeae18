"""What a bot's move costs: CPU time of ``domain.bots.choose`` per move, per level and
variant, in the pure domain (no Redis, no HTTP).

    python bench/bot_moves.py [--hands 20] [--seed 1] [--levels random,basic,expert]

For each variant at two seats and at its most, every seat is played by the same level
for ``--hands`` hands (each from a fresh seed, to its score or 400 moves); every call to
``choose`` is timed (``time.process_time``: CPU, so a busy machine shows less) and the
moves' median, 95th percentile and maximum are printed as JSON, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.bots import LEVELS, choose  # noqa: E402
from domain.steps import decide_step, pending_step  # noqa: E402
from domain.variants import VARIANTS  # noqa: E402
from tests.playouts import new_match  # noqa: E402

MOVES_PER_HAND = 400


def hand_times(name: str, players: int, level: str, rng: random.Random) -> list[float]:
    """Seconds of CPU each ``choose`` took over one hand of ``level`` bots."""
    variant = VARIANTS[name]
    state, _, secrets = new_match(rng, players, variant)
    times: list[float] = []
    while len(times) < MOVES_PER_HAND:
        step = pending_step(variant, state)
        if step is not None:
            events = decide_step(variant, state, step, secrets)
        else:
            seat, seed = state.turn, rng.randbytes(8)
            started = time.process_time()
            action = choose(level, variant, state, seat, seed)
            times.append(time.process_time() - started)
            events = variant.decide(state, variant.command(seat, action))
        for event in events:
            state = variant.evolve(state, event)
        if any(event.type == "HandScored" for event in events):
            break
    return times


def measure(name: str, players: int, level: str, hands: int, seed: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}-{name}-{players}-{level}")
    times = sorted(t for _ in range(hands) for t in hand_times(name, players, level, rng))
    ms = [t * 1000 for t in times]
    return {"variant": name, "players": players, "level": level, "moves": len(ms),
            "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3), "max_ms": round(ms[-1], 3)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args(argv)
    rows = [measure(name, players, level, args.hands, args.seed)
            for name, variant in VARIANTS.items()
            for players in sorted({variant.min_players, variant.max_players})
            for level in args.levels.split(",")]
    json.dump(rows, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
