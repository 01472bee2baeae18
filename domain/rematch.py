"""A rematch of an ended match: offered, accepted, declined or started, in that match's
own log, after its end.

A seat offers (``RematchOffered``, which counts as its own acceptance); the computer
players accept with the offer (``RematchAccepted`` naming the bot); every other seat
accepts in turn, or declines (``RematchDeclined``: off for everyone, for good). The
acceptance that completes the table also fixes the new match's id (``RematchStarted``),
so however often it is retried or finished, one match is created under that id; its log
begins with ``RematchCreated`` naming the match it follows.

The players keep their clockwise order and move on by one seat (``next_seat``): seat 1 of
the ended match is seat 0 of the rematch, so with a fixed ``first_dealer`` the deal passes
on clockwise to the player after the ended match's first dealer, as it passes between
hands (docs/rules.md 1.3, 3.1), and with two players the seats are swapped. A first
dealer drawn at random is drawn afresh from the new match's seed (docs/rules.md 0,
"Randomness").

Only a match that was played to a result has a rematch: complete, forfeited or resigned.
One still being played is refused (``match_not_finished``), and so is one an organiser
aborted (void, with no result: ``no_rematch``).

No family's ``evolve`` sees these events: ``domain.match.Match`` folds them beside the
clock and the bot seats, so the rematch is a pure function of the log, and the verifier
decides every offer, acceptance and decline again from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain.bot_seats import BotSeat
from domain.controls import ABORTED, FINAL_PHASES
from domain.errors import RuleError
from domain.events import (
    REMATCH_ACCEPTED,
    REMATCH_DECLINED,
    REMATCH_OFFERED,
    REMATCH_STARTED,
    Event,
    names,
)

AFTER_THE_END = names(REMATCH_OFFERED, REMATCH_ACCEPTED, REMATCH_DECLINED, REMATCH_STARTED)
"""The rematch's events in the ended match's log: all of them come after its end."""

ACCEPT = "accept"
DECLINE = "decline"
NONE, OFFERED, DECLINED, STARTED = "none", "offered", "declined", "started"


def next_seat(seat: int, seats: int) -> int:
    """Where the player at ``seat`` sits in the rematch: one seat on, clockwise order
    kept."""
    return (seat - 1) % seats


def previous_seat(seat: int, seats: int) -> int:
    """Where the player at the rematch's ``seat`` sat in the ended match."""
    return (seat + 1) % seats


@dataclass(frozen=True)
class Rematch:
    """The rematch of one match, as its log stands."""

    offered_by: int | None = None
    accepted: tuple[int, ...] = ()
    declined_by: int | None = None
    match_id: str | None = None
    events: int = 0
    """How many of the log's events are the rematch's: the last ones, after the end."""

    @property
    def status(self) -> str:
        if self.match_id is not None:
            return STARTED
        if self.declined_by is not None:
            return DECLINED
        return OFFERED if self.offered_by is not None else NONE

    def awaited(self, seats: int) -> list[int]:
        """The seats whose answer the rematch waits for (none once declined or started)."""
        if self.status in (DECLINED, STARTED):
            return []
        return [seat for seat in range(seats) if seat not in self.accepted]

    def after(self, event: Event) -> Rematch:
        """This rematch after one of its events."""
        data, counted = event.data, self.events + 1
        if event.type == REMATCH_OFFERED.name:
            return replace(self, offered_by=data["seat"],
                           accepted=(*self.accepted, data["seat"]), events=counted)
        if event.type == REMATCH_ACCEPTED.name:
            return replace(self, accepted=(*self.accepted, data["seat"]), events=counted)
        if event.type == REMATCH_DECLINED.name:
            return replace(self, declined_by=data["seat"], events=counted)
        return replace(self, match_id=data["match_id"], events=counted)


def is_rematch_event(event: Event) -> bool:
    return event.type in AFTER_THE_END


@dataclass(frozen=True)
class Answer:
    """A seat's answer to the rematch: ``accept`` (an offer when nobody has offered yet)
    or ``decline``."""

    seat: int
    kind: str

    def stored(self) -> dict[str, Any]:
        """What the log keeps of the answer (``answer_of`` reads it back)."""
        return {"rematch": self.kind, "seat": self.seat}


def answer_of(stored: Mapping[str, Any]) -> Answer:
    """The answer a stored command describes."""
    kind, seat = stored.get("rematch"), stored.get("seat")
    if kind not in (ACCEPT, DECLINE) or isinstance(seat, bool) or not isinstance(seat, int):
        raise RuleError("invalid_command", "a rematch answer needs a seat and accept or "
                                           "decline")
    return Answer(seat, str(kind))


def refusal(phase: str) -> RuleError | None:
    """Why a match in ``phase`` has no rematch, or None when it may have one."""
    if phase not in FINAL_PHASES:
        return RuleError("match_not_finished", "the match is still being played: a rematch "
                                               "is offered once it has ended")
    if phase == ABORTED:
        return RuleError("no_rematch", "the match was aborted, with no result: it has no "
                                       "rematch")
    return None


def decide(rematch: Rematch, answer: Answer, phase: str, players: Sequence[str],
           bots: Mapping[int, BotSeat], new_match_id: str) -> list[Event]:
    """The events ``answer`` appends to the ended match (none when it changes nothing: an
    acceptance given already, a decline repeated), or a ``RuleError``. ``new_match_id``
    names the rematch should this answer complete it."""
    refused = refusal(phase)
    if refused is not None:
        raise refused
    if not 0 <= answer.seat < len(players):
        raise RuleError("unknown_seat", f"the match has no seat {answer.seat}")
    if answer.kind == DECLINE:
        return _declined(rematch, answer.seat)
    if rematch.status == DECLINED:
        raise RuleError("rematch_declined", f"seat {rematch.declined_by} declined the "
                                            "rematch: it is off")
    if rematch.status == STARTED or answer.seat in rematch.accepted:
        return []
    if rematch.status == NONE:
        events = [REMATCH_OFFERED.event(seat=answer.seat)]
        events += [REMATCH_ACCEPTED.event(seat=seat, bot=bot.level)
                   for seat, bot in sorted(bots.items()) if seat != answer.seat]
    else:
        events = [REMATCH_ACCEPTED.event(seat=answer.seat, bot=None)]
    accepted = set(rematch.accepted) | {e.data["seat"] for e in events}
    if len(accepted) == len(players):
        events.append(REMATCH_STARTED.event(
            match_id=new_match_id,
            seats=[next_seat(seat, len(players)) for seat in range(len(players))]))
    return events


def _declined(rematch: Rematch, seat: int) -> list[Event]:
    if rematch.status == STARTED:
        raise RuleError("rematch_started", f"the rematch has started (match "
                                           f"{rematch.match_id}): it cannot be declined")
    if rematch.status == DECLINED:
        return []
    return [REMATCH_DECLINED.event(seat=seat)]
