"""Move policies over a list of legal actions: the one place every automatic move comes from.

A policy sees only action objects (a seat's ``legal_actions``, from a state or from a
view over HTTP) and what it is told (``best_discards``: a view's ``best_discard``
advice), so it is honest wherever it runs:

- ``safe``: the clock's automatic move (docs/tournaments.md "Match controls and clocks").
  The verifier re-runs it on stored logs (``domain.clocks.decide_timeout``), so it must
  never change: a different choice would make old logs fail verification.
- ``eager``: end the hand whenever allowed (big gin, then a knock), else much as
  ``safe``: a quick, deterministic game for tests that drive a table through the API
  or a browser.
- ``uniform``: any legal action, each as likely (the ``random`` bot level).
- ``keen``: random, but preferring some actions with a given probability, so random
  playouts end their hands and show every kind of move (tests and benches).

The bot levels (``domain.bots``) build on an information state instead; ``uniform`` is
the ``random`` level's whole policy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import Any

from domain.cards import JOKER, rank_of

Action = dict[str, Any]
Wanted = Callable[[Action], bool]

ENDERS = ("knock", "big_gin")
"""The actions that end a gin or gem hand."""
PLACEMENTS = ("lay_down", "lay_off", "exchange_joker")
"""The actions that put cards on a rummy table."""


PASS: Action = {"type": "pass"}
STOCK: Action = {"type": "draw", "source": "stock"}


def of_type(*kinds: str) -> Wanted:
    """An action of one of ``kinds``."""
    return lambda action: action.get("type") in kinds


def deep_draw(action: Action) -> bool:
    """A draw from below the top of gem's spread discard pile (docs/rules.md 2.6)."""
    return bool(action.get("depth", 1) > 1)


def discarding(cards: Collection[str]) -> Wanted:
    """A discard of one of ``cards``."""
    return lambda action: action.get("type") == "discard" and action.get("card") in cards


def uniform(rng: random.Random, legal: Sequence[Action]) -> Action:
    """Any of ``legal``, each as likely."""
    if not legal:
        raise ValueError("no legal action to choose from")
    return dict(rng.choice(legal))


def keen(rng: random.Random, legal: Sequence[Action],
         *preferences: tuple[Wanted, float]) -> Action:
    """A random action of ``legal``, keen on some: for each (wanted, probability) in
    order, if some actions are wanted, one of them with that probability; else any.

    The random numbers are drawn in a fixed pattern (one ``random()`` per preference
    with wanted actions, then one ``choice``), so a seeded playout repeats exactly.
    """
    for wanted, probability in preferences:
        found = [action for action in legal if wanted(action)]
        if found and rng.random() < probability:
            return dict(rng.choice(found))
    return uniform(rng, legal)


def _minus_points(card: str) -> int:
    """Rummy's minus points of a card in hand (docs/rules.md 3.6): ace 11, faces and ten 10."""
    rank = rank_of(card)
    return 11 if rank == 0 else min(rank + 1, 10)


def safe(legal: Sequence[Action], best_discards: Sequence[str] | None = None) -> Action | None:
    """A safe move for a seat whose time ran out, from its ``legal_actions``; None if none.

    Never takes the upcard, a discard or lays anything down, and never knocks: pass the
    upcard offer, else draw from the stock, else discard a card of ``best_discards`` (gin
    and gem: the view's ``best_discard``, the least deadwood), else the highest-valued
    non-joker (rummy/rami).
    """
    for quiet in (PASS, STOCK):
        if quiet in legal:
            return dict(quiet)
    discards = [a for a in legal if a.get("type") == "discard"]
    for card in best_discards or ():
        for action in discards:
            if action["card"] == card:
                return dict(action)
    natural = [a for a in discards if a["card"] != JOKER]
    if not natural:
        return dict(discards[0]) if discards else None
    return dict(max(natural, key=lambda a: (_minus_points(a["card"]), rank_of(a["card"]))))


def eager(legal: Sequence[Action], best_discards: Collection[str] = ()) -> Action:
    """The first legal action of: big gin, a knock, passing the upcard, drawing from the
    stock, a discard of ``best_discards``, any discard; else the first legal action.

    Unlike ``safe`` it ends the hand when it may, and it takes the first of equally
    good discards in the order ``legal`` lists them.
    """
    wanted: tuple[Wanted, ...] = (
        of_type("big_gin"), of_type("knock"), lambda action: action == PASS,
        lambda action: action == STOCK, discarding(best_discards), of_type("discard"))
    for want in wanted:
        for action in legal:
            if want(action):
                return dict(action)
    if not legal:
        raise ValueError("no legal action to choose from")
    return dict(legal[0])
