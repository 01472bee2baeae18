"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS: Cowling, Powley and
White, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012, algorithm 3), with the
root's moves compared on the same deals.

The tree is the searching seat's: a node is the sequence of moves from the root as that
seat would see them played (a draw from the stock is one move, whatever card it brings).
The search runs in rounds. Each round samples a determinisation (a whole deal the seat
cannot tell from the real one) and, from it, tries every root move once:

1. below the root, it descends the tree, at each node choosing by UCT among the children
   whose moves are legal in that deal; a child's exploration term counts the rounds in
   which it was available rather than its parent's visits (the paper's fix for moves
   that are only sometimes legal);
2. it adds one untried move's node, best-looking first (``Game.candidates`` orders them,
   and progressive widening lets a node try only its first few until it has been
   visited more);
3. it plays the deal out with the game's default policy and credits each node on the
   path with the reward of the seat that made its move.

Trying every root move on every sampled deal is this module's one departure from the
paper's algorithm 3, which samples a deal per iteration and lets UCT pick the root move
too: at a few hundred playouts a move, the luck of the deal swamps the differences
between good moves unless they are compared on the same deals (measured in
bench/bots.py: the paired root wins clearly). The move played is the root child with
the best mean reward, the first candidate among equals.

A game may leave the other seats' moves to its default policy (one candidate each), so
the tree branches on the searching seat's own decisions only: an opponent node chosen by
UCT would play as if it saw the deal, which no opponent does.

Every random number comes from the ``rng`` given and nodes are kept in insertion order,
so a seed repeats the search exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

S = TypeVar("S")
M = TypeVar("M", bound=Hashable)

EXPLORATION = 0.7
"""UCT's exploration constant for rewards in [0, 1] (about 1/sqrt(2), as UCB1 prescribes)."""


class Game(Protocol[S, M]):
    """What the search needs of a game seen from one seat."""

    def sample(self, rng: random.Random) -> S:
        """A determinisation: a full state consistent with what the seat knows."""
        ...

    def fork(self, state: S) -> S:
        """A copy of ``state`` that ``apply`` may change without changing ``state``."""
        ...

    def to_move(self, state: S) -> int:
        """The seat whose move it is in ``state`` (not terminal)."""
        ...

    def candidates(self, state: S) -> Sequence[M]:
        """The moves worth searching in ``state``, best-looking first; none once the hand
        is over."""
        ...

    def apply(self, state: S, move: M) -> S:
        """``state`` after ``move`` (it may be ``state`` itself, changed)."""
        ...

    def playout(self, state: S, rng: random.Random) -> Sequence[float]:
        """Play ``state`` on to its end (or a horizon); each seat's reward, in [0, 1]."""
        ...


class Node(Generic[M]):
    """One information set of the searching seat, reached by a move."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[M, Node[M]] = {}
        self.visits = 0
        self.available = 1
        self.reward = 0.0
        """The summed reward of the seat that moved into this node."""

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


@dataclass(frozen=True)
class Choice(Generic[M]):
    """The search's answer: the move, and the mean reward of each root move."""

    move: M
    means: dict[M, float]
    rounds: int

    def unless_beaten(self, other: M, margin: float) -> M:
        """``other``, unless it was searched and the search's move rates more than
        ``margin`` better: at a small budget the search's ranking of close moves is
        mostly noise, and a move chosen by a sounder rule should stand."""
        if other in self.means and self.means[self.move] < self.means[other] + margin:
            return other
        return self.move


def widening(visits: int) -> int:
    """How many of its candidates a node visited ``visits`` times may try: two at first,
    one more as the visits pass each square (progressive widening)."""
    return 2 + math.isqrt(visits)


def search(game: Game[S, M], rng: random.Random, playouts: int,
           exploration: float = EXPLORATION) -> Choice[M]:
    """About ``playouts`` playouts, shared out in rounds among the root's moves (at least
    one round); the root move with the best mean reward."""
    first = game.sample(rng)
    moves = list(game.candidates(first))
    if not moves:
        raise ValueError("the root has no move to search")
    seat = game.to_move(first)
    rounds = max(1, playouts // len(moves))
    children: dict[M, Node[M]] = {move: Node() for move in moves}
    for number in range(rounds):
        deal = first if number == 0 else game.sample(rng)
        for move, child in children.items():
            state = game.apply(game.fork(deal), move)
            _descend(game, child, seat, state, rng, exploration)
    means = {move: child.mean() for move, child in children.items()}
    best = max(moves, key=lambda move: means[move])
    return Choice(best, means, rounds)


def _descend(game: Game[S, M], top: Node[M], seat: int, state: S, rng: random.Random,
             exploration: float) -> None:
    """One iteration below a root move's node ``top``: select, expand, play out, credit."""
    node, path = top, [(top, seat)]
    while True:
        moves = game.candidates(state)
        if not moves:
            break
        mover = game.to_move(state)
        moves = moves[:widening(node.visits)]
        child, move = _select(node, moves, exploration)
        state = game.apply(state, move)
        if child is None:
            child = node.children[move] = Node()
            path.append((child, mover))
            break
        path.append((child, mover))
        node = child
    rewards = game.playout(state, rng)
    for visited, mover in path:
        visited.visits += 1
        visited.reward += rewards[mover]


def _select(node: Node[M], moves: Sequence[M], exploration: float
            ) -> tuple[Node[M] | None, M]:
    """The first untried move (no node yet), or the available child with the highest
    upper confidence bound; every available child's availability counts this visit."""
    children = node.children
    untried = None
    best, best_move, best_bound = None, moves[0], -1.0
    for move in moves:
        child = children.get(move)
        if child is None:
            if untried is None:
                untried = move
            continue
        child.available += 1
        bound = child.reward / child.visits + \
            exploration * math.sqrt(math.log(child.available) / child.visits)
        if bound > best_bound:
            best, best_move, best_bound = child, move, bound
    if untried is not None:
        return None, untried
    return best, best_move
