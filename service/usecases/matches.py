"""The match use cases: create matches, show them to whoever asks, run seats' actions and
organisers' controls, serve the log for audits.

Flask views call this and nothing else. Matches are loaded by the repository and every
command goes through the command runner; reads never change anything.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from domain.cards import CardError, parse_cards
from domain.chain import canonical_json
from domain.clocks import ClockSettings
from domain.controls import TERMINAL_EVENTS, AbortMatch, ForfeitSeat
from domain.errors import OptionError, RuleError
from domain.events import HAND_DEALT, SEED_REVEALED, Event
from domain.fairness import Deal, MatchSecrets
from domain.match import Match
from domain.shuffle import choose
from domain.variant import Variant
from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.adapters.auth import new_token, token_hash
from service.adapters.catalog import MatchIndex, MatchInfo, meta_fields
from service.adapters.codec import to_domain, to_store
from service.adapters.lobby import LobbyStore
from service.adapters.store import (
    StoredEvent,
    VerificationReports,
)
from service.adapters.tickets import TicketStore
from service.usecases.access import Access
from service.usecases.background import Work
from service.usecases.commands import EndMatch, SeatAction
from service.usecases.errors import NotFound, invalid, not_allowed, storable
from service.usecases.lifecycle import Feed
from service.usecases.live import Ended, LiveStreams, SeatHolder
from service.usecases.runner import CommandRunner, Idempotency, command_id
from service.usecases.seats import LOBBY_TTL_S, MatchNotStarted, Seats, has_open_seats
from service.usecases.tickets import StreamTickets

ORGANISER_FIELDS = ("seed", "deck", "dice")
MATCH_OVER = "match_over"
"""Why a stream ends after the match's last event (``MatchCompleted``, ``SeatForfeited``
or ``MatchAborted``)."""


def clock_events(settings: Mapping[str, Any] | None) -> list[Event]:
    """The ``ClockSet`` event of a creation body's ``clock`` (none without one)."""
    if settings is None:
        return []
    try:
        return [ClockSettings.parse(settings).event()]
    except OptionError as exc:
        raise invalid(f"clock.{exc.field}", exc.message, "invalid_clock") from exc


class HandIndex:
    """Which hand each event belongs to, and which hands' seeds have been revealed.

    A hand runs from its deal to its ``SeedRevealed``; once revealed, everything about it
    is public, so its events and states are shown in full to every caller.
    """

    def __init__(self, stored: Iterable[StoredEvent]) -> None:
        self._hand_at: list[int] = [0]
        self.revealed: set[int] = set()
        self.extend(stored)

    @property
    def version(self) -> int:
        """The next version the index expects."""
        return len(self._hand_at)

    def extend(self, stored: Iterable[StoredEvent]) -> None:
        """Index events appended since (in order, from ``version`` on)."""
        for event in stored:
            hand = self._hand_at[-1]
            if event.type == HAND_DEALT.name:
                hand = int(event.data.get("hand_number", hand + 1))
            elif event.type == SEED_REVEALED.name:
                self.revealed.add(int(event.data["hand_number"]))
            self._hand_at.append(hand)

    def viewer_of(self, version: int, viewer: Viewer) -> Viewer:
        """The full view for an event of a revealed hand, else ``viewer`` unchanged."""
        return Viewer.full() if self._hand_at[version] in self.revealed else viewer


@dataclass(frozen=True)
class NewMatch:
    """A validated match, ready to store: everything ``create`` decides before writing."""

    variant: Variant
    options: Any
    names: list[str]
    events: list[Event]
    secrets: MatchSecrets
    owner: str
    external_id: str | None = None
    tags: tuple[str, ...] = ()
    player_ids: tuple[str | None, ...] = ()


