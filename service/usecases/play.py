"""Playing: a seat's action, and an organiser's forfeit or abort, each one command through
the command runner (``service.usecases.runner``); the answer is the match as of the
version the command reached, for whoever sent it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.controls import AbortMatch, ForfeitSeat
from domain.errors import MALFORMED_ACTION, RuleError
from domain.match import Match
from domain.viewer import Viewer
from service.ports import UNMEASURED, Metrics
from service.usecases.access import Access
from service.usecases.commands import EndMatch, SeatAction
from service.usecases.errors import AppError, Forbidden, NotFound, invalid
from service.usecases.queries import MatchQueries
from service.usecases.runner import (
    CommandRunner,
    Idempotency,
    Outcome,
    command_id,
    fingerprint_of,
)
from service.usecases.seats import Seats


class Play:
    """Seats' actions and organisers' controls."""

    def __init__(self, runner: CommandRunner, access: Access, queries: MatchQueries,
                 seats: Seats, metrics: Metrics = UNMEASURED) -> None:
        self.runner = runner
        self.access = access
        self.queries = queries
        self.seats = seats
        self.metrics = metrics

    def act(self, match_id: str, token: str | None, action: Mapping[str, Any],
            if_match: int | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        """Run one seat action; returns that seat's view as of the action's version. Each
        action the runner decides is counted by variant and outcome (``accepted``,
        ``replayed``, or the refusal's code)."""
        seat = self.access.acting_seat(match_id, token)
        fingerprint = fingerprint_of(seat, action)
        command = SeatAction(seat, action, command_id(f"seat{seat}", idempotency_key))
        once = Idempotency(f"{seat}:{idempotency_key}", fingerprint) if idempotency_key else None
        try:
            outcome = self._run(match_id, command, if_match, once)
        except NotFound:
            self.queries.load(match_id)
            raise
        except (AppError, RuleError) as refusal:
            self.metrics.action_taken(self._variant(match_id), refusal.code)
            raise
        self.metrics.action_taken(self._variant(match_id),
                                  "accepted" if outcome.replayed is None else "replayed")
        return self.queries.render(match_id, outcome.aggregate, Viewer.for_seat(seat))

    def _run(self, match_id: str, command: SeatAction, if_match: int | None,
             once: Idempotency | None) -> Outcome[Match]:
        """The runner's run of a seat's action. Without If-Match or an idempotency key it
        is decided first on the match as this process holds it, with no read: most often
        that is the newest version (the seat's view just brought it up to date), and the
        append's version check says when it is not, and the runner then reads anew. A
        refusal decided on it is decided again on the newest version: a move made
        elsewhere may have changed the answer."""
        plain = if_match is None and once is None
        held = self.runner.repository.cached(match_id) if plain else None
        if held is not None:
            try:
                return self.runner.run(match_id, command, loaded=held)
            except (AppError, RuleError):
                pass
        return self.runner.run(match_id, command, expected_version=if_match, idempotency=once)

    def _variant(self, match_id: str) -> str:
        """The match's variant as a label (its cached metadata)."""
        return (self.runner.repository.meta(match_id) or {}).get("variant") or "unknown"

    def forfeit(self, match_id: str, token: str | None, body: Mapping[str, Any],
                idempotency_key: str | None = None) -> dict[str, Any]:
        """The owner forfeits a seat: the seat loses and the match ends (domain.controls)."""
        organiser = self.access.require_owner(match_id, token)
        loaded = self.queries.load(match_id)
        seat = body["seat"]
        if not 0 <= seat < len(loaded.state.players):
            raise invalid("seat", f"the match has seats 0-{len(loaded.state.players) - 1}",
                              "unknown_seat")
        control = ForfeitSeat(seat, body["reason"])
        once = _once(f"organiser:{organiser}", idempotency_key, "forfeit", seat, body["reason"])
        return self._end(match_id, control, command_id("organiser:forfeit", idempotency_key),
                         once)

    def check(self, match_id: str, token: str | None,
              action: Mapping[str, Any]) -> dict[str, Any]:
        """What ``action`` would do now, without doing it: ``legal`` and the events it
        would append, or the refusal's ``code`` and ``message``. A front end composing a
        move (rummy's melds) asks before sending it, and the rules stay on the server.

        A check tells the seat nothing it cannot see: the rules decide it from the seat's
        own information (``Variant.check``: a knock's melds from the knocker's cards),
        and the events are shown as the public would see them, so a check is no way to
        look at the next stock card and then draw elsewhere. A malformed action is still
        a 400, as for ``act``."""
        seat = self.access.acting_seat(match_id, token)
        loaded = self.queries.load(match_id)
        variant = loaded.variant
        command = variant.command(seat, action)
        try:
            events = variant.check(loaded.state, command)
        except RuleError as refusal:
            if refusal.code == MALFORMED_ACTION:
                raise
            return {"legal": False, "version": loaded.version, "code": refusal.code,
                    "message": refusal.message}
        public = Viewer.public()
        return {"legal": True, "version": loaded.version,
                "events": [{"type": event.type, "data": variant.redact_event(event, public)}
                           for event in events]}

    def resign(self, match_id: str, token: str | None, reason: str,
               idempotency_key: str | None = None) -> dict[str, Any]:
        """A seat gives up with its own token: it forfeits and the match ends
        (domain.controls, ``by`` ``seat``); the answer is that seat's view. Only a seat
        token may: an organiser forfeits a seat with ``forfeit``, naming it. A key is the
        seat's, as for its actions (the same key for an action and a resignation is
        refused)."""
        if self.access.organiser(token) is not None:
            self.access.require_owner(match_id, token)
            raise Forbidden("seat_only", "only a seat's own token resigns it (an organiser "
                                         "forfeits a seat with /forfeit)")
        seat = self.access.acting_seat(match_id, token)
        self.queries.load(match_id)
        resignation = ForfeitSeat.resignation(seat, reason)
        command = EndMatch(resignation, command_id(f"resign:{seat}", idempotency_key))
        outcome = self.runner.run(match_id, command,
                                  idempotency=_once(str(seat), idempotency_key, "resign", reason))
        return self.queries.render(match_id, outcome.aggregate, Viewer.for_seat(seat))

    def abort(self, match_id: str, token: str | None, body: Mapping[str, Any],
              idempotency_key: str | None = None) -> dict[str, Any]:
        """The owner aborts the match: void, no winner (domain.controls). A match still
        waiting for players may also be aborted by its creator: it is called off
        (``Seats.call_off``), with nothing in any log since nothing was dealt."""
        reason = body["reason"]
        called_off = self.seats.call_off(match_id, token, reason, idempotency_key)
        if called_off is not None:
            return called_off
        organiser = self.access.require_owner(match_id, token)
        self.queries.load(match_id)
        once = _once(f"organiser:{organiser}", idempotency_key, "abort", reason)
        return self._end(match_id, AbortMatch(reason),
                         command_id("organiser:abort", idempotency_key), once)

    def _end(self, match_id: str, control: ForfeitSeat | AbortMatch, command_id: str,
             once: Idempotency | None) -> dict[str, Any]:
        outcome = self.runner.run(match_id, EndMatch(control, command_id), idempotency=once)
        return self.queries.render(match_id, outcome.aggregate, Viewer.full())


def _once(scope: str, key: str | None, *request: Any) -> Idempotency | None:
    """A control's idempotency key, scoped to its caller (a seat's keys are shared with its
    actions), and its request's fingerprint; None without a key."""
    if key is None:
        return None
    return Idempotency(f"{scope}:{key}", fingerprint_of(*request))

