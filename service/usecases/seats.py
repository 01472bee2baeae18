"""Open seats, the lobby and seat tokens.

A match created with open seats (``{"open": true}`` among its players) waits: nothing is
dealt until every seat is taken. Anybody may claim an open seat (with the invite code,
when the creator set one) and gets that seat's token, once. The last claim starts the
match: its first events are decided then, with every player's name, and written in the
same atomic step that takes the seat, so a match is never half started; that step also
checks the lobby is as the events were decided from (its revision), so a player who left
meanwhile is never recorded in place of the one who holds the seat.

A seat's token can be replaced by the match's organiser or by its creator (the creator
token every creation returns); the old token stops working at once, in every process,
because seat tokens are read from Redis on every request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.codec import to_store
from service.credentials import new_token, same_secret, token_hash
from service.ports import (
    CLAIMED,
    LEFT,
    NAME_HELD,
    NEED_START,
    NO_LOBBY,
    NOT_OPEN,
    STARTED,
    EventStore,
    Lobby,
    LobbyReply,
    MatchInfo,
    MatchStart,
    SeatClaim,
    Waiting,
)
from service.usecases.access import Access
from service.usecases.bot_players import bot_seats, bot_view
from service.usecases.creation import LOBBY_TTL_S, MatchCreation, seat_fields, tags_of
from service.usecases.creator_presence import (
    CREATOR_LEFT,
    UNKNOWN,
    CreatorPresence,
    CreatorWatch,
)
from service.usecases.errors import (
    AppError,
    Conflict,
    Forbidden,
    NotFound,
    Rejected,
    Unauthenticated,
    storable,
)
from service.usecases.names import NAME_TAKEN, name_key, require_name
from service.usecases.runner import fingerprint_of

CLAIM_ATTEMPTS = 8




class MatchNotStarted(Conflict):
    """The match waits for players: nothing has been dealt, so there is nothing to play."""

    def __init__(self, lobby: Waiting) -> None:
        super().__init__("match_not_started", f"match {lobby.match_id!r} waits for players "
                                              "to claim its open seats")
        self.lobby = lobby


class MatchCalledOff(Rejected):
    """The match was called off while it waited for players: nothing will ever be dealt
    (``match_over``, as for any match that has ended)."""

    def __init__(self, lobby: Waiting) -> None:
        super().__init__("match_over", f"match {lobby.match_id!r} was called off before "
                                       "it started")
        self.lobby = lobby


def reply_of(token: str | None, key: str | None, fingerprint: str) -> LobbyReply | None:
    """Where a lobby operation keeps its first outcome for ``key``: keys are the caller's,
    so the field is scoped to the token that sent it (a seat given back and claimed again
    is another player's, with keys of their own)."""
    if key is None or not token:
        return None
    return LobbyReply(f"reply:{token_hash(token)[:32]}:{key}", fingerprint)


def _require_free_name(waiting: Waiting, seat: int, name: str) -> None:
    """409 ``name_taken`` when another seat's player has this name (``names.name_key``).

    Checked against the lobby as read, to name the seat; the claim script compares the
    seats' ``namekey`` fields again, so two claims of one name at the same instant cannot
    both pass (``NAME_HELD``)."""
    key = name_key(name)
    for other in range(waiting.seats):
        held = waiting.seat_field(other, "name") if other != seat else None
        if held is not None and name_key(held) == key:
            raise Conflict(NAME_TAKEN, f"seat {other} has this name: choose another",
                           {"name": [f"seat {other} has this name"]})


def _seat_taken(seat: int) -> Conflict:
    return Conflict("seat_taken", f"seat {seat} is not open: another player has it")


def waiting_view(waiting: Waiting, viewer: Viewer) -> dict[str, Any]:
    """A waiting match shaped like any match view, in phase ``waiting``: no cards yet,
    and every seat with its player or ``open``."""
    body = json.loads(waiting.fields["body"])
    variant = VARIANTS[waiting.variant]
    options = variant.parse_options(body.get("options"), waiting.seats)
    shown = viewer.is_full or bool(body.get("public_metadata"))
    bots = bot_seats(body["players"])
    seats = [{"seat": seat, "name": waiting.seat_field(seat, "name"),
              "external_id": waiting.seat_field(seat, "external_id") if shown else None,
              "hand_count": 0, "open": waiting.is_open(seat), "bot": bot_view(bots.get(seat))}
             for seat in range(waiting.seats)]
    out: dict[str, Any] = {
        "id": waiting.match_id, "variant": waiting.variant, "options": options.to_dict(),
        "version": 0, "phase": "waiting", "dealer": None, "turn": None,
        "hand_number": 0, "scores": [0] * waiting.seats, "stock_count": 0,
        "discard_pile": [], "hands": [], "seats": seats,
        "open_seats": waiting.open_seats, "invite_only": bool(waiting.fields["invite"]),
        "created_at": waiting.created_at,
        "external_id": body.get("external_id") if shown else None,
        "tags": tags_of(body) if shown else []}
    aborted = waiting.aborted
    if aborted is not None:
        out.update(phase="aborted", ended={"by": "abort", "seat": None,
                                           "reason": aborted["reason"],
                                           "initiator": aborted["by"]})
    if viewer.seat is not None:
        out.update(seat=viewer.seat, hand=[], legal_actions=[], moves=[])
    return out


class Seats:
    """Use cases of open seats, the lobby and seat tokens."""

    def __init__(self, creation: MatchCreation, store: EventStore, lobby: Lobby,
                 access: Access, meta: Callable[[str], Mapping[str, str] | None],
                 ttl_s: int = LOBBY_TTL_S, watch: CreatorWatch | None = None) -> None:
        self._creation = creation
        self._watch = watch
        self._store = store
        self.lobby = lobby
        self._access = access
        self._meta = meta
        self._ttl_s = ttl_s

    # --- reading -------------------------------------------------------------------------

    def waiting(self, match_id: str) -> Waiting | None:
        """The lobby record of a match that waits for players (None for any other id)."""
        return self.lobby.get(match_id) if storable(match_id) else None

    def listing(self, variant: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
        """Matches with open seats, newest first (``GET /v1/lobby``), each saying whether
        its creator is here (``service.usecases.creator_presence``); one whose creator has
        been gone too long is called off instead of listed. ``variant`` and ``cursor`` (an
        offset in digits) come validated by the API's schema."""
        found, following = self.lobby.listing(variant, int(cursor or 0), limit)
        listed = []
        unlisted = 0
        creators = self._watch.of_all(found) if self._watch else [UNKNOWN] * len(found)
        for waiting, creator in zip(found, creators, strict=True):
            if waiting.aborted is not None:
                continue
            if self._abandoned(waiting, creator):
                unlisted += 1
                continue
            view = waiting_view(waiting, Viewer.public())
            view.update(creator_present=creator.present, creator_seen_at=creator.seen_at)
            listed.append(view)
        return {"matches": listed,  # the next page starts where the unlisted ones were
                "next_cursor": None if following is None else str(following - unlisted)}

    def _creator(self, waiting: Waiting) -> CreatorPresence:
        return UNKNOWN if self._watch is None else self._watch.of(waiting)

    def _abandoned(self, waiting: Waiting, creator: CreatorPresence) -> bool:
        """Call the match off when its creator has been gone too long; whether it was."""
        if not creator.lapsed:
            return False
        if self._store.abandon_waiting(waiting.match_id, CREATOR_LEFT, "creator") is not None:
            self.lobby.unlist(waiting.match_id, waiting.variant)
        return True

    # --- claiming ------------------------------------------------------------------------

    def claim(self, match_id: str, seat: int, body: Mapping[str, Any]) -> dict[str, Any]:
        """Take an open seat: its token, once. The last claim deals the first hand."""
        waiting = self._waiting_or_refuse(match_id, seat)
        if waiting.fields["invite"] and not same_secret(
                token_hash(body.get("invite_code") or ""), waiting.fields["invite"]):
            raise Forbidden("invalid_invite", "this match needs its invite code "
                                              "(invite_code), and that is not it")
        require_name("name", body["name"])
        _require_free_name(waiting, seat, body["name"])
        token = new_token()
        digest = token_hash(token)
        fields = seat_fields(seat, body)
        for _ in range(CLAIM_ATTEMPTS):
            start = self._start(waiting, seat, body) if waiting.open_seats == 1 else None
            claim = self._store.claim_seat(match_id, seat, digest, fields, self._ttl_s, start)
            if claim.status != NEED_START:
                return self._claimed(waiting, seat, body, token, claim)
            waiting = self._waiting_or_refuse(match_id, seat)
        raise Conflict("request_in_flight", "too many claims at once; try again")

    def _waiting_or_refuse(self, match_id: str, seat: int) -> Waiting:
        waiting = self.waiting(match_id)
        if waiting is None:
            meta = self._meta(match_id)
            if meta is None:
                raise NotFound("match_not_found", f"no match {match_id!r}")
            info = MatchInfo.from_meta(match_id, meta)
            if not 0 <= seat < len(info.names):
                raise NotFound("seat_not_found", f"the match has seats 0-{len(info.names) - 1}")
            raise _seat_taken(seat)
        if not 0 <= seat < waiting.seats:
            raise NotFound("seat_not_found", f"the match has seats 0-{waiting.seats - 1}")
        if waiting.aborted is not None:
            raise MatchCalledOff(waiting)
        if self._abandoned(waiting, self._creator(waiting)):
            raise MatchCalledOff(self.waiting(match_id) or waiting)
        if not waiting.is_open(seat):
            raise _seat_taken(seat)
        return waiting

    def _start(self, waiting: Waiting, seat: int, body: Mapping[str, Any]) -> MatchStart:
        """The first events and meta of the match, as the last open seat is taken, decided
        from the lobby as ``waiting`` read it (the claim refuses them if it changed)."""
        created = json.loads(waiting.fields["body"])
        players = []
        for n, player in enumerate(created["players"]):
            if n == seat:
                player = body
            elif player.get("open"):
                player = {"name": waiting.seat_field(n, "name"),
                          "entropy": waiting.seat_field(n, "entropy"),
                          "external_id": waiting.seat_field(n, "external_id")}
            players.append(player)
        full = {**created, "players": players}
        variant = VARIANTS[waiting.variant]
        options = variant.parse_options(full.get("options"), len(players))
        new = self._creation.decide_new(variant, options, full, waiting.fields["owner"])
        return MatchStart(to_store(new.events), self._creation.meta_of(new), waiting.revision)

    def _claimed(self, waiting: Waiting, seat: int, body: Mapping[str, Any], token: str,
                 claim: SeatClaim) -> dict[str, Any]:
        if claim.status == NAME_HELD:
            raise Conflict(NAME_TAKEN, "another player has just taken this name: choose "
                                       "another", {"name": ["another seat has this name"]})
        if claim.status == NO_LOBBY:
            self._waiting_or_refuse(waiting.match_id, seat)
        if claim.status not in (CLAIMED, STARTED):
            raise _seat_taken(seat)
        match_id = waiting.match_id
        if claim.status == STARTED:  # created() indexes every seat's token, this one too
            self.lobby.unlist(match_id, waiting.variant)
            self._creation.created(match_id, self._store.meta(match_id) or {}, claim.events)
        else:
            self._access.register(match_id, {token_hash(token): seat})
        return {"id": match_id, "seat": seat, "name": body["name"],
                "external_id": body.get("external_id"), "token": token,
                "started": claim.status == STARTED, "version": claim.version,
                "open_seats": 0 if claim.status == STARTED else claim.open_seats}

    def leave(self, match_id: str, seat: int, token: str | None,
              idempotency_key: str | None = None) -> dict[str, Any]:
        """Give back an open seat one claimed, while the match waits: the seat is open
        again (the lobby lists it), and the token stops working at once, its streams
        included (they end with ``seat_left``). A seat the creator named is not left (the
        creator aborts the match instead), and once the match started a player resigns.

        With an ``idempotency_key``, a retry gets the first answer while the match waits,
        though the token it sends names nobody by then (the API lets such a request
        through to this use case, which refuses the token itself when there is none)."""
        if not token:
            raise Unauthenticated("missing_token", "leaving needs the seat's token")
        once = reply_of(token, idempotency_key, f"leave:{seat}")
        try:
            return self._leave(match_id, seat, token, once)
        except AppError:
            answered = self._answered(match_id, once)
            if answered is None:
                raise
            return {"id": match_id, "seat": seat, "open_seats": int(answered)}

    def _leave(self, match_id: str, seat: int, token: str,
               once: LobbyReply | None) -> dict[str, Any]:
        if once is not None and not self._access.names_anybody(token, match_id):
            raise Unauthenticated("invalid_token", "the bearer token is not one this server "
                                                   "issued (or it was rotated, or its seat left)")
        waiting = self.waiting(match_id)
        if waiting is None:
            raise self._not_waiting(match_id)
        if waiting.aborted is not None:
            raise MatchCalledOff(waiting)
        if self._access.seat_of(match_id, token) != seat:
            raise Forbidden("not_your_seat", f"this token does not hold seat {seat}")
        digest = token_hash(token)
        left = self._store.leave_seat(match_id, seat, digest, once)
        if left.status == NO_LOBBY:  # it started, expired or was called off meanwhile
            called_off = self.waiting(match_id)
            raise MatchCalledOff(called_off) if called_off else self._not_waiting(match_id)
        if left.status == NOT_OPEN:
            raise Conflict("seat_named", f"seat {seat} was named by the match's creator: "
                                         "it cannot be left (the creator may abort)")
        if left.status != LEFT:
            raise Forbidden("not_your_seat", f"this token does not hold seat {seat}")
        self._access.forget([digest])
        return {"id": match_id, "seat": seat, "open_seats": left.open_seats}

    def call_off(self, match_id: str, token: str | None, reason: str,
                 idempotency_key: str | None = None) -> dict[str, Any] | None:
        """Abort a match that waits for players, for its creator (the creator token) or
        its organiser: it never starts; its views say ``aborted`` (``ended``, initiator
        ``creator`` or ``organiser``) until the lobby record expires, claims and leaves
        are refused (422 ``match_over``) and its streams end. Nothing was dealt, so no log
        is written. None when the match is not waiting (any more): the caller aborts it
        as a started match. With an ``idempotency_key``, a retry gets the first answer
        (where it would be a 422 ``match_over``)."""
        if self.waiting(match_id) is None:
            return None
        self._require_manager(match_id, token)
        by = "organiser" if self._access.organiser(token) is not None else "creator"
        once = reply_of(token, idempotency_key, fingerprint_of("abort", reason))
        done = self._store.abandon_waiting(match_id, reason, by, once)
        if done is None:
            return None
        waiting = self.waiting(match_id)
        if waiting is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        if not done:
            if self._answered(match_id, once) is None:
                raise MatchCalledOff(waiting)
            return waiting_view(waiting, Viewer.full())
        self.lobby.unlist(match_id, waiting.variant)
        return waiting_view(waiting, Viewer.full())

    def _answered(self, match_id: str, once: LobbyReply | None) -> str | None:
        """What the first request with ``once``'s key answered (None: it was not done);
        the same key with another request is refused."""
        if once is None:
            return None
        waiting = self.waiting(match_id)
        answered = None if waiting is None else waiting.answered(once)
        if answered is None:
            return None
        fingerprint, answer = answered
        if fingerprint != once.fingerprint:
            raise Rejected("idempotency_key_reused",
                           "this Idempotency-Key was used for a different request")
        return answer

    def _not_waiting(self, match_id: str) -> Conflict | NotFound:
        if self._meta(match_id) is None:
            return NotFound("match_not_found", f"no match {match_id!r}")
        return Conflict("match_started", "the match has started: resign instead "
                                         "(POST /v1/matches/{id}/resign)")

    # --- tokens --------------------------------------------------------------------------

    def rotate(self, match_id: str, seat: int, token: str | None) -> dict[str, Any]:
        """A new token for ``seat``, for the match's organiser or its creator; the old
        one is refused from now on."""
        self._require_manager(match_id, token)
        hashes = self._access.seat_hashes(match_id)
        if not 0 <= seat < len(hashes):
            raise NotFound("seat_not_found", f"the match has seats 0-{len(hashes) - 1}")
        if not hashes[seat] and not self._is_open(match_id, seat):
            raise Conflict("bot_seat", f"seat {seat} is a computer player's: it has no "
                                       "token, and nobody can be given one")
        fresh = new_token()
        old = self._store.rotate_seat_token(match_id, seat, token_hash(fresh))
        if old is None:
            raise Conflict("seat_open", f"seat {seat} has no player yet: claim it instead")
        self._access.replace(match_id, seat, old, token_hash(fresh))
        return {"seat": seat, "token": fresh}

    def _is_open(self, match_id: str, seat: int) -> bool:
        """Whether ``seat`` of a waiting match is still open to claim: the one seat without
        a token that is not a bot's."""
        waiting = self.waiting(match_id)
        return waiting is not None and waiting.is_open(seat)

    def _require_manager(self, match_id: str, token: str | None) -> None:
        """The match's organiser (or the admin), or the holder of its creator token."""
        if not token:
            raise Unauthenticated("missing_token", "this needs the organiser's key or the "
                                                   "match's creator token")
        access = self._access
        if access.organiser(token) is not None:
            access.require_owner(match_id, token)
            return
        creator = access.creator_hash(match_id)
        if creator is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        if not same_secret(token_hash(token), creator):
            raise Forbidden("creator_only", "only the match's organiser or its creator "
                                            "(the creator token) may do this")
