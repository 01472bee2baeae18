"""The post-game analysis: every decision of every seat of a finished match, weighed by the
expert.

A finished match's log reveals every hand's seed, so the states it folds to are exact.
For each position where a seat chose among two or more legal actions, the analysis
builds that seat's information state (what it knew then, nothing more), asks the expert
what it would have played (``domain.bots.expert``, at ``budget_ms``), and appraises both
moves on the same sampled deals (``expert.appraisal``): the cost of the move played is
the expected points it lost against the expert's choice (never below 0: a move the
samples rate higher than the expert's costs nothing), and its label follows from the
thresholds below. Everything is seeded, so two runs with one seed agree.

Points are the variant's own: a knock game's hand points (what the seat scores less what
the others score), rummy's minus points (the others' less the seat's after the next
seat's turn). The thresholds are in those points; rummy's are wider because a rummy hand
holds more of them.

Pure: events in, records out. A match that is not over is refused (``MatchNotOver``): an
analysis of a live match would tell a seat how to play.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from domain.bots import expert
from domain.bots.expert.appraisal import appraise
from domain.bots.information import InfoState, information_state
from domain.controls import FINAL_PHASES
from domain.events import CARD_DISCARDED, CARD_DRAWN, Event
from domain.evolving import folded
from domain.knocking.events import HAND_KNOCKED, UPCARD_PASSED
from domain.rummy.events import CARD_LAID_OFF, JOKER_EXCHANGED, MELDS_LAID_DOWN
from domain.rummy.state import RummyState
from domain.steps import pending_step
from domain.variant import Variant

FINE = "fine"
INACCURACY = "inaccuracy"
MISTAKE = "mistake"
BLUNDER = "blunder"
LABELS = (FINE, INACCURACY, MISTAKE, BLUNDER)

KNOCKING_THRESHOLDS = (2.0, 5.0, 10.0)
"""Gin and gem: the expected hand points lost from which a move is an inaccuracy, a
mistake, a blunder. A hand between fair players is worth about 20 points to its winner;
2 points is about a tenth of a hand's chance, and 10 half of one (throwing a made meld
when deadwood was there to throw costs about that)."""
RUMMY_THRESHOLDS = (4.0, 10.0, 20.0)
"""Rummy and rami: the same in minus points, whose hands hold three or four times the
points of a gin hand (a card is worth up to 11, a joker 20)."""
SAMPLES = 200
"""Deals each decision's two moves are appraised on, unless told otherwise."""


class MatchNotOver(ValueError):
    """An analysis was asked of a match still in play."""


@dataclass(frozen=True)
class Decision:
    """One decision of one seat, as the analysis weighs it; ``to_dict`` is its JSON."""

    index: int
    """Where the move's event is in the log (from 0)."""
    hand_number: int
    seat: int
    information: dict[str, Any]
    """What the seat knew (``information``)."""
    played: dict[str, Any]
    expert: dict[str, Any]
    cost: float
    """Expected points the move played lost against the expert's choice (0 when they
    are the same move)."""
    samples: int
    """Deals the two moves were appraised on (0 when they are the same move)."""
    label: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def label(cost: float, thresholds: Sequence[float]) -> str:
    """The label of a move that cost ``cost`` points, by ``thresholds`` (inaccuracy,
    mistake, blunder)."""
    reached = sum(cost >= threshold for threshold in thresholds)
    return LABELS[reached]


def thresholds_of(state: Any) -> tuple[float, float, float]:
    return RUMMY_THRESHOLDS if isinstance(state, RummyState) else KNOCKING_THRESHOLDS


def analyse(variant: Variant, events: Sequence[Event], *, seed: bytes = b"analysis",
            budget_ms: int | None = None, samples: int = SAMPLES) -> list[Decision]:
    """Every decision of the finished match ``events`` (its whole log), in log order."""
    return [weigh(variant, state, index, action, seed, budget_ms, samples)
            for index, state, action in decisions(variant, events)]


