"""What gin's and gem's views share: the table everyone sees, a seat's own section, and
the advice to a seat about to discard. One redaction path: a hidden card leaves only
through ``domain.redaction`` (events) or here, to the seat that holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import views
from domain.cards import sort_cards, without
from domain.knocking.turns import DISCARD
from domain.melds import MeldSolver
from domain.viewer import Viewer

Legal = Callable[[Any, int], list[dict[str, Any]]]
COMPLETION_KEYS = ("winner", "winners", "bonuses", "final_scores")


def table(state: Any, viewer: Viewer, game: str) -> dict[str, Any]:
    """The match as ``viewer`` may see it, but for a seat's own section (the service adds
    ``id`` and ``version``)."""
    out = views.head(state, game)
    out.update(knock_limit=state.knock_limit, hands_won=list(state.hands_won),
               seats=[{"seat": s, "name": name,
                       "hand_count": len(state.hands[s]) if state.hands else 0}
                      for s, name in enumerate(state.players)])
    return views.ends(out, state, viewer, COMPLETION_KEYS)


def seat_section(state: Any, seat: int, solver: MeldSolver, legal: Legal) -> dict[str, Any]:
    """What only ``seat`` sees: its hand, deadwood, best melds, legal actions and, when it
    is about to discard, the advice."""
    hand = state.hands[seat] if state.hands else ()
    best = solver.best(hand)
    out: dict[str, Any] = {
        "seat": seat,
        "hand": list(sort_cards(hand)),
        "deadwood": best.deadwood,
        "melds": [meld.to_dict() for meld in best.melds],
        "unmatched": list(best.unmatched),
        "legal_actions": legal(state, seat),
    }
    out["moves"] = views.move_kinds(out["legal_actions"])
    advised = best_discard(state, seat, solver, out["legal_actions"])
    if advised is not None:
        out["best_discard"] = advised
    return out


def best_discard(state: Any, seat: int, solver: MeldSolver,
                 legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The advice to ``seat`` about to discard (``best_legal_discard``); None when it is
    not that seat's discard. The clock's automatic move follows it too."""
    if state.turn != seat or state.phase != DISCARD:
        return None
    return best_legal_discard(solver, state.hands[seat], legal)


def best_legal_discard(solver: MeldSolver, hand: tuple[str, ...],
                       actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The least deadwood a legal discard leaves, and every legal discard that reaches it.

    Only the discards ``actions`` allow count: the card just taken from the pile
    (docs/rules.md 1.4) or one that would strand gem's deep card (2.6) is never advised.
    The solver's own best is used when one of its cards is legal, else every legal
    discard is tried.
    """
    legal = {action["card"] for action in actions if action["type"] == "discard"}
    if not legal:
        return None
    deadwood, cards = solver.best_discard(hand)
    allowed = [card for card in cards if card in legal]
    if not allowed:
        left = {card: solver.deadwood(without(tuple(hand), card)) for card in legal}
        deadwood = min(left.values())
        allowed = [card for card in dict.fromkeys(hand) if left.get(card) == deadwood]
    return {"deadwood": deadwood, "cards": list(dict.fromkeys(allowed))}
