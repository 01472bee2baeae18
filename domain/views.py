"""What every family's view shares: the match's head (where it stands, in the same keys
for every variant) and its end (how the hand or match ended, and what the full viewer
sees besides). A family adds its own table and a seat's section."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.controls import COMPLETE, ended_of
from domain.steps import DEALING_PHASE, awaiting_step
from domain.viewer import Viewer


def head(state: Any, game: str) -> dict[str, Any]:
    """The keys every variant's view starts with."""
    return {
        "variant": game,
        "options": state.options.to_dict(),
        "phase": state.phase,
        "awaiting": awaiting_step(state),
        "dealer": state.dealer,
        "turn": state.turn,
        "hand_number": state.hand_number,
        "commitment": state.commitment,
        "scores": list(state.scores),
        "stock_count": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "hands": [dict(result) for result in state.results],
    }


def move_kinds(legal: Sequence[dict[str, Any]]) -> list[str]:
    """The kinds of move in ``legal``, each once, in its order: what a front end enables
    (a "Lay down" control, a "Knock" button) without reading every ready-made action.
    Rummy's lay-downs are composed (any legal placement is accepted): its legal actions
    hold one ready example of each kind it can make, never every combination."""
    return list(dict.fromkeys(action["type"] for action in legal))


def ends(out: dict[str, Any], state: Any, viewer: Viewer,
         completion_keys: Sequence[str]) -> dict[str, Any]:
    """``out`` with how the hand ended (until the next deal), the match's result once it
    is complete, how it was ended early, and every hand and the stock for the full
    viewer."""
    if state.ending is not None and state.phase != DEALING_PHASE:
        out["ending"] = dict(state.ending)
    if state.phase == COMPLETE and state.completion is not None:
        out.update({key: state.completion[key] for key in completion_keys})
    ended = ended_of(state)
    if ended is not None:
        out["ended"] = ended
    if viewer.is_full:
        out["all_hands"] = [list(hand) for hand in state.hands]
        out["stock"] = list(state.stock)
    return out
