"""How strong the bots are: win rates of hands and of matches, per pairing and variant,
with 95% Wilson intervals, played on the pure domain (no Redis, no HTTP).

    python bench/bots.py [--hands 400] [--variants gin,gem,rummy,rami]
                         [--pairings expert-basic,basic-random,...] [--jobs 2]
                         [--budget-ms 50] [--seed 1] [--quick-targets | --full-targets]

A pairing ``a-b`` plays two-seat matches of ``a`` against ``b`` until ``--hands`` hands
(rounds, in rummy and rami) have been decided (someone scored or went out; drawn hands and
void rounds are not counted). Match ``k`` seats ``a`` at seat ``k % 2`` and gives the
first deal to seat ``k // 2 % 2``, so neither side keeps the first-move edge; later
dealers follow the rules. Every match is seeded from ``--seed``, the variant, the pairing
and ``k``, so a run repeats exactly whatever ``--jobs`` is.

Players: the levels of ``domain.bots`` (``random``, ``basic``, ``expert`` at
``--budget-ms``) and, in gin, two outside agents (bench/gin_agents.py: RLCard's novice
rule agent and a greedy deadwood player). By default matches are shortened (gin 50 and gem
55 points instead of 100 and 110; rummy and rami keep one round per player), so that
matches and hands come from the same games; the table says which targets were used.

Each row: hands won by ``a`` of the decided hands, and matches won by ``a`` of the
decided matches (a rummy match whose lowest total is shared is not decided), each with
its 95% Wilson interval, and the CPU seconds the pairing took.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gin_agents import greedy, novice  # noqa: E402
from domain.bots import PLAYERS as LEVELS  # noqa: E402
from domain.bots import expert  # noqa: E402
from domain.bots.information import InfoState, information_state  # noqa: E402
from domain.evolving import replay  # noqa: E402
from domain.fairness import MatchSecrets  # noqa: E402
from domain.variants import VARIANTS  # noqa: E402
from tests.playouts import steps  # noqa: E402

Player = Callable[[InfoState, random.Random], dict[str, Any]]
OUTSIDE: dict[str, Player] = {"novice": novice, "greedy": greedy}
"""Players that only play gin."""
PAIRINGS = ("expert-basic", "basic-random", "expert-random", "expert-novice", "expert-greedy")
QUICK_TARGETS = {"gin": {"target": 50}, "gem": {"target": 55}, "rummy": {}, "rami": {}}
MAX_EVENTS = 20000
Z = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def wilson(wins: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``wins`` out of ``total``."""
    if not total:
        return 0.0, 1.0
    p = wins / total
    centre = p + Z * Z / (2 * total)
    spread = Z * math.sqrt(p * (1 - p) / total + Z * Z / (4 * total * total))
    scale = 1 + Z * Z / total
    return (centre - spread) / scale, (centre + spread) / scale


def player(name: str, budget_ms: int | None) -> Player:
    if name == "expert":
        return partial(expert.play, budget_ms=budget_ms)
    return OUTSIDE.get(name) or LEVELS[name]


@dataclass(frozen=True)
class MatchResult:
    """One match from side ``a``'s point of view."""

    hands_won: int
    hands_decided: int
    won: bool | None
    """Whether ``a`` won the match; None when it was not decided (or was cut short)."""
    cpu: float


def play_match(variant_name: str, pairing: str, k: int, seed: int, budget_ms: int | None,
               options: dict[str, Any]) -> MatchResult:
    """Match ``k`` of a pairing (see the module's docstring)."""
    started = time.process_time()
    variant = VARIANTS[variant_name]
    names = pairing.split("-")
    seat_a = k % 2
    seated = [names[0], names[1]] if seat_a == 0 else [names[1], names[0]]
    players = [player(name, budget_ms) for name in seated]
    rng = random.Random(f"{seed}-{variant_name}-{pairing}-{k}")
    secrets = MatchSecrets(rng.randbytes(16))
    parsed = variant.parse_options(options, 2)
    events = variant.start_match(["A", "B"], parsed, k // 2 % 2,
                                 variant.deal_for(parsed, secrets, 1))

    def policy(rng: random.Random, variant: Any, state: Any, seat: int) -> dict[str, Any]:
        info = information_state(variant, state, seat)
        return players[seat](info, random.Random(rng.randbytes(8)))

    won = decided = 0
    winner: int | None = None
    for _, new in steps(rng, replay(variant, events), secrets, variant, MAX_EVENTS, policy):
        for event in new:
            if event.type == "HandScored" and event.data["winner"] is not None:
                decided += 1
                won += event.data["winner"] == seat_a
            elif event.type == "MatchCompleted":
                winner = event.data.get("winner")
    return MatchResult(won, decided, None if winner is None else winner == seat_a,
                       time.process_time() - started)