def decisions(variant: Variant, events: Sequence[Event]
              ) -> list[tuple[int, Any, dict[str, Any]]]:
    """(log index, state before the move, action played) for every move of a seat that
    had a choice; ``MatchNotOver`` unless the log ends the match."""
    state = variant.initial_state()
    found = []
    for index, event in enumerate(events):
        if not folded(event):
            continue
        action = played_action(event)
        if action is not None and _on_turn(variant, state, event.data["seat"]) \
                and len(variant.legal_actions(state, event.data["seat"])) > 1:
            found.append((index, state, action))
        state = variant.evolve(state, event)
    if state.phase not in FINAL_PHASES:
        raise MatchNotOver(f"the match is not over (phase {state.phase!r}): "
                           "only a finished match is analysed")
    return found


def _on_turn(variant: Variant, state: Any, seat: int) -> bool:
    return state.turn == seat and pending_step(variant, state) is None


def played_action(event: Event) -> dict[str, Any] | None:
    """The action object a seat's move event records, None for any other event."""
    data = event.data
    if event.type == CARD_DRAWN.name:
        action = {"type": "draw", "source": data["source"]}
        if data.get("depth", 1) > 1:
            action["depth"] = data["depth"]
        return action
    if event.type == UPCARD_PASSED.name:
        return {"type": "pass"}
    if event.type == CARD_DISCARDED.name:
        return {"type": "discard", "card": data["card"]}
    if event.type == HAND_KNOCKED.name:
        if data["kind"] == "big_gin":
            return {"type": "big_gin"}
        return {"type": "knock", "discard": data["discard"]}
    if event.type == MELDS_LAID_DOWN.name:
        return {"type": "lay_down", "melds": [_meld(meld) for meld in data["melds"]]}
    if event.type == CARD_LAID_OFF.name:
        action = {"type": "lay_off", "meld": data["meld"], "card": data["card"]}
        if data["card"] == "JK":
            action["represents"] = data["represents"]
        return action
    if event.type == JOKER_EXCHANGED.name:
        return {"type": "exchange_joker", "meld": data["meld"], "card": data["card"]}
    return None


def _meld(meld: dict[str, Any]) -> dict[str, Any]:
    """A table meld as a lay-down sends it (``represents`` only with a joker)."""
    out: dict[str, Any] = {"cards": list(meld["cards"])}
    if "JK" in meld["cards"]:
        out["represents"] = list(meld["represents"])
    return out


def weigh(variant: Variant, state: Any, index: int, played: dict[str, Any], seed: bytes,
          budget_ms: int | None, samples: int) -> Decision:
    """One decision: the seat's information state, the expert's choice, the cost."""
    seat = state.turn
    info = information_state(variant, state, seat)
    rng = random.Random(hashlib.sha256(seed + index.to_bytes(8, "big")).digest())
    choice = expert.play(info, rng, budget_ms=budget_ms)
    if _same(choice, played):
        cost, used = 0.0, 0
    else:
        worth = appraise(info, [choice, played], rng, samples)
        cost, used = max(0.0, worth.values[0] - worth.values[1]), worth.samples
    return Decision(index, state.hand_number, seat, summary(info), played, choice,
                    round(cost, 2), used, label(cost, thresholds_of(state)))


def _same(choice: dict[str, Any], played: dict[str, Any]) -> bool:
    """The same move (a knock's submitted arrangement aside)."""
    return {k: v for k, v in choice.items() if k != "melds" or choice["type"] != "knock"} == \
        {k: v for k, v in played.items() if k != "melds" or played["type"] != "knock"}


def summary(info: InfoState) -> dict[str, Any]:
    """The seat's information state as JSON: its hand, the public table and what it
    knows of the other hands."""
    table = info.table
    out: dict[str, Any] = {
        "phase": info.phase, "hand": list(info.hand), "discard_pile": list(info.discard_pile),
        "stock": info.stock_count, "hand_sizes": list(info.hand_sizes),
        "known": {str(seat): list(info.known(seat)) for seat in info.opponents()
                  if info.known(seat)},
        "scores": list(table.scores),
    }
    if isinstance(table, RummyState):
        out["table"] = [meld.to_dict() for meld in table.table]
        out["opened"] = list(table.opened)
    return out
