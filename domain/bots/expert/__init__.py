"""The ``expert`` level: search over deals the seat cannot tell from the real one.

- Gin and gem: information-set Monte Carlo tree search (``tree``, SO-ISMCTS). On a
  two-player, one-deck, joker-free gin table it runs on the fast engine
  (``fast_gin``), and a move the search does not rate clearly better (``GIN_MARGIN``)
  gives way to the move counted exactly (``outs``: the discard and the draw that leave
  the best chance to knock within two draws): at a move's budget the playouts cannot
  tell close moves apart, the count can. On every other knock table the search runs on
  the domain's own rules (``knocking``).
- Rummy and rami: ``rummy``.

Like every level it is handed the seat's ``InfoState`` only; its budget is a number of
iterations (``budget``), so a seed always gives the same move.
"""

from __future__ import annotations

import random

from domain.bots.basic import knocking as basic
from domain.bots.expert import budget, fast_gin, knocking, rummy, tree
from domain.bots.expert.rewards import Reward
from domain.bots.information import InfoState
from domain.bots.policies import Action
from domain.gem.state import GemState
from domain.rummy.state import RummyState
from domain.simulation import moves

GIN_PLAYOUTS = 200
"""Fast-engine playouts in the default budget (calibrated with bench/bot_moves.py)."""
GIN_MARGIN = 0.03
"""How much better (in the chance to win the hand) the search must rate a move than
the counted one to play it instead."""
KNOCKING_PLAYOUTS = 24
"""Domain iterations in the default budget, gem and the other gin tables."""
WIDE_GEM_PLAYOUTS = 16
"""The same at a three-seat gem table, whose deep draws give each decision more moves
to try (measured there at 24: a median move of about 60 ms)."""
GIN_REWARD = Reward(scale=40, win_weight=1.0)


def play(info: InfoState, rng: random.Random, *, budget_ms: int | None = None) -> Action:
    """The expert's action for ``info``'s seat within ``budget_ms`` (default
    ``budget.DEFAULT_MS``)."""
    legal = info.legal_actions()
    if len(legal) == 1:
        return dict(legal[0])
    if isinstance(info.table, RummyState):
        return rummy.play(info, rng, budget.scaled(rummy.ROLLOUTS, budget_ms))
    if fast_gin.supports(info):
        game = fast_gin.FastGin.of(info)
        choice = tree.search(game, rng, budget.scaled(GIN_PLAYOUTS, budget_ms))
        counted = game.counted()
        if counted is None:
            counted = moves.move(basic.play(info))
        return game.action(choice.unless_beaten(counted, GIN_MARGIN))
    slow = knocking.Knocking(info, GIN_REWARD)
    playouts = WIDE_GEM_PLAYOUTS if isinstance(info.table, GemState) and \
        info.table.seats > 2 else KNOCKING_PLAYOUTS
    found = tree.search(slow, rng, budget.scaled(playouts, budget_ms))
    return dict(found.move)