@dataclass(frozen=True)
class Row:
    variant: str
    pairing: str
    options: dict[str, Any]
    hands: int
    hands_won: int
    hands_interval: tuple[float, float]
    matches: int
    matches_won: int
    matches_interval: tuple[float, float]
    cpu_seconds: float

    def line(self) -> str:
        a, b = self.pairing.split("-")
        low, high = self.hands_interval
        m_low, m_high = self.matches_interval
        target = self.options.get("target", "default")
        return (f"| {self.variant} | {a} vs {b} | {self.hands_won}/{self.hands} "
                f"{self.hands_won / max(self.hands, 1):.0%} [{low:.0%}, {high:.0%}] | "
                f"{self.matches_won}/{self.matches} "
                f"{self.matches_won / max(self.matches, 1):.0%} [{m_low:.0%}, {m_high:.0%}] | "
                f"{target} | {self.cpu_seconds:.0f} |")


HEADER = ("| variant | pairing | hands won by the first | matches won by the first | target "
          "| CPU s |\n|---|---|---|---|---|---|")


def results(pool: ProcessPoolExecutor | None, variant: str, pairing: str, args: Any,
            options: dict[str, Any]) -> Iterator[MatchResult]:
    """Match results in the order of ``k``, computed a batch at a time."""
    batch = max(1, 2 * args.jobs)
    k = 0
    while True:
        call = partial(play_match, variant, pairing, seed=args.seed, budget_ms=args.budget_ms,
                       options=options)
        ks = range(k, k + batch)
        yield from (pool.map(call, ks) if pool else map(call, ks))
        k += batch


def run_pairing(pool: ProcessPoolExecutor | None, variant: str, pairing: str, args: Any
                ) -> Row:
    options = dict(QUICK_TARGETS[variant]) if args.quick_targets else {}
    won = decided = matches = matches_won = 0
    cpu = 0.0
    for result in results(pool, variant, pairing, args, options):
        won += result.hands_won
        decided += result.hands_decided
        cpu += result.cpu
        if result.won is not None:
            matches += 1
            matches_won += result.won
        if decided >= args.hands:
            break
    return Row(variant, pairing, options, decided, won, wilson(won, decided), matches,
               matches_won, wilson(matches_won, matches), cpu)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--variants", default="gin,gem,rummy,rami")
    parser.add_argument("--pairings", default=",".join(PAIRINGS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    targets = parser.add_mutually_exclusive_group()
    targets.add_argument("--quick-targets", dest="quick_targets", action="store_true",
                         default=True, help="gin 50, gem 55 (the default)")
    targets.add_argument("--full-targets", dest="quick_targets", action="store_false",
                         help="the variants' own targets")
    args = parser.parse_args(argv)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    print(f"budget {args.budget_ms or expert.budget.DEFAULT_MS} ms; at least {args.hands} "
          "decided hands per pairing; two seats\n")
    print(HEADER, flush=True)
    for variant in args.variants.split(","):
        for pairing in args.pairings.split(","):
            if variant != "gin" and any(name in OUTSIDE for name in pairing.split("-")):
                continue
            row = run_pairing(pool, variant, pairing, args)
            print(json.dumps(asdict(row)) if args.json else row.line(), flush=True)
    if pool:
        pool.shutdown()


if __name__ == "__main__":
    main()