class MatchService:
    """Use cases of the match API, independent of HTTP."""

    def __init__(self, runner: CommandRunner, work: Work, admin_token: str | None,
                 live: LiveStreams, feed: Feed, lobby_ttl_s: int = LOBBY_TTL_S) -> None:
        self.runner = runner
        self.repository = runner.repository
        self.store = runner.store
        self.work = work
        self.lobby = LobbyStore(self.store.client, self.store.prefix)
        self.access = Access(self.store, admin_token, self.repository.meta, self.lobby.get)
        self.organisers = self.access.organisers
        self._reports = VerificationReports(self.store)
        self.index = MatchIndex(self.store.client, self.store.prefix)
        self.tickets = StreamTickets(TicketStore(self.store.client, self.store.prefix),
                                     self.access, self.is_over)
        self.seats = Seats(self, lobby_ttl_s)
        self.live = live
        self.feed = feed

    # --- creation ----------------------------------------------------------------------

    def create(self, body: Mapping[str, Any], token: str | None) -> dict[str, Any]:
        """Create a match and deal its first hand; returns the seats' tokens once. With
        open seats, the match waits for its players instead (``service.usecases.seats``)."""
        if has_open_seats(body):
            return self.seats.create_open(body, token)
        if body.get("invite_code"):
            raise invalid("invite_code", "an invite code is for a match with open seats",
                          "invalid_invite_code")
        return self.store_new(self.prepare(body, token))

    def prepare(self, body: Mapping[str, Any], token: str | None,
                match_secrets: MatchSecrets | None = None) -> NewMatch:
        """Validate a creation body and decide the match's first events, storing nothing.

        ``match_secrets`` (a duplicate table's, service/usecases/tournaments.py) replaces the
        secrets the body would give, so every hand deals exactly as at the other table.
        """
        if has_open_seats(body) or body.get("invite_code"):
            raise invalid("players", "open seats and invite codes are for a match created "
                          "on its own (POST /v1/matches)", "invalid_players")
        variant = VARIANTS.get(body["variant"])
        if variant is None:
            raise invalid("variant", f"unknown variant; one of {sorted(VARIANTS)}",
                              "unknown_variant")
        names = [player["name"] for player in body["players"]]
        if not variant.min_players <= len(names) <= variant.max_players:
            raise invalid("players", f"{variant.name} takes {variant.min_players}-"
                              f"{variant.max_players} players", "invalid_players")
        try:
            options = variant.parse_options(body.get("options"), len(names))
        except OptionError as exc:
            raise invalid(f"options.{exc.field}", exc.message, "invalid_option") from exc
        owner = self.organiser(token)
        organiser_fields = [f for f in ORGANISER_FIELDS if body.get(f) is not None]
        if organiser_fields and owner is None:
            raise not_allowed(token is not None, "organiser_only",
                           f"{', '.join(organiser_fields)} need an organiser key "
                           "(or the admin token)")
        return self.decide_new(variant, options, body, owner or "", match_secrets)

    def decide_new(self, variant: Variant, options: Any, body: Mapping[str, Any], owner: str,
                   match_secrets: MatchSecrets | None = None) -> NewMatch:
        """The first events of a validated body, for ``owner`` (checked by the caller)."""
        names = [player["name"] for player in body["players"]]
        if match_secrets is None:
            seed = (body["seed"].encode() if body.get("seed") is not None
                    else secrets.token_bytes(32))
            match_secrets = MatchSecrets(seed, tuple(p.get("entropy") or ""
                                                     for p in body["players"]))
        first_dealer = options.first_dealer
        if first_dealer is None:
            first_dealer = choose(len(names), match_secrets.seed, "first_dealer")
        deal = self._first_deal(variant, options, match_secrets, body)
        try:
            events = variant.start_match(names, options, first_dealer, deal)
        except RuleError as exc:
            field = "dice" if body.get("dice") is not None and "dice" in exc.code else "deck"
            raise invalid(field, exc.message, exc.code) from exc
        events.insert(1, match_secrets.committed())
        events[2:2] = clock_events(body.get("clock"))
        return NewMatch(variant, options, names, events, match_secrets, owner,
                        body.get("external_id"), tuple(dict.fromkeys(body.get("tags") or ())),
                        tuple(p.get("external_id") for p in body["players"]))

    def _first_deal(self, variant: Variant, options: Any, match_secrets: MatchSecrets,
                    body: Mapping[str, Any]) -> Deal:
        """Hand 1's Deal: shuffled from its seed, or the organiser's prepared deck."""
        fixed = {"dice": list(body["dice"])} if body.get("dice") is not None else None
        deal = variant.deal_for(options, match_secrets, 1, fixed)
        if body.get("deck") is None:
            return deal
        try:
            deck = parse_cards(body["deck"])
        except CardError as exc:
            raise invalid("deck", str(exc), "invalid_card") from exc
        return Deal(deck, deal.seed, prepared=True, fixed=deal.fixed)

    def store_new(self, new: NewMatch, match_id: str | None = None,
                  extra_meta: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Store a prepared match (its meta, first events and indexes); returns the seat
        tokens and the creator token, once."""
        match_id = match_id or uuid.uuid4().hex
        tokens = [new_token() for _ in new.names]
        creator = new_token()
        meta = {**self.meta_of(new, extra_meta), "creator": token_hash(creator)}
        meta.update({f"token:{seat}": token_hash(t) for seat, t in enumerate(tokens)})
        result = self.store.create(match_id, to_store(new.events),
                                   meta, command_id=f"create:{match_id}")
        info = self.created(match_id, meta, result.events)
        return {"id": match_id, "version": result.version, "status": "started",
                **info.fields(), "creator_token": creator,
                "seats": [{"seat": seat, "name": name, "external_id": info.player_id(seat),
                           "token": tokens[seat]} for seat, name in enumerate(new.names)]}

    @staticmethod
    def meta_of(new: NewMatch, extra_meta: Mapping[str, str] | None = None) -> dict[str, str]:
        """A new match's meta hash, but for the token hashes."""
        return {"variant": new.variant.name, "seed": new.secrets.seed.hex(),
                "entropy": json.dumps(list(new.secrets.entropy)),
                "created_at": f"{time.time():.3f}", "owner": new.owner,
                **meta_fields(new.external_id, new.tags, new.player_ids, new.names),
                **(extra_meta or {})}

    def created(self, match_id: str, meta: Mapping[str, str],
                events: tuple[StoredEvent, ...]) -> MatchInfo:
        """What follows a match's first write: its token index and its listings, then the
        runner's own path after a write (subscribers, and the follow-up that sees to what
        the match owes from the start, such as its first turn's clock)."""
        self.access.register(match_id, {value: int(key.removeprefix("token:"))
                                        for key, value in meta.items()
                                        if key.startswith("token:") and value},
                             meta.get("creator") or None)
        info = MatchInfo.from_meta(match_id, meta)
        self.index.add(info)
        self.runner.created(match_id, events)
        return info

    def info(self, match_id: str) -> MatchInfo | None:
        """A match's fixed metadata (the repository's cached meta); None when unknown."""
        meta = self.repository.meta(match_id)
        return None if meta is None else MatchInfo.from_meta(match_id, meta)

    # --- reading -----------------------------------------------------------------------

    def load(self, match_id: str) -> Match:
        """The match folded to its newest version (``NotFound`` when unknown,
        ``MatchNotStarted`` while it waits for players)."""
        try:
            return self.repository.get(match_id)
        except NotFound:
            waiting = self.seats.waiting(match_id)
            if waiting is not None:
                raise MatchNotStarted(waiting) from None
            raise

    def load_at(self, match_id: str, version: int) -> Match:
        """The match as it stood at ``version``."""
        return self.repository.at(match_id, version)

    # --- who is asking (service.usecases.access) ------------------------------------------------

    def viewer(self, match_id: str, token: str | None) -> Viewer:
        return self.access.viewer(match_id, token)

    def is_admin(self, token: str | None) -> bool:
        return self.access.is_admin(token)

    def organiser(self, token: str | None) -> str | None:
        return self.access.organiser(token)

    def require_owner(self, match_id: str, token: str | None) -> str:
        return self.access.require_owner(match_id, token)

    def owner_of(self, match_id: str) -> str | None:
        return self.access.owner_of(match_id)

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The match now, with each seat's presence (not a game fact: not in the log)."""
        viewer = self.viewer(match_id, token)
        try:
            out = self._render(match_id, self.load(match_id), viewer)
        except MatchNotStarted as waiting:
            out = self.seats.view(waiting.lobby, viewer)
        seats = out.get("seats") or []
        for seat, presence in zip(seats, self.live.seats(match_id, len(seats)), strict=True):
            seat["presence"] = presence
        return out

    def _render(self, match_id: str, loaded: Match, viewer: Viewer) -> dict[str, Any]:
        out = loaded.variant.view(loaded.state, viewer)
        out.update(id=match_id, version=loaded.version)
        if loaded.clock is not None:
            out["clock"] = loaded.clock.to_view()
        info = self.info(match_id)
        return info.decorate(out) if info is not None else out

    def events(self, match_id: str, token: str | None,
               after: int = 0) -> list[dict[str, Any]]:
        """The log, each event redacted for the caller exactly like the views; the events
        of a hand whose seed has been revealed are shown in full to everyone. A match
        waiting for players has none yet."""
        viewer = self.viewer(match_id, token)
        try:
            return self.log_for(match_id, viewer, after)
        except MatchNotStarted:
            return []

    def log_for(self, match_id: str, viewer: Viewer, after: int = 0) -> list[dict[str, Any]]:
        loaded = self.load(match_id)
        stored = self.repository.stored(match_id)
        hands = HandIndex(stored)
        return [self.render_event(loaded.variant, e, hands.viewer_of(e.version, viewer))
                for e in stored[after:]]

    def state_at(self, match_id: str, token: str | None, at: int) -> dict[str, Any]:
        """The view after event ``at``: the caller's redaction, in full once that hand's
        seed has been revealed."""
        return self.state_for(match_id, self.viewer(match_id, token), at)

    def state_for(self, match_id: str, viewer: Viewer, at: int) -> dict[str, Any]:
        loaded = self.load(match_id)
        if at > loaded.version:
            raise NotFound("version_not_found",
                           f"the match has {loaded.version} events, not {at}")
        stored = self.repository.stored(match_id)
        past = self.repository.fold(Match.new(loaded.variant), stored[:at])
        return self._render(match_id, past, HandIndex(stored).viewer_of(at, viewer))

    @staticmethod
    def render_event(variant: Variant, stored: StoredEvent, viewer: Viewer) -> dict[str, Any]:
        """One event for ``viewer``: ``redacted`` says whether anything was left out (the
        hash covers the full event, so only unredacted events can be re-hashed)."""
        data = variant.redact_event(to_domain(stored), viewer)
        command = stored.command
        if command is not None and not viewer.can_see(command.get("seat")):
            command = None
        return {"version": stored.version, "type": stored.type, "schema": stored.schema,
                "ts": stored.ts, "command_id": stored.command_id,
                "prev_hash": stored.prev_hash, "hash": stored.hash, "data": data,
                "command": command,
                "redacted": command != stored.command or data != stored.data}

    def follow(self, match_id: str, token: str | None, after: int,
               keepalive_ms: int) -> Iterator[dict[str, Any] | None] | None:
        """New events for the caller as they are appended; None marks a keep-alive tick.

        Authorises now (so errors come before the stream starts); the stream ends after
        the match's final event has been sent. None when the match is over and the caller
        has every event: nothing will ever come (HTTP 204, so a browser stops reconnecting).
        """
        viewer = self.viewer(match_id, token)
        credential = token_hash(token) if token and viewer.seat is not None else None
        return self.follow_as(match_id, viewer, after, keepalive_ms, credential)

    def is_over(self, match_id: str) -> bool:
        """Whether the match has ended for good (finished, forfeited or aborted)."""
        try:
            return self.load(match_id).is_over
        except MatchNotStarted:
            return False

    def is_over_for(self, match_id: str, after: int) -> bool:
        """Whether the match is over and a client that has every event up to ``after``
        has its last one (nothing secret: a finished match's state is public)."""
        try:
            loaded = self.load(match_id)
        except MatchNotStarted:
            return False
        return loaded.is_over and after >= loaded.version

    def follow_as(self, match_id: str, viewer: Viewer, after: int, keepalive_ms: int,
                  credential: str | None = None) -> Iterator[dict[str, Any] | None] | None:
        """``follow`` for a viewer already known (a stream ticket's); a seat's
        ``credential`` is the hash of the token that opened the stream, whose rotation ends
        it. A match waiting for players is followed from its start: the first events come
        when the last seat is claimed."""
        holder = None
        if viewer.seat is not None and credential is not None:
            holder = SeatHolder(viewer.seat, credential,
                                partial(self.access.holds_seat, match_id, viewer.seat, credential))
        try:
            loaded = self.load(match_id)
        except MatchNotStarted as waiting:
            return self._follow(match_id, VARIANTS[waiting.lobby.variant], viewer, after,
                                keepalive_ms, holder)
        if loaded.is_over and after >= loaded.version:
            return None
        return self._follow(match_id, loaded.variant, viewer, after, keepalive_ms, holder)

    def _follow(self, match_id: str, variant: Variant, viewer: Viewer, after: int,
                keepalive_ms: int, holder: SeatHolder | None) -> Iterator[dict[str, Any] | None]:
        """Events rendered for ``viewer`` as the process's live hub delivers them; presence
        messages come as ``{"presence": {...}}``, and the stream's end as ``{"end":
        {"reason"}}``: ``match_over`` after the match's last event, ``token_rotated`` when
        the seat's token was replaced. Closing the generator (the client went away)
        unsubscribes it and ends the seat's presence."""
        hands = HandIndex(self.repository.stored(match_id))
        for batch in self.live.follow(match_id, after, keepalive_ms, holder):
            if isinstance(batch, Ended):
                yield {"end": {"reason": batch.reason}}
                return
            if not isinstance(batch, list):
                yield None if batch is None else {"presence": batch}
                continue
            hands.extend(e for e in batch if e.version >= hands.version)
            for stored in batch:
                shown_to = hands.viewer_of(stored.version, viewer)
                yield self.live.rendered(stored, shown_to,
                                         partial(self.render_event, variant, stored, shown_to))
                if stored.type in TERMINAL_EVENTS:
                    yield {"end": {"reason": MATCH_OVER}}
                    return

    # --- acting ------------------------------------------------------------------------

    def act(self, match_id: str, token: str | None, action: Mapping[str, Any],
            if_match: int | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        """Run one seat action; returns that seat's view as of the action's version."""
        seat = self.access.acting_seat(match_id, token)
        fingerprint = hashlib.sha256(
            json.dumps([seat, action], sort_keys=True).encode()).hexdigest()
        command = SeatAction(seat, action, command_id(f"seat{seat}", idempotency_key))
        once = Idempotency(f"{seat}:{idempotency_key}", fingerprint) if idempotency_key else None
        try:
            outcome = self.runner.run(match_id, command, expected_version=if_match,
                                      idempotency=once)
        except NotFound:
            self.load(match_id)
            raise
        return self._render(match_id, outcome.match, Viewer.for_seat(seat))

    # --- auditing ----------------------------------------------------------------------

    def export(self, match_id: str, token: str | None) -> Iterator[str]:
        """The whole log as NDJSON lines, redacted for the caller like ``events``.

        Authorises and reads before returning, so errors come before the response starts.
        """
        records = self.events(match_id, token)
        return (canonical_json(record) + "\n" for record in records)

    def request_verification(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Queue a replay job that verifies the whole log; returns its resource."""
        self.viewer(match_id, token)
        self.load(match_id)
        verification_id = uuid.uuid4().hex
        record = {"status": "queued", "requested_at": round(time.time(), 3)}
        self._reports.save(match_id, verification_id, record)
        self.work.verify(match_id, verification_id)
        return self.verification(match_id, verification_id, token)

    def verification(self, match_id: str, verification_id: str,
                     token: str | None) -> dict[str, Any]:
        self.viewer(match_id, token)
        record = self._reports.get(match_id, verification_id) if storable(match_id) else None
        if record is None:
            raise NotFound("verification_not_found",
                           f"no verification {verification_id!r} of match {match_id!r}")
        return {"id": verification_id, "match_id": match_id, **record}

    # --- organiser controls ------------------------------------------------------------

    def forfeit(self, match_id: str, token: str | None,
                body: Mapping[str, Any]) -> dict[str, Any]:
        """The owner forfeits a seat: the seat loses and the match ends (domain.controls)."""
        self.require_owner(match_id, token)
        loaded = self.load(match_id)
        seat = body["seat"]
        if not 0 <= seat < len(loaded.state.players):
            raise invalid("seat", f"the match has seats 0-{len(loaded.state.players) - 1}",
                              "unknown_seat")
        control = ForfeitSeat(seat, body["reason"])
        return self._end(match_id, control, f"organiser:forfeit:{uuid.uuid4().hex}")

    def abort(self, match_id: str, token: str | None,
              body: Mapping[str, Any]) -> dict[str, Any]:
        """The owner aborts the match: void, no winner (domain.controls)."""
        self.require_owner(match_id, token)
        self.load(match_id)
        return self._end(match_id, AbortMatch(body["reason"]),
                         f"organiser:abort:{uuid.uuid4().hex}")

    def _end(self, match_id: str, control: ForfeitSeat | AbortMatch,
             command_id: str) -> dict[str, Any]:
        outcome = self.runner.run(match_id, EndMatch(control, command_id))
        return self._render(match_id, outcome.match, Viewer.full())
