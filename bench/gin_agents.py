"""Two outside gin players for bench/bots.py to measure the expert against.

Both decide from the seat's information state (``domain.bots.information``), as the
levels do, and answer with one of its legal actions.

- ``novice``: RLCard's ``GinRummyNoviceRuleAgent`` (datamllab/rlcard,
  rlcard/models/gin_rummy_rule_models.py, by William Hale; MIT licence), ported to our
  action objects. Its logic: when it can go gin it does; else when it can knock it
  picks one of its knocks at random; else when it must discard it picks at random among
  the discards that leave the least deadwood; otherwise (drawing) it picks any legal
  action at random. RLCard's game has no upcard offer and no big gin: here the offer's
  take-or-pass is a draw like any other (random), and big gin counts as going gin.
- ``greedy``: the greedy deadwood player: takes the discard (or the upcard) when that
  lowers its deadwood, knocks as early as allowed (the knock leaving the least
  deadwood), and otherwise discards the card that leaves the least deadwood, the dearest
  of equals.
"""

from __future__ import annotations

import random
from typing import Any

from domain.bots.basic.knocking import deadwood_after_taking, solver
from domain.bots.information import InfoState
from domain.bots.policies import PASS, STOCK
from domain.cards import pip_value, sort_key, without
from domain.knocking import DISCARD

Action = dict[str, Any]
BIG_GIN: Action = {"type": "big_gin"}


def novice(info: InfoState, rng: random.Random) -> Action:
    """RLCard's novice rule agent (see the module's docstring)."""
    legal = info.legal_actions()
    if info.phase != DISCARD:
        return dict(rng.choice(legal))
    if BIG_GIN in legal:
        return dict(BIG_GIN)
    left = _deadwood_left(info, legal)
    knocks = [action for action in legal if action["type"] == "knock"]
    gins = [action for action in knocks if left[action["discard"]] == 0]
    if gins or knocks:
        return dict(rng.choice(gins or knocks))
    discards = [action for action in legal if action["type"] == "discard"]
    least = min(left[action["card"]] for action in discards)
    return dict(rng.choice([action for action in discards if left[action["card"]] == least]))


def greedy(info: InfoState, rng: random.Random) -> Action:
    """The greedy deadwood player (see the module's docstring); ``rng`` is unused."""
    legal = info.legal_actions()
    if info.phase != DISCARD:
        take = {"type": "draw", "source": "discard"}
        if take in legal and \
                deadwood_after_taking(info, take) < solver(info).deadwood(info.hand):
            return dict(take)
        return dict(STOCK if STOCK in legal else PASS)
    if BIG_GIN in legal:
        return dict(BIG_GIN)
    left = _deadwood_left(info, legal)
    cards = [action.get("card", action.get("discard")) for action in legal]
    card = min(cards, key=lambda card: (left[card], -pip_value(card), sort_key(card)))
    knock = {"type": "knock", "discard": card}  # legal whenever any knock is
    return knock if knock in legal else {"type": "discard", "card": card}


def _deadwood_left(info: InfoState, legal: list[Action]) -> dict[str, int]:
    """The deadwood each legal discard (or knock discard) leaves in the hand."""
    melds = solver(info)
    cards = {action.get("card", action.get("discard")) for action in legal} - {None}
    return {card: melds.deadwood(without(info.hand, card)) for card in cards}
