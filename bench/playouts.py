"""Random complete gin hands per second: the domain, the fast engine and OpenSpiel, in one
run.

    python bench/playouts.py [--seconds 2] [--rounds 3] [--seed 1]

A hand is one deal played to its score, the same for all three: two players, one deck,
default options, dealt from a fresh shuffle.

- ``domain``: the rules as the server runs them (tests/playouts.py: the match's first
  deal from its seed, ``legal_actions``, ``decide``, ``evolve`` and the scoring step).
- ``fast``: ``domain.simulation.GinHand`` dealt from a shuffled deck and played out
  (``GinHand.playout``), the engine a search runs its playouts on.
- ``openspiel``: ``pyspiel.load_game("gin_rummy")`` driven from Python, chance nodes
  (the deal and every stock card) sampled, one game from the initial state to terminal.
  OpenSpiel's gin_rummy game is one hand; it has no big gin, and its knocker lays melds
  and its defender lay-offs as moves of their own.

Two random players, each on every engine: ``random`` picks uniformly among the engine's
legal moves (a knock is one move in OpenSpiel, one per discard here); ``knocker`` knocks
whenever it may, and otherwise plays at random. ``moves_per_hand`` (decisions of the
players, chance excluded) and ``knocked`` (hands that ended with a knock rather than a
drawn hand at the wall) show the hands are alike. Timing: CPU time of this process, each
engine played for ``--seconds`` per round, rounds interleaved; the median round is given.
Needs ``pip install -e '.[bench]'`` for OpenSpiel (skipped when it is missing).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.gin import GIN  # noqa: E402
from domain.gin.options import GinOptions  # noqa: E402
from domain.simulation import GinHand, knocker, uniform  # noqa: E402
from domain.steps import decide_step, pending_step  # noqa: E402
from tests.playouts import new_match  # noqa: E402

CLOCK = time.process_time
Hand = Callable[[random.Random, bool], tuple[int, bool]]
"""Plays one hand (the flag: the knocker policy); returns (moves made, ended by a knock)."""


def domain_hand(rng: random.Random, knocks: bool) -> tuple[int, bool]:
    state, _, secrets = new_match(rng, 2)
    made = 0
    while True:
        step = pending_step(GIN, state)
        if step is not None:
            for event in decide_step(GIN, state, step, secrets):
                if event.type == "HandScored":
                    return made, event.data["result"] != "draw"
        seat = state.turn
        actions = GIN.legal_actions(state, seat)
        enders = [a for a in actions if a["type"] in ("knock", "big_gin")] if knocks else []
        choices = enders or actions
        action = choices[int(rng.random() * len(choices))]
        for event in GIN.decide(state, GIN.command(seat, action)):
            state = GIN.evolve(state, event)
        made += 1


OPTIONS = GinOptions()


def fast_hand(rng: random.Random, knocks: bool) -> tuple[int, bool]:
    order = list(range(52))
    rng.shuffle(order)
    hand = GinHand.deal(order, int(rng.random() * 2), OPTIONS)
    result = hand.playout(rng, knocker if knocks else uniform)
    return 0, result.result != "draw"


def fast_hand_counted(rng: random.Random, knocks: bool) -> tuple[int, bool]:
    """``fast_hand`` move by move, to count its moves (not timed)."""
    order = list(range(52))
    rng.shuffle(order)
    hand = GinHand.deal(order, int(rng.random() * 2), OPTIONS)
    policy = knocker if knocks else uniform
    made = 0
    while hand.result is None:
        hand.apply(policy(hand, rng))
        made += 1
    return made, hand.result.result != "draw"


def openspiel_hands() -> Hand | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    knock = pyspiel.gin_rummy.KNOCK_ACTION

    def hand(rng: random.Random, knocks: bool) -> tuple[int, bool]:
        state = game.new_initial_state()
        made = 0
        while not state.is_terminal():
            legal = state.legal_actions()  # at a chance node: the outcomes, all alike likely
            if state.is_chance_node():
                state.apply_action(legal[int(rng.random() * len(legal))])
                continue
            action = knock if knocks and knock in legal else legal[int(rng.random() * len(legal))]
            state.apply_action(action)
            made += 1
        return made, any(state.returns())

    return hand


def check_uniform_chance(rng: random.Random) -> None:
    """OpenSpiel's chance outcomes in gin_rummy are all alike likely (each unseen card), so
    picking uniformly among them samples them; checked once on a hand."""
    import pyspiel

    state = pyspiel.load_game("gin_rummy").new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            assert len({p for _, p in state.chance_outcomes()}) == 1
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.random() * len(legal))])


def timed(play: Hand, rng: random.Random, knocks: bool, seconds: float) -> float:
    """Hands per CPU second over at least ``seconds``."""
    hands = 0
    start = CLOCK()
    while True:
        play(rng, knocks)
        hands += 1
        elapsed = CLOCK() - start
        if elapsed >= seconds:
            return hands / elapsed


def shape(play: Hand, rng: random.Random, knocks: bool, hands: int) -> dict[str, float]:
    played = [play(rng, knocks) for _ in range(hands)]
    return {"moves_per_hand": round(statistics.fmean(made for made, _ in played), 1),
            "knocked": round(sum(knocked for _, knocked in played) / hands, 3)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per engine and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    engines: dict[str, tuple[Hand, Hand]] = {"domain": (domain_hand, domain_hand),
                                             "fast": (fast_hand, fast_hand_counted)}
    openspiel = openspiel_hands()
    if openspiel is not None:
        check_uniform_chance(rng)
        engines["openspiel"] = (openspiel, openspiel)
    report: dict[str, Any] = {"clock": "process CPU time", "seconds_per_round": args.seconds,
                              "rounds": args.rounds}
    for policy, knocks in (("random", False), ("knocker", True)):
        rates: dict[str, list[float]] = {name: [] for name in engines}
        for _ in range(args.rounds):
            for name, (play, _) in engines.items():
                rates[name].append(timed(play, rng, knocks, args.seconds))
        section: dict[str, Any] = {}
        for name, (_, counted) in engines.items():
            section[name] = {"hands_per_second": round(statistics.median(rates[name]), 1),
                             **shape(counted, rng, knocks, 200)}
        if openspiel is not None:
            section["fast_to_openspiel"] = round(section["fast"]["hands_per_second"]
                                                 / section["openspiel"]["hands_per_second"], 2)
        report[policy] = section
    if openspiel is None:
        report["openspiel"] = "not installed (pip install -e '.[bench]')"
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
