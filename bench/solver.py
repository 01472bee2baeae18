"""Meld solver benchmark: cold solves of distinct hands, in microseconds per hand, beside
OpenSpiel's gin rummy utilities in the same run.

    python bench/solver.py --hands FILE          # one hand per line; prints every result
    python bench/solver.py --random N [--size 10|11] [--seed S] [--jokers J] [--decks D]
    python bench/solver.py --variant gem --random N [--size 11|12] [--diamond 7D]

A hand holding one card more than the variant deals (gin 11, gem 12) is scored as the
deadwood after its best discard (``discard_deadwood``), any other hand by ``deadwood``.
Gem hands use the gem solver of one designated diamond (stashes and Queen's Diamonds).

Gin's random hands come in two classes: ``random`` (any cards of the deck) and ``dense``
(the ace to nine of every suit, as tests/domain/test_melds.py's DENSE: most cards fit a
set and a run at once, which is what makes a hand hard). Each class is timed beside
OpenSpiel's ``GinRummyUtils.min_deadwood`` on the same hands, called from Python with
its own card numbers (for 11 cards it takes the best meld group, then drops the dearest
unmelded card: not always the least deadwood, so the bench counts its disagreements).
OpenSpiel has no gem melds, jokers or second deck: those classes have no anchor.

Timing: CPU time of this process (other processes on the machine do not count), each
repetition clears the solver's caches and times one pass of our solver and then one of
OpenSpiel's over the same distinct hands; the figure is the median over repetitions.
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.cards import JOKER, build_deck, card_index, parse_cards, standard_deck
from domain.gem.solver import gem_solver
from domain.melds import MeldSolver, gin_solver

DRAWN_SIZE = {"gin": 11, "gem": 12}
"""The hand size of a player who has drawn and not yet discarded."""
SIZES = {"gin": (10, 11), "gem": (11, 12)}
DENSE = tuple(card for card in standard_deck() if card[0] in "A23456789")
CLOCK = time.process_time


def score(solver: MeldSolver, hand: Sequence[str], drawn: int = DRAWN_SIZE["gin"]) -> int:
    """What a player of this hand cares about: deadwood, after the discard for a drawn hand."""
    if len(hand) == drawn:
        return solver.discard_deadwood(hand)
    return solver.deadwood(hand)


def read_hands(path: str) -> list[tuple[str, ...]]:
    hands = []
    for line in Path(path).read_text().splitlines():
        codes = [part for part in re.split(r"[\s,]+", line) if part]
        if codes:
            hands.append(parse_cards(codes))
    return hands


def random_hands(count: int, size: int, seed: int, deck: Sequence[str]) -> list[tuple[str, ...]]:
    """``count`` distinct random hands of ``size`` cards from ``deck`` (as a deal gives them)."""
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    hands = []
    while len(hands) < count:
        hand = tuple(rng.sample(deck, size))
        key = tuple(sorted(hand))
        if key not in seen:
            seen.add(key)
            hands.append(hand)
    return hands


def openspiel_utils() -> Any | None:
    """OpenSpiel's gin rummy utilities (``pip install -e '.[bench]'``), or None."""
    try:
        from pyspiel import gin_rummy
    except ImportError:
        return None
    return gin_rummy.GinRummyUtils(13, 4, 10)


def _pass(solve: Callable[[Any], object], hands: Sequence[Any]) -> float:
    start = CLOCK()
    for hand in hands:
        solve(hand)
    return (CLOCK() - start) / len(hands) * 1e6


def timed(contenders: dict[str, tuple[Callable[[Any], object], Sequence[Any]]], repeat: int,
          clear: Callable[[], None]) -> dict[str, float]:
    """Median microseconds per hand of each contender (a solve function and its inputs),
    over ``repeat`` rounds; each round clears the caches, then times one pass of each, in
    an order that turns round by round (no contender always goes first)."""
    passes: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_ in range(repeat):
            for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                clear()
                solve, hands = contenders[name]
                passes[name].append(_pass(solve, hands))
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: round(statistics.median(times), 3) for name, times in passes.items()}


