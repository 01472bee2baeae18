"""Meld solver benchmark: cold solves of distinct hands, in microseconds per hand.

    python bench/solver.py --hands FILE          # one hand per line; prints every result
    python bench/solver.py --random N [--size 10|11] [--seed S] [--jokers J] [--decks D]

An 11-card hand is scored as the deadwood after its best discard (``best_discard``),
any other hand by ``deadwood``. Each repetition first clears the solver's result caches
and every timed hand is distinct, so no time is saved by a cache hit; the reported
figure is the median over the repetitions.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.cards import build_deck, parse_cards
from domain.melds import MeldSolver, gin_solver


def score(solver: MeldSolver, hand: Sequence[str]) -> int:
    """What a player of this hand cares about: deadwood, after the discard for 11 cards."""
    if len(hand) == 11:
        return solver.best_discard(hand)[0]
    return solver.deadwood(hand)


def read_hands(path: str) -> list[tuple[str, ...]]:
    hands = []
    for line in Path(path).read_text().splitlines():
        codes = [part for part in re.split(r"[\s,]+", line) if part]
        if codes:
            hands.append(parse_cards(codes))
    return hands


def random_hands(
    count: int, size: int, seed: int, decks: int, jokers: int
) -> list[tuple[str, ...]]:
    """``count`` distinct random hands of ``size`` cards (as a deal would give them)."""
    rng = random.Random(seed)
    deck = build_deck(decks, jokers)
    seen: set[tuple[str, ...]] = set()
    hands = []
    while len(hands) < count:
        hand = tuple(rng.sample(deck, size))
        key = tuple(sorted(hand))
        if key not in seen:
            seen.add(key)
            hands.append(hand)
    return hands


def time_per_hand(solver: MeldSolver, hands: Sequence[Sequence[str]], repeat: int) -> float:
    """Median microseconds per hand over ``repeat`` cold passes over distinct hands."""
    distinct = list({tuple(sorted(hand)): hand for hand in hands}.values())
    if not distinct:
        return 0.0
    passes = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            solver.cache_clear()
            start = time.perf_counter()
            for hand in distinct:
                score(solver, hand)
            passes.append((time.perf_counter() - start) / len(distinct) * 1e6)
    finally:
        if gc_was_enabled:
            gc.enable()
    return round(statistics.median(passes), 3)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--hands", metavar="FILE", help="one hand per line")
    source.add_argument("--random", type=int, metavar="N", help="N random hands per size")
    parser.add_argument("--size", type=int, choices=(10, 11), help="random hand size (both)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, default=1, choices=(1, 2))
    parser.add_argument("--jokers", type=int, default=0, help="jokers in the random deck")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (median)")
    args = parser.parse_args(argv)

    solver = gin_solver()
    if args.hands:
        hands = read_hands(args.hands)
        results = [{"hand": list(hand), "deadwood": score(solver, hand)} for hand in hands]
        report = {
            "hands": len(hands),
            "us_per_hand": time_per_hand(solver, hands, args.repeat),
            "results": results,
        }
    else:
        sizes = [args.size] if args.size else [10, 11]
        by_size = {}
        everything = []
        for size in sizes:
            hands = random_hands(args.random, size, args.seed + size, args.decks, args.jokers)
            by_size[str(size)] = time_per_hand(solver, hands, args.repeat)
            everything.extend(hands)
        report = {
            "hands": len(everything),
            "decks": args.decks,
            "jokers": args.jokers,
            "us_per_hand": round(statistics.fmean(by_size.values()), 3),
            "us_per_hand_by_size": by_size,
        }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
