"""Ending a match early: an organiser's forfeit or abort, a clock's forfeit, or a seat
resigning (any family).

- ``SeatForfeited {seat, reason, by, winner, winners, ranking, final_scores, bonuses}``: the
  seat loses the match and the match ends at once (phase ``complete``). The forfeiting seat
  is ranked last; the others are ranked by their scores as they stand (higher first in gin
  and gem, lower first in rummy/rami, where scores are minus points; seat order breaks
  ties). The best of them wins; tied leaders share the win (``winner`` null). So with two
  players the other seat wins. A hand that ended but was not yet scored does not count,
  and no end-of-match bonuses are paid (``bonuses`` is empty).
- ``MatchAborted {reason, by}``: the match is void, with no winner (phase ``aborted``).

``by`` says who ended it: ``organiser`` (the match's owner or the admin), ``clock`` (the
seat's time ran out, ``domain.clocks``) or ``seat`` (the seat resigned: a forfeit of its
own, with its own token). None is possible once the match has reached its end
(``completing``, ``complete``, ``aborted``): ``match_over``.

``ending_events`` puts before the control's event the seed reveals that keep the log
verifiable (docs/fairness.md): the current hand's seed unless it is out already, then the
match seed.

Every family's ``evolve`` folds these two events with the handlers below, and every
family's view shows ``ended`` (``ended_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from domain.errors import RuleError
from domain.events import MATCH_ABORTED, MATCH_COMPLETED, SEAT_FORFEITED, Event, names
from domain.evolving import replace
from domain.steps import COMPLETING_PHASE, DEALING_PHASE, StepSecrets

if TYPE_CHECKING:
    from domain.variant import Variant

TERMINAL_EVENTS = names(MATCH_COMPLETED, SEAT_FORFEITED, MATCH_ABORTED)
"""The last event a match ever gets (live streams end after it)."""

COMPLETE = "complete"
ABORTED = "aborted"
FINAL_PHASES = frozenset({COMPLETE, ABORTED})
OVER_PHASES = FINAL_PHASES | {COMPLETING_PHASE}
"""Phases in which the match's result is settled: nothing can end it any more."""
SEED_OUT_PHASES = OVER_PHASES | {DEALING_PHASE}
"""Phases in which the current hand's seed is in the log: a hand's seed is revealed in the
append that settles it, with its score (then ``dealing``, or ``completing`` and later
``complete``) or with the forfeit or abort that ends the match mid-hand (``complete``,
``aborted``)."""

BY = ("organiser", "clock", "seat")
REASON_MAX = 500
RESIGNED = "resigned"
"""The reason a resignation gives when the player gives none."""

State = TypeVar("State")


@dataclass(frozen=True)
class ForfeitSeat:
    seat: int
    reason: str
    by: str = "organiser"

    @classmethod
    def resignation(cls, seat: int, reason: str = RESIGNED) -> ForfeitSeat:
        """The seat gives up: a forfeit of its own (``by`` ``seat``)."""
        return cls(seat, reason, "seat")


@dataclass(frozen=True)
class AbortMatch:
    reason: str
    by: str = "organiser"


Control = ForfeitSeat | AbortMatch


def command_of(stored: Mapping[str, Any]) -> Control:
    """The control a stored command describes (``{"control": "forfeit"|"abort", ...}``)."""
    kind, reason, by = stored.get("control"), stored.get("reason"), stored.get("by")
    if not isinstance(reason, str) or by not in BY:
        raise RuleError("invalid_command", "a control needs a reason and who gave it")
    if kind == "forfeit":
        seat = stored.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise RuleError("invalid_command", "a forfeit needs a seat")
        return ForfeitSeat(seat, reason, str(by))
    if kind == "abort" and by != "seat":  # a seat resigns; only an organiser voids
        return AbortMatch(reason, str(by))
    raise RuleError("invalid_command", f"no control {kind!r}")


def stored_command(control: Control) -> dict[str, Any]:
    """What the log keeps of a control (``command_of`` reads it back)."""
    if isinstance(control, ForfeitSeat):
        return {"control": "forfeit", "seat": control.seat, "reason": control.reason,
                "by": control.by}
    return {"control": "abort", "reason": control.reason, "by": control.by}


def decide(state: Any, control: Control, low_scores_win: bool = False) -> list[Event]:
    """The event ``control`` causes in a match of any family, or a ``RuleError``."""
    if state.phase in OVER_PHASES:
        raise RuleError("match_over", f"the match has ended (phase {state.phase!r})")
    if isinstance(control, AbortMatch):
        return [MATCH_ABORTED.event(reason=control.reason, by=control.by)]
    if not 0 <= control.seat < len(state.players):
        raise RuleError("unknown_seat", f"the match has no seat {control.seat}")
    return [SEAT_FORFEITED.event(seat=control.seat, reason=control.reason, by=control.by,
                                 **forfeit_result(state.scores, control.seat, low_scores_win))]


def ending_events(variant: Variant, state: Any, control: Control,
                  secrets: StepSecrets) -> list[Event]:
    """What ``control`` appends: the current hand's seed reveal (unless it is out already),
    the match seed's reveal, then the control's event; a ``RuleError`` as ``decide``."""
    decided = decide(state, control, variant.low_scores_win)
    hand = getattr(state, "hand_number", 0)
    hand_reveal = [] if not hand or hand_seed_revealed(state) else [secrets.hand_revealed(hand)]
    return [*hand_reveal, secrets.match_revealed(), *decided]


def hand_seed_revealed(state: Any) -> bool:
    """Whether the log already reveals the current hand's seed, read from the phase alone
    (``SEED_OUT_PHASES``), so no scan of the stored events is needed."""
    return state.phase in SEED_OUT_PHASES


def forfeit_result(scores: Sequence[int], seat: int, low_scores_win: bool) -> dict[str, Any]:
    """Ranking and winners when ``seat`` forfeits (see the module docstring)."""
    others = [s for s in range(len(scores)) if s != seat]
    sign = 1 if low_scores_win else -1
    others.sort(key=lambda s: (sign * scores[s], s))
    best = scores[others[0]] if others else None
    leaders = [s for s in others if scores[s] == best]
    return {"winner": leaders[0] if len(leaders) == 1 else None, "winners": leaders,
            "ranking": others + [seat], "final_scores": list(scores), "bonuses": []}


# --- folding (every family's evolve) -----------------------------------------------------


def _ended(state: State, phase: str, completion: dict[str, Any]) -> State:
    return replace(state, phase=phase, turn=None, completion=completion)


def seat_forfeited(state: State, data: Mapping[str, Any]) -> State:
    ended = {"by": "forfeit", "seat": data["seat"], "reason": data["reason"],
             "initiator": data.get("by")}
    return _ended(state, COMPLETE, {**data, "ended": ended})


def match_aborted(state: State, data: Mapping[str, Any]) -> State:
    ended = {"by": "abort", "seat": None, "reason": data["reason"], "initiator": data.get("by")}
    return _ended(state, ABORTED, {**data, "winner": None, "winners": [], "ended": ended})


HANDLERS: dict[str, Callable[[Any, Mapping[str, Any]], Any]] = {
    SEAT_FORFEITED.name: seat_forfeited,
    MATCH_ABORTED.name: match_aborted,
}
"""Merged into each family's evolve handlers."""


def ended_of(state: Any) -> dict[str, Any] | None:
    """How a match ended early (``{by: forfeit|abort, seat, reason, initiator}``), else None."""
    completion = getattr(state, "completion", None)
    if not completion:
        return None
    ended = completion.get("ended")
    return dict(ended) if ended else None