def time_class(solver: MeldSolver, hands: Sequence[Sequence[str]], repeat: int,
               drawn: int, utils: Any | None) -> dict[str, Any]:
    """One class of hands of one size: the solver on card codes (its API), on masks (the
    one-deck tables the fast simulation calls) and OpenSpiel on its card numbers."""
    distinct = list({tuple(sorted(hand)): tuple(hand) for hand in hands}.values())
    size = len(distinct[0])
    if any(len(hand) != size for hand in distinct):
        raise ValueError("a class holds hands of one size")
    discard = size == drawn
    contenders = {"codes": (solver.discard_deadwood if discard else solver.deadwood, distinct)}
    masks = solver.masks
    one_deck = all(len(set(hand)) == len(hand) and JOKER not in hand for hand in distinct)
    if masks is not None and one_deck:
        as_masks = [sum(1 << card_index(card) for card in hand) for hand in distinct]
        contenders["masks"] = (masks.discard_deadwood if discard else masks.deadwood, as_masks)
    numbered = [[card_index(card) for card in hand] for hand in distinct] if one_deck else []
    if utils is not None:
        contenders["openspiel"] = (utils.min_deadwood, numbered)
    times = timed(contenders, repeat, solver.cache_clear)
    out: dict[str, Any] = {"hands": len(distinct), "us_per_hand": times}
    if utils is not None:
        out["ratio_to_openspiel"] = {name: round(times[name] / times["openspiel"], 3)
                                     for name in times if name != "openspiel"}
        out["openspiel_disagrees"] = sum(
            utils.min_deadwood(numbers) != score(solver, hand, drawn)
            for hand, numbers in zip(distinct, numbered, strict=True))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--hands", metavar="FILE", help="one hand per line")
    source.add_argument("--random", type=int, metavar="N", help="N random hands per class")
    parser.add_argument("--variant", choices=("gin", "gem"), default="gin")
    parser.add_argument("--diamond", default="7D", help="gem: the designated diamond")
    parser.add_argument("--size", type=int, choices=(10, 11, 12),
                        help="random hand size (default: both of the variant's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, default=1, choices=(1, 2))
    parser.add_argument("--jokers", type=int, default=0, help="jokers in the random deck")
    parser.add_argument("--repeat", type=int, default=7, help="timed passes (median)")
    parser.add_argument("--no-openspiel", action="store_true", help="skip the anchor")
    args = parser.parse_args(argv)

    drawn = DRAWN_SIZE[args.variant]
    solver = gem_solver(args.diamond) if args.variant == "gem" else gin_solver()
    plain_gin = args.variant == "gin" and args.decks == 1 and args.jokers == 0
    utils = None if args.no_openspiel or not plain_gin else openspiel_utils()
    if args.hands:
        hands = read_hands(args.hands)
        results = [{"hand": list(hand), "deadwood": score(solver, hand, drawn)} for hand in hands]
        scored = timed({"codes": (lambda hand: score(solver, hand, drawn), hands)},
                       args.repeat, solver.cache_clear)
        report = {"hands": len(hands), "us_per_hand": scored["codes"], "results": results}
        print(json.dumps(report))
        return 0
    decks = {"random": build_deck(args.decks, args.jokers)}
    if plain_gin:
        decks["dense"] = DENSE
    sizes = [args.size] if args.size else list(SIZES[args.variant])
    classes = {}
    for name, deck in decks.items():
        for size in sizes:
            hands = random_hands(args.random, size, args.seed + size, deck)
            classes[f"{name}-{size}"] = time_class(solver, hands, args.repeat, drawn, utils)
    report = {
        "variant": args.variant, "decks": args.decks, "jokers": args.jokers,
        "clock": "process CPU time", "repeat": args.repeat,
        "openspiel": "gin_rummy GinRummyUtils.min_deadwood" if utils is not None else
        ("not installed" if plain_gin and not args.no_openspiel else "no counterpart"),
        "classes": classes,
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
