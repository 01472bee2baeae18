"""The steps a match waits for that no seat takes: scoring an ended hand, paying the bonuses.

Every family moves through the same phases between hands: a hand ends (``scoring``), its
score is recorded (``dealing``), then the next hand is dealt, or the match has reached its
end (``completing``) and its bonuses are paid. So one mapping from phase to step, and one
set of system commands, serve every family; each family's ``decide`` says what the
commands mean in its game.

A step's events are the family's events plus the seed reveals (``domain.fairness``) that
keep the log verifiable, in the order the log has always stored them:

- ``scoring``: ``HandScored``, the hand's ``SeedRevealed``, then the next ``HandDealt``
  when one falls due (a deal is never a step of its own: it is appended with the score).
- ``bonuses``: ``MatchSeedRevealed``, then ``MatchCompleted``.

Workers append these events; the offline verifier (``domain.audit``) recomputes them with
the same functions from the secrets the log itself reveals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from domain.errors import RuleError
from domain.events import Event
from domain.evolving import fold
from domain.fairness import Deal

if TYPE_CHECKING:
    from domain.variant import Variant

SCORING = "scoring"
BONUSES = "bonuses"
DEAL = "deal"
"""Step names as the log's command ids spell them (``job:scoring:<v>``, ``job:bonuses:<v>``:
the ids keep the word "job" they were first stored with); ``deal`` names the step a
``dealing`` match waits for, always taken inside ``scoring``."""

SCORING_PHASE = "scoring"
DEALING_PHASE = "dealing"
COMPLETING_PHASE = "completing"
STEP_OF_PHASE = {SCORING_PHASE: SCORING, DEALING_PHASE: DEAL, COMPLETING_PHASE: BONUSES}
"""The step each between-hands phase waits for, the same in every family."""


@dataclass(frozen=True)
class ScoreHand:
    """Issued by the scoring step once a hand (a round, in rummy) has ended."""


@dataclass(frozen=True)
class DealHand:
    """Issued with the next hand's Deal: its randomness arrives from outside the rules."""

    deal: Deal


@dataclass(frozen=True)
class CompleteMatch:
    """Issued by the bonuses step once the match has reached its end."""


@dataclass(frozen=True)
class SystemStep:
    """A step the match waits for that no seat takes."""

    name: str
    hand_number: int


class StepSecrets(Protocol):
    """What a step needs that is not in the state: the reveals and the next hand's deal.

    The server draws them from the match's secrets (``domain.fairness.MatchSecrets``); the
    verifier takes them from what the log recorded.
    """

    def hand_revealed(self, hand_number: int) -> Event: ...

    def match_revealed(self) -> Event: ...

    def deal(self, variant: Variant, options: Any, hand_number: int) -> Deal: ...


def awaiting_step(state: Any) -> str | None:
    """Which step the match waits for: ``scoring``, ``deal``, ``bonuses`` or None (a seat's
    turn, or the match is over). Views show it as ``awaiting``."""
    return STEP_OF_PHASE.get(state.phase)


def pending_step(variant: Variant, state: Any) -> SystemStep | None:
    """None when the match waits for a seat (or is over). Every family shares the phases,
    so ``family`` decides nothing yet; it is asked for so a family could differ."""
    step = awaiting_step(state)
    if step not in (SCORING, BONUSES):
        return None
    return SystemStep(step, state.hand_number)


def step_command(step: str, deal: Deal | None = None) -> object:
    """The system command of ``step``; ``deal`` needs the next hand's Deal."""
    if step == SCORING:
        return ScoreHand()
    if step == DEAL:
        if deal is None:
            raise ValueError("the deal step needs the next hand's Deal")
        return DealHand(deal)
    if step == BONUSES:
        return CompleteMatch()
    raise ValueError(step)


def decide_step(variant: Variant, state: Any, step: SystemStep,
                secrets: StepSecrets) -> list[Event]:
    """The events ``step`` appends, reveals included; a ``RuleError`` when the match does
    not wait for it (a step that ran already finds nothing to do)."""
    if pending_step(variant, state) != step:
        raise RuleError("step_not_due", f"the match does not wait for {step.name} "
                                        f"(hand {step.hand_number})")
    if step.name == SCORING:
        events = variant.decide(state, ScoreHand())
        return [*events, secrets.hand_revealed(step.hand_number),
                *_next_deal(variant, fold(variant, state, events), secrets)]
    return [secrets.match_revealed(), *variant.decide(state, CompleteMatch())]


def _next_deal(variant: Variant, scored: Any, secrets: StepSecrets) -> list[Event]:
    """The next hand's deal when the score leaves the match waiting for one."""
    if awaiting_step(scored) != DEAL:
        return []
    deal = secrets.deal(variant, scored.options, scored.hand_number + 1)
    return variant.decide(scored, DealHand(deal))
