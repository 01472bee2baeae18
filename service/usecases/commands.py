"""The commands the runner executes, whoever sends them: a seat, a system step, an
organiser, a clock, a computer player. Each turns the match as loaded into a ``Decision``
with the pure domain and nothing else; ``None`` means there is nothing to do (a step that
already ran, a turn that is no longer running, a bot's move made already), which makes
every background command safe to run twice.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from domain import bots, rematch
from domain.clocks import decide_timeout
from domain.controls import Control, ending_events, stored_command
from domain.events import Event
from domain.fairness import MatchSecrets
from domain.match import BotTurn, Match, StepDue
from domain.rematch import Answer
from domain.steps import decide_step
from domain.variant import Variant

log = logging.getLogger("rummy.bots")


@dataclass(frozen=True)
class Decision:
    """Events to append, the id of the command that caused them, and what the log keeps
    of that command (stored and hashed with the first event)."""

    events: list[Event]
    command_id: str
    command: dict[str, Any] | None = None


AggregateT = TypeVar("AggregateT", contravariant=True)


class Command(Protocol[AggregateT]):
    """A command against one kind of aggregate (a match's here; a tournament's in
    ``service.usecases.tournament_commands``): decided with the aggregate as loaded and
    what its kind decides with besides (a match's secrets)."""

    @property
    def retry_on_conflict(self) -> bool:
        """Decide again on a newer version when another writer got there first."""

    def decide(self, match: AggregateT, secrets: Any) -> Decision | None: ...


@dataclass(frozen=True)
class SeatAction:
    """A seat's move, as sent; decided by the family's rules."""

    seat: int
    action: Mapping[str, Any] = field(hash=False)
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision:
        variant = match.variant
        events = variant.decide(match.state, variant.command(self.seat, self.action))
        return Decision(events, self.command_id, {"seat": self.seat, "action": dict(self.action)})


@dataclass(frozen=True)
class RunStep:
    """The system step the match waits for (``domain.steps``): nothing when it waits for
    none (a step that ran already)."""

    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        owed = StepDue.of(match)
        if owed is None:
            return None
        events = decide_step(match.variant, match.state, owed.step, secrets)
        return Decision(events, f"job:{owed.step.name}:{match.version}")


@dataclass(frozen=True)
class EndMatch:
    """An organiser's forfeit or abort (``domain.controls``), with the seed reveals that
    keep the log verifiable."""

    control: Control
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision:
        events = ending_events(match.variant, match.state, self.control, secrets)
        return Decision(events, self.command_id, stored_command(self.control))


@dataclass(frozen=True)
class TimeOut:
    """The clock's move for a seat whose turn ran out at ``now`` (``domain.clocks``): only
    for the turn that started at ``turn_version``, and only once its deadline has passed."""

    turn_version: int
    now: float
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        clock = match.clock
        if clock is None or clock.started_version != self.turn_version:
            return None
        decided = decide_timeout(match.variant, match.state, clock, match.version, secrets,
                                 self.now)
        if decided is None:
            return None
        return Decision(decided.events, decided.command_id, decided.command)


@dataclass(frozen=True)
class PlayBot:
    """A computer player's move for ``seat``, the one it owes at ``version``
    (``domain.match.BotTurn``): nothing once the match has moved on (another version, the
    turn passed, the match over), so a late or repeated payment appends nothing.

    The bot chooses (``domain.bots.choose``, within its seat's budget) with randomness
    drawn from public data only (the head of the match's hash chain, the seat and the
    version), never from the match's secret seed. Its move is an ordinary seat command
    whose id and stored command name the bot (``seat<n>:bot:<level>:<version>``,
    ``{"seat", "action", "bot"}``), so the verifier re-decides it like any seat's
    action."""

    seat: int
    version: int
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        owed = BotTurn.of(match)
        if owed is None or (owed.seat, owed.version) != (self.seat, self.version):
            return None
        seed = bot_seed(match.head_hash, self.seat, match.version)
        action, events = bot_move(owed.level, match.variant, match.state, self.seat, seed,
                                  match.bots[self.seat].budget)
        return Decision(events, f"seat{self.seat}:bot:{owed.level}:{match.version}",
                        {"seat": self.seat, "action": action, "bot": owed.level})


@dataclass(frozen=True)
class AnswerRematch:
    """A seat's answer to a rematch of the ended match (``domain.rematch``): nothing when
    it changes nothing (an acceptance given already), so a retry appends nothing. Should
    it complete the table, the new match is ``new_match_id``: an id decided before the
    append, so whichever acceptance gets in names the one match that will be created."""

    answer: Answer
    new_match_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: MatchSecrets) -> Decision | None:
        state = match.state
        events = rematch.decide(match.rematch, self.answer, state.phase, state.players,
                                match.bots, self.new_match_id)
        if not events:
            return None
        return Decision(events, f"rematch:{self.answer.seat}:{self.answer.kind}:"
                                f"{match.version}", self.answer.stored())


def bot_seed(head_hash: str, seat: int, version: int) -> bytes:
    """A bot's randomness for one move: anyone holding the log can compute it, and it
    tells nothing of the deck (the secret seed never enters it)."""
    return hashlib.sha256(f"bot:{head_hash}:{seat}:{version}".encode()).digest()


def bot_move(level: str, variant: Variant, state: object, seat: int, seed: bytes,
             budget_ms: int | None = None) -> tuple[dict[str, Any], list[Event]]:
    """The bot's action (within the seat's ``budget_ms``, ``BotsSeated``) and the events
    the rules make of it. Should a level fail or choose an illegal move (a bug in a bot),
    the seat plays a random legal move instead, logged: a broken bot must not freeze a
    match people are playing in."""
    try:
        action = bots.choose(level, variant, state, seat, seed, budget_ms=budget_ms)
        return action, variant.decide(state, variant.command(seat, action))
    except Exception:
        log.exception("the %s bot failed for seat %s; it plays a random legal move", level,
                      seat)
        action = bots.choose("random", variant, state, seat, seed)
        return action, variant.decide(state, variant.command(seat, action))
