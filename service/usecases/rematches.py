"""A rematch of an ended match, offered and accepted with the seats' tokens.

The answers are the ended match's own events (``domain.rematch``), appended through the
one runner after its end. The acceptance that completes the table decides the new
match's id in its ``RematchStarted``; the match is created after that append, under that
id, by whichever request gets there first: the acceptance itself, a retried one, or any
read that finds the rematch started and its match missing (a process that died in
between). The store creates an id once (``MatchExists`` for the others), so there is
never a second rematch, and never none.

Seat tokens: each player's token in the rematch is derived from the token they hold in
the ended match (``credentials.derived_token``, keyed by that token, for this match and
seat), so the server never keeps it. Their acceptance writes its hash under the seat they
will hold (``RematchTokens``) before the acceptance is logged, and the new match takes
those hashes as its seat tokens'. The holder gets the token again from every later
answer or read with the old token; nobody else can compute it. The rematch has no
creator token (its organiser, the ended match's, manages its seats).
"""

from __future__ import annotations

import uuid
from typing import Any

from domain import rematch
from domain.errors import RuleError
from domain.events import CLOCK_SET, HAND_DEALT, MATCH_CREATED, REMATCH_CREATED
from domain.match import Match
from domain.rematch import ACCEPT, DECLINE, DECLINED, STARTED, Answer, next_seat, previous_seat
from service.credentials import derived_token, same_secret, token_hash
from service.ports import MatchExists, MatchInfo, RematchTokens
from service.usecases.access import Access
from service.usecases.bot_players import bot_view
from service.usecases.commands import AnswerRematch
from service.usecases.creation import MatchCreation
from service.usecases.errors import AppError, Conflict, NotFound, Rejected
from service.usecases.queries import MatchQueries
from service.usecases.runner import CommandRunner
from service.usecases.seats import MatchCalledOff

REFUSED_AS = {"match_not_finished": Conflict, "rematch_declined": Conflict,
              "rematch_started": Conflict, "no_rematch": Rejected}
"""The rules' refusals of a rematch as application errors: a match still being played, a
rematch declined or started are conflicts of the moment (409); a match without a result
is refused for good (422)."""
CREATION_EVENTS = 6
"""A match's creation appends at most this many events before its first deal's end:
MatchCreated, SeedCommitted, ClockSet, BotsSeated or RematchCreated, HandDealt."""


def refused(exc: RuleError) -> AppError:
    return REFUSED_AS.get(exc.code, Rejected)(exc.code, exc.message)


def rematch_token(token: str, match_id: str, seat: int) -> str:
    """The token the holder of ``token`` (seat ``seat`` of ``match_id``) holds in that
    match's rematch."""
    return derived_token(token, f"rematch:{match_id}:{seat}")


