"""Meld solver benchmark: cold solves of distinct hands, in microseconds per hand.

    python bench/solver.py --hands FILE          # one hand per line; prints every result
    python bench/solver.py --random N [--size 10|11] [--seed S] [--jokers J] [--decks D]
    python bench/solver.py --variant gem --random N [--size 11|12] [--diamond 7D]

A hand holding one card more than the variant deals (gin 11, gem 12) is scored as the
deadwood after its best discard (``best_discard``), any other hand by ``deadwood``. Gem
hands use the gem solver of one designated diamond (stashes and Queen's Diamonds). Each
repetition first clears the solver's result caches and every timed hand is distinct, so
no time is saved by a cache hit; the reported figure is the median over the repetitions.
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
from domain.gem.solver import gem_solver
from domain.melds import MeldSolver, gin_solver

DRAWN_SIZE = {"gin": 11, "gem": 12}
"""The hand size of a player who has drawn and not yet discarded."""
SIZES = {"gin": (10, 11), "gem": (11, 12)}


def score(solver: MeldSolver, hand: Sequence[str], drawn: int = DRAWN_SIZE["gin"]) -> int:
    """What a player of this hand cares about: deadwood, after the discard for a drawn hand."""
    if len(hand) == drawn:
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


def time_per_hand(solver: MeldSolver, hands: Sequence[Sequence[str]], repeat: int,
                  drawn: int = DRAWN_SIZE["gin"]) -> float:
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
                score(solver, hand, drawn)
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
    parser.add_argument("--variant", choices=("gin", "gem"), default="gin")
    parser.add_argument("--diamond", default="7D", help="gem: the designated diamond")
    parser.add_argument("--size", type=int, choices=(10, 11, 12),
                        help="random hand size (default: both of the variant's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, default=1, choices=(1, 2))
    parser.add_argument("--jokers", type=int, default=0, help="jokers in the random deck")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (median)")
    args = parser.parse_args(argv)

    drawn = DRAWN_SIZE[args.variant]
    solver = gem_solver(args.diamond) if args.variant == "gem" else gin_solver()
    if args.hands:
        hands = read_hands(args.hands)
        results = [{"hand": list(hand), "deadwood": score(solver, hand, drawn)} for hand in hands]
        report = {
            "hands": len(hands),
            "us_per_hand": time_per_hand(solver, hands, args.repeat, drawn),
            "results": results,
        }
    else:
        sizes = [args.size] if args.size else list(SIZES[args.variant])
        by_size = {}
        everything = []
        for size in sizes:
            hands = random_hands(args.random, size, args.seed + size, args.decks, args.jokers)
            by_size[str(size)] = time_per_hand(solver, hands, args.repeat, drawn)
            everything.extend(hands)
        report = {
            "variant": args.variant,
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