class Rematches:
    """Offering, accepting, declining and following a rematch."""

    def __init__(self, runner: CommandRunner, access: Access, queries: MatchQueries,
                 creation: MatchCreation, hashes: RematchTokens) -> None:
        self.runner = runner
        self.access = access
        self.queries = queries
        self.creation = creation
        self.hashes = hashes

    def accept(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The seat offers a rematch (nobody has yet) or accepts the one on offer; the
        acceptance that completes the table creates it. Saying yes again changes nothing."""
        seat = self.access.acting_seat(match_id, token)
        assert token is not None  # acting_seat refuses a request without one
        ended = self._ended(match_id)
        if ended.rematch.status not in (STARTED, DECLINED):
            seats = len(ended.state.players)
            self.hashes.keep(match_id, next_seat(seat, seats),
                             token_hash(rematch_token(token, match_id, seat)))
        return self._answer(match_id, Answer(seat, ACCEPT), token)

    def decline(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The seat declines: the rematch is off, for everyone and for good."""
        seat = self.access.acting_seat(match_id, token)
        self._ended(match_id)
        return self._answer(match_id, Answer(seat, DECLINE), token)

    def state(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Where the rematch stands: for a seat's holder with its new seat and token once
        it started; for anybody else (the public, the organiser, the creator token) the
        same without a token. Finishes the creation of a rematch that started and was not
        created (its creator died in between)."""
        seat = self._reader(match_id, token)
        ended = self._ended(match_id)
        self._create(match_id, ended)
        return self._view(match_id, ended, seat, token)

    # --- internals -----------------------------------------------------------------------

    def _answer(self, match_id: str, answer: Answer, token: str | None) -> dict[str, Any]:
        try:
            outcome = self.runner.run(match_id, AnswerRematch(answer, uuid.uuid4().hex))
        except RuleError as exc:
            raise refused(exc) from exc
        self._create(match_id, outcome.aggregate)
        return self._view(match_id, outcome.aggregate, answer.seat, token)

    def _ended(self, match_id: str) -> Match:
        """The match, which must have ended with a result (``domain.rematch.refusal``);
        one called off before it started never had one."""
        try:
            loaded = self.queries.load(match_id)
        except MatchCalledOff as exc:
            raise Rejected("no_rematch", "the match was called off before it started: it "
                                         "has no rematch") from exc
        refusal = rematch.refusal(loaded.state.phase)
        if refusal is not None:
            raise refused(refusal)
        return loaded

    def _reader(self, match_id: str, token: str | None) -> int | None:
        """The seat whose holder asks, or None for anybody else who may read the match:
        the public, its organiser (or the admin), its creator token. Another match's
        token is refused as everywhere (403), one that names nobody too (401)."""
        if token is None:
            return None
        access = self.access
        if access.organiser(token) is not None:
            access.require_owner(match_id, token)
            return None
        if not access.seat_hashes(match_id):
            raise NotFound("match_not_found", f"no match {match_id!r}")
        seat = access.seat_of(match_id, token)
        if seat is not None:
            return seat
        creator = access.creator_hash(match_id)
        if creator and same_secret(token_hash(token), creator):
            return None
        raise access.no_seat_here(match_id, token)

    def _create(self, match_id: str, ended: Match) -> None:
        """Create the rematch ``ended`` started, unless it exists (then finish its
        creation if its creator died half way): the same variant, options, clock, tags and
        players (bots with their level and think time), each player one seat on
        (``domain.rematch.next_seat``), a fresh seed."""
        new_id = ended.rematch.match_id
        if new_id is None or self.creation.resume(new_id):
            return
        first = {e.type: e.data for e in self.queries.repository.stored(
            match_id, until=CREATION_EVENTS)}
        info = self.queries.info(match_id)
        assert info is not None  # the match was just loaded
        seats = len(ended.state.players)
        before = [previous_seat(seat, seats) for seat in range(seats)]
        players = [self._player(ended, first[MATCH_CREATED.name], info, old) for old in before]
        body: dict[str, Any] = {"players": players, "tags": list(info.tags),
                                "public_metadata": info.public_metadata,
                                "clock": first.get(CLOCK_SET.name)}
        variant = ended.variant
        options = variant.parse_options(first[MATCH_CREATED.name]["options"], seats)
        new = self.creation.decide_new(variant, options, body, info.owner)
        dealt = next(n for n, e in enumerate(new.events) if e.type == HAND_DEALT.name)
        new.events.insert(dealt, REMATCH_CREATED.event(rematch_of=match_id,
                                                       previous_seats=before))
        kept = self.hashes.of(match_id)
        hashes = ["" if seat in new.bots else kept[seat] for seat in range(seats)]
        try:
            self.creation.store_with(new, new_id, hashes, "")
        except MatchExists:
            return  # another request created it first

    @staticmethod
    def _player(ended: Match, created: dict[str, Any], info: MatchInfo,
                seat: int) -> dict[str, Any]:
        player: dict[str, Any] = {"name": created["players"][seat],
                                  "external_id": info.player_id(seat)}
        bot = ended.bots.get(seat)
        if bot is not None:
            player.update(bot=bot.level, think_ms=bot.think_ms)
        return player

    def _view(self, match_id: str, ended: Match, seat: int | None,
              token: str | None) -> dict[str, Any]:
        """The rematch as ``seat``'s holder sees it (None: anybody else)."""
        state, current = ended.state, ended.rematch
        seats = len(state.players)
        out: dict[str, Any] = {
            "match_id": match_id, "status": current.status, "offered_by": current.offered_by,
            "accepted": list(current.accepted), "awaited": current.awaited(seats),
            "declined_by": current.declined_by, "new_match_id": current.match_id,
            "seats": [{"seat": n, "name": state.players[n],
                       "bot": bot_view(ended.bots.get(n)), "new_seat": next_seat(n, seats)}
                      for n in range(seats)],
            "seat": seat, "new_seat": None if seat is None else next_seat(seat, seats),
            "token": None}
        if seat is not None and token and current.match_id is not None:
            mine = rematch_token(token, match_id, seat)
            if self.access.holds_seat(current.match_id, next_seat(seat, seats),
                                      token_hash(mine)):
                out["token"] = mine
        return out
