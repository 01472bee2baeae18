"""The ports: what the use cases need of the outside, as small protocols and the plain
data they exchange. Adapters (``service.adapters``) implement them; the bootstrap builds
the adapters and hands them to the use cases by constructor; the use cases and the API
know only these names, never a Redis client.

The store's errors live here too, so that a use case or the API can tell a conflict from
an unknown match without importing an adapter.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Protocol

WEBHOOK_KINDS = ("hand_scored", "match_completed", "match_forfeited", "match_aborted",
                 "entrant_joined", "tournament_started", "round_paired", "round_repaired",
                 "tournament_match_recorded", "round_completed", "entrant_withdrawn",
                 "tournament_completed", "tournament_aborted")
"""Lifecycle kinds a webhook endpoint (or a feed filter) can name."""
MAX_WEBHOOKS = 20
"""Endpoints an organiser may register."""
MAX_DELIVERIES = 500
"""Deliveries kept in an endpoint's log (the newest)."""


class StoreError(Exception):
    """Base class of every error the event store raises on purpose."""


class UnknownMatch(StoreError):
    """No match with this id exists."""


class MatchExists(StoreError):
    """create() was called for a match id that is already taken."""


class VersionConflict(StoreError):
    """The stream moved past the version the caller decided on (HTTP 409: re-read, retry)."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected version {expected}, stream is at {actual}")
        self.expected = expected
        self.actual = actual


class IdempotencyKeyReused(StoreError):
    """The idempotency key was already used by a different request for this match."""


@dataclass(frozen=True)
class NewEvent:
    """An event the caller wants appended; the store adds version, time and hashes."""

    type: str
    data: Mapping[str, Any]
    schema: int = 1


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored: a fact, with its place in the match and in the hash chain."""

    version: int
    type: str
    schema: int
    data: dict[str, Any]
    command_id: str | None
    ts: float
    prev_hash: str
    hash: str
    command: dict[str, Any] | None = None
    """The seat's action as sent, on the first event it caused (None for jobs)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form, e.g. for exports and SSE payloads."""
        return {
            "command": self.command,
            "version": self.version,
            "type": self.type,
            "schema": self.schema,
            "data": dict(self.data),
            "command_id": self.command_id,
            "ts": self.ts,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first outcome of an idempotency key: the version its events reached, or the
    refusal it got (``{"kind", "code", "message", "errors"}``)."""

    fingerprint: str
    version: int | None = None
    refusal: dict[str, Any] | None = None


@dataclass(frozen=True)
class LobbyReply:
    """Where a lobby operation (leaving a seat, calling a match off) keeps its first
    outcome for an idempotency key: ``field`` of the lobby record (the key, scoped to the
    caller's token) and the ``fingerprint`` of the request. Written by the operation's own
    script, so the outcome is kept with the change; it goes with the lobby record."""

    field: str
    fingerprint: str


@dataclass(frozen=True)
class SeatClaim:
    """What ``claim_seat`` (or ``leave_seat``) did: ``status`` is one of store_scripts'
    ``NO_LOBBY``, ``NOT_OPEN``, ``TAKEN``, ``NEED_START`` (the last seat, claimed without
    a start or with one decided from an older lobby), ``CLAIMED`` (``open_seats`` left),
    ``STARTED`` (the match now exists at ``version``), ``LEFT`` (the seat is open again;
    ``open_seats`` now) or ``NAME_HELD``."""

    status: int
    open_seats: int | None = None
    version: int = 0
    events: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True)
class MatchStart:
    """The first events and meta of a waiting match, decided from its lobby record as it
    stood at ``revision`` (``Waiting.revision``). The claim of the last seat writes them
    only while the lobby is still at that revision: had a player left or claimed a seat
    since, the events would name a player who no longer holds the seat."""

    events: Sequence[NewEvent]
    meta: Mapping[str, str]
    revision: str


@dataclass(frozen=True)
class AppendResult:
    """Outcome of create/append; a replayed idempotency key reports the first version."""

    version: int
    events: tuple[StoredEvent, ...]
    replayed: bool = False


# --- the vocabulary the ports speak ------------------------------------------------------

NO_LOBBY, NOT_OPEN, TAKEN, NEED_START, CLAIMED, STARTED, LEFT = range(10, 17)
"""What a seat claim (or a player leaving a seat) did (``SeatClaim.status``)."""
NAME_HELD = 18
"""A claim refused because another seat's player holds a name that reads the same (the
``namekey:<seat>`` lobby fields): checked in the claim's own script, so two claims of one
name at the same instant cannot both pass."""

ADMIN = "admin"
"""The owner id of matches the admin token created."""


@dataclass(frozen=True)
class Organiser:
    id: str
    name: str
    created_at: float
    revoked_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MatchInfo:
    """A match's fixed metadata, as stored in its meta hash."""

    id: str
    variant: str
    owner: str
    created_at: float
    names: tuple[str, ...] = ()
    external_id: str | None = None
    tags: tuple[str, ...] = ()
    player_ids: tuple[str | None, ...] = ()
    batch: str | None = None
    duplicate: dict[str, Any] | None = field(default=None, compare=False)
    public_metadata: bool = False
    """Whether everybody who sees the match sees its external id, tags and players'
    external ids; else only its organiser and the admin (full views) do."""

    @classmethod
    def from_meta(cls, match_id: str, meta: Mapping[str, str]) -> MatchInfo:
        duplicate = None
        if meta.get("duplicate_group"):
            duplicate = {"group": meta["duplicate_group"],
                         "table": int(meta.get("duplicate_table", "1")),
                         "partner": meta.get("duplicate_partner")}
        return cls(match_id, meta.get("variant", ""), meta.get("owner", ""),
                   float(meta.get("created_at", "0")),
                   tuple(json.loads(meta.get("names", "[]"))),
                   meta.get("external_id") or None,
                   tuple(json.loads(meta.get("tags", "[]"))),
                   tuple(json.loads(meta.get("player_ids", "[]"))),
                   meta.get("batch") or None, duplicate,
                   meta.get("public_metadata") == "true")

    def player_id(self, seat: int) -> str | None:
        return self.player_ids[seat] if seat < len(self.player_ids) else None

    def fields(self, full: bool = True) -> dict[str, Any]:
        """What a view or listing shows of the metadata: all of it to a ``full`` viewer
        (the organiser, the admin) or when public, else no external id and no tags."""
        shown = full or self.public_metadata
        out: dict[str, Any] = {"external_id": self.external_id if shown else None,
                               "tags": list(self.tags) if shown else []}
        if self.batch is not None:
            out["batch"] = self.batch
        if self.duplicate is not None:
            out["duplicate"] = dict(self.duplicate)
        return out

    def decorate(self, view: dict[str, Any], full: bool) -> dict[str, Any]:
        """Add the metadata to a view, and each seat's external id to ``seats[]``, as
        ``fields`` shows them to a ``full`` viewer or not."""
        view.update(self.fields(full))
        shown = full or self.public_metadata
        for seat in view.get("seats", ()):
            if isinstance(seat, dict) and "seat" in seat:
                seat["external_id"] = self.player_id(seat["seat"]) if shown else None
        return view


def meta_fields(external_id: str | None, tags: Sequence[str],
                player_ids: Sequence[str | None], names: Sequence[str],
                public_metadata: bool = False) -> dict[str, str]:
    """The metadata's meta-hash fields, as written at creation."""
    return {"external_id": external_id or "", "tags": json.dumps(list(tags)),
            "player_ids": json.dumps(list(player_ids)), "names": json.dumps(list(names)),
            "public_metadata": "true" if public_metadata else ""}


@dataclass(frozen=True)
class Waiting:
    """One waiting match's lobby record."""

    match_id: str
    fields: Mapping[str, str]

    @property
    def variant(self) -> str:
        return self.fields["variant"]

    @property
    def seats(self) -> int:
        return int(self.fields["seats"])

    @property
    def open_seats(self) -> int:
        return int(self.fields["open"])

    @property
    def created_at(self) -> float:
        return float(self.fields["created_at"])

    def is_open(self, seat: int) -> bool:
        """Whether ``seat`` was created open and nobody has claimed it yet."""
        return (self.fields.get(f"seat:{seat}") == "open"
                and f"token:{seat}" not in self.fields)

    def seat_field(self, seat: int, name: str) -> str | None:
        return self.fields.get(f"{name}:{seat}") or None

    @property
    def revision(self) -> str:
        """Bumped by every claim and every leave: what a start was decided from."""
        return self.fields.get("rev", "0")

    def token_hashes(self) -> list[str]:
        """Token hashes by seat; "" for a seat nobody holds yet."""
        return [self.fields.get(f"token:{seat}", "") for seat in range(self.seats)]

    def answered(self, reply: LobbyReply) -> tuple[str, str] | None:
        """The fingerprint and the answer a lobby operation kept for ``reply``'s key (see
        ``LobbyReply``), or None when its first request did not succeed (yet)."""
        kept = self.fields.get(reply.field)
        if kept is None:
            return None
        fingerprint, _, answer = kept.partition("|")
        return fingerprint, answer

    @property
    def aborted(self) -> dict[str, Any] | None:
        """How the match was called off before it started (``reason``, ``by``: creator or
        organiser, ``at``), or None while it still waits."""
        if "aborted_at" not in self.fields:
            return None
        return {"reason": self.fields["aborted_reason"], "by": self.fields["aborted_by"],
                "at": float(self.fields["aborted_at"])}


@dataclass(frozen=True)
class Webhook:
    id: str
    owner: str
    url: str
    secret: str
    events: tuple[str, ...]
    created_at: float

    def public(self) -> dict[str, Any]:
        """The record as the API shows it: never the secret."""
        return {"id": self.id, "url": self.url, "events": list(self.events),
                "created_at": self.created_at}


@dataclass(frozen=True)
class DeliveryRef:
    """What a delivery job needs to find its record: ids, never objects."""

    owner: str
    webhook_id: str
    delivery_id: str


def entry_order(entry_id: str) -> tuple[int, int]:
    """A stream entry id as a sortable pair (``"5-0"`` -> (5, 0))."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class StoreUnavailable(StoreError):
    """The store did not answer (an adapter's own errors, translated at the port)."""


# --- the ports ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Appending:
    """One match's append of a batch (``EventStore.append_many``): as ``append`` takes
    it, without an idempotency key (a worker's steps carry none)."""

    match_id: str
    expected_version: int
    events: tuple[NewEvent, ...]
    command_id: str | None = None
    prev_hash: str | None = None
    command: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Reading:
    """One log of a batched read: its events after ``after``, and its meta when
    ``with_meta`` (a loader that has not cached the aggregate needs it to begin)."""

    match_id: str
    after: int = 0
    with_meta: bool = False


@dataclass(frozen=True)
class Loaded:
    """What a ``Reading`` found: the events, and the meta it asked for (None when there
    is none: no such log, or not asked)."""

    events: list[StoredEvent]
    meta: dict[str, str] | None = None


class EventStore(Protocol):
    """Matches' event logs and metadata: the one place events are written."""

    def read(self, match_id: str, after: int = 0,
             until: int | None = None) -> list[StoredEvent]: ...

    def meta(self, match_id: str) -> dict[str, str] | None: ...

    def read_many(self, reads: Sequence[Reading]) -> list[Loaded]:
        """Many ``read``s (each with its ``meta`` when asked), in one round trip."""
        ...

    def append_many(self, appends: Sequence[Appending]) -> list[AppendResult | Exception]:
        """Many matches' ``append``s in one round trip: each one's result, or the error
        its ``append`` would have raised (a refusal, or a write the replicas asked for did
        not confirm)."""
        ...

    def create(self, match_id: str, events: Sequence[NewEvent], meta: Mapping[str, str], *,
               command_id: str | None = None) -> AppendResult: ...

    def add_meta(self, match_id: str, fields: Mapping[str, str]) -> None: ...

    def append(self, match_id: str, expected_version: int, events: Sequence[NewEvent], *,
               command_id: str | None = None, idempotency_key: str | None = None,
               fingerprint: str = "", prev_hash: str | None = None,
               command: Mapping[str, Any] | None = None) -> AppendResult: ...

    def claim_seat(self, match_id: str, seat: int, token_hash: str,
                   fields: Mapping[str, str], lobby_ttl_s: int,
                   start: MatchStart | None = None) -> SeatClaim: ...

    def rotate_seat_token(self, match_id: str, seat: int, token_hash: str) -> str | None: ...

    def leave_seat(self, match_id: str, seat: int, token_hash: str,
                   reply: LobbyReply | None = None) -> SeatClaim: ...

    def abandon_waiting(self, match_id: str, reason: str, by: str,
                        reply: LobbyReply | None = None) -> bool | None: ...

    def idempotency_outcome(self, match_id: str, key: str) -> IdempotencyRecord | None: ...

    def record_refusal(self, match_id: str, key: str, fingerprint: str,
                       refusal: Mapping[str, Any]) -> None: ...

    def claim_idempotency(self, match_id: str, key: str, ttl_ms: int) -> bool: ...

    def release_idempotency(self, match_id: str, key: str) -> None: ...

    def events_key(self, match_id: str) -> str:
        """The stream key of the match's events (what a fan-out follows)."""

    def decode(self, match_id: str, entry_id: str, fields: Mapping[Any, Any]) -> StoredEvent:
        """An entry of the match's events key as a fan-out delivered it."""


class SnapshotStore(Protocol):
    """Each match's one snapshot of its fold (``service.usecases.snapshots``): derived,
    kept beside its events, replaced whole; losing it costs a longer fold, nothing else."""

    def load(self, match_id: str) -> bytes | None:
        """The match's snapshot as written, None when there is none or it cannot be read."""

    def load_many(self, match_ids: Sequence[str]) -> list[bytes | None]:
        """``load`` of each match, in one round trip (a worker's batch of cold loads)."""

    def save(self, match_id: str, snapshot: bytes) -> None: ...


class Subscription(Protocol):
    closed: bool

    def get(self) -> list[tuple[str, list[tuple[str, Mapping[Any, Any]]]]]: ...


class FanOut(Protocol):
    """The process's follower of stream keys (the stream hub)."""

    def subscribe(self, positions: Mapping[str, str], idle_s: float) -> Subscription: ...

    def unsubscribe(self, sub: Any) -> None:
        """Forget a subscription this fan-out gave."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class Sightings:
    """Where a match's seats are, beside its log: the seats with a stream open now, and
    when each seat was last here (epoch seconds) as far as presence knows."""

    online: frozenset[int]
    seen: Mapping[int, float]


@dataclass(frozen=True)
class PresenceNow:
    """A match's presence as read: the seats with a stream open now, and when each seat
    last acted (epoch seconds)."""

    online: frozenset[int]
    acted: Mapping[int, float]

    def of(self, seats: int) -> list[dict[str, Any]]:
        """Each seat's ``{"online", "last_action_at"}``."""
        return [{"online": seat in self.online, "last_action_at": self.acted.get(seat)}
                for seat in range(seats)]


class PresenceStore(Protocol):
    """Which seats have a stream open, when each last acted, and the match's live key."""

    ttl_ms: int

    def live_key(self, match_id: str) -> str: ...

    def last_live_id(self, match_id: str) -> str: ...

    def open(self, match_id: str, member: str) -> None: ...

    def close(self, match_id: str, member: str) -> None: ...

    def refresh(self, held: Mapping[str, Iterable[str]]) -> None: ...

    def acted(self, match_id: str, seat: int, ts: float) -> None: ...

    def of(self, match_id: str, seats: int) -> list[dict[str, Any]]: ...

    def with_events(self, match_id: str, after: int) -> tuple[list[StoredEvent], PresenceNow]:
        """The match's events after version ``after`` and its presence, read together (a
        view needs both)."""

    def with_meta_and_events(self, match_id: str, after: int
                             ) -> tuple[dict[str, str] | None, list[StoredEvent], PresenceNow]:
        """``with_events`` with the match's meta, read together (a seat view's token check
        needs the meta, the view the rest)."""

    def saw(self, match_id: str, seat: int) -> None:
        """A seat is here now without a stream (its token read the match)."""

    def sightings(self, match_ids: Sequence[str]) -> list[Sightings]: ...

    def message(self, fields: Mapping[Any, Any]) -> dict[str, Any] | None:
        """A live-key entry as a presence message (``{"seat", "online"}``), or None."""

    def ends(self, fields: Mapping[Any, Any]) -> bool:
        """Whether a live-key entry announces the match's end before it started."""

    def revocation(self, fields: Mapping[Any, Any]) -> tuple[str, str] | None:
        """The token hash a live-key entry revokes and why (``rotated``, or ``left``: the
        player gave the seat back), or None."""


class Feed(Protocol):
    """The organisers' lifecycle feeds."""

    def key(self, owner: str) -> str: ...

    def publish(self, owner: str, messages: Sequence[str]) -> None: ...

    def after(self, owner: str, position: str, count: int = 100) -> list[tuple[str, str]]: ...

    def message(self, fields: Mapping[Any, Any]) -> str:
        """A feed entry's message text, as a fan-out delivered it."""


class Lobby(Protocol):
    """Matches waiting for their open seats."""

    def open(self, match_id: str, fields: Mapping[str, str], ttl_s: int) -> None: ...

    def get(self, match_id: str) -> Waiting | None: ...

    def unlist(self, match_id: str, variant: str) -> None: ...

    def listing(self, variant: str | None, offset: int,
                limit: int) -> tuple[list[Waiting], int | None]: ...


class OpenEntries(Protocol):
    """Tournaments open for entry, as the lobby lists them (derived)."""

    def add(self, tournament_id: str, variant: str, created_at: float) -> None: ...

    def unlist(self, tournament_id: str, variant: str) -> None: ...

    def page(self, variant: str | None, offset: int,
             limit: int) -> tuple[list[str], int | None]: ...


class Catalog(Protocol):
    """The indexes of matches by owner, tag and external id."""

    def add(self, info: MatchInfo) -> None: ...

    def narrowest(self, owner: str | None, tags: Sequence[str],
                  external_id: str | None) -> str: ...

    def scan(self, key: str, after: tuple[float, str] | None = None,
             newest_first: bool = True) -> Iterator[tuple[str, float]]: ...


class Tokens(Protocol):
    """Every issued seat and creator token's hash, and whose it is."""

    def register(self, match_id: str, seats: dict[str, int],
                 creator: str | None = None) -> None: ...

    def forget(self, digests: list[str]) -> None: ...

    def owner(self, digest: str) -> tuple[str, int | None] | None: ...


class RematchTokens(Protocol):
    """The hashes of a rematch's seat tokens, by its seat, kept with the ended match until
    the rematch is created (``service.adapters.rematches``)."""

    def keep(self, match_id: str, seat: int, digest: str) -> None: ...

    def of(self, match_id: str) -> dict[int, str]: ...


class Organisers(Protocol):
    """The organisers and their API keys (stored as hashes)."""

    def create(self, name: str) -> tuple[Organiser, str]: ...

    def all(self) -> list[Organiser]: ...

    def get(self, organiser_id: str) -> Organiser | None: ...

    def revoke(self, organiser_id: str) -> Organiser | None: ...

    def is_live(self, owner: str) -> bool: ...

    def lookup(self, key: str) -> str | None: ...

    def lookup_hash(self, digest: str) -> str | None: ...

    def revocations_key(self, organiser_id: str) -> str:
        """The stream key on which the organiser's key is announced revoked (what the
        streams that key opened follow beside their own)."""

    def last_revocation(self, organiser_id: str) -> str:
        """The newest entry id of ``revocations_key`` ("0-0" when it has none)."""

    def revoked_hash(self, fields: Mapping[Any, Any]) -> str | None:
        """The key hash a ``revocations_key`` entry announces revoked, or None."""


class Tickets(Protocol):
    """Stream tickets, kept hashed, taken once."""

    def put_match(self, match_id: str, ticket: str, holder: str, ttl_s: int) -> None: ...

    def take_match(self, match_id: str, ticket: str) -> str | None: ...

    def put_feed(self, ticket: str, organiser: str, ttl_s: int) -> None: ...

    def take_feed(self, ticket: str) -> str | None: ...


class Batches(Protocol):
    def save(self, record: Mapping[str, Any]) -> None: ...

    def get(self, batch_id: str) -> dict[str, Any] | None: ...


class WebhookStore(Protocol):
    """The organisers' endpoints and their delivery logs."""

    def create(self, owner: str, url: str, secret: str,
               events: Sequence[str]) -> Webhook | None: ...

    def all(self, owner: str) -> list[Webhook]: ...

    def get(self, owner: str, webhook_id: str) -> Webhook | None: ...

    def delete(self, owner: str, webhook_id: str) -> bool: ...

    def deliveries(self, webhook_id: str, limit: int,
                   offset: int = 0) -> list[dict[str, Any]]: ...

    def add_delivery(self, webhook: Webhook, message: Mapping[str, Any],
                     body: str) -> DeliveryRef | None: ...


class Reports(Protocol):
    """Verification reports, filed with their match (or tournament: any aggregate's id),
    each expiring; at most one verification of a log version is queued or running at a
    time."""

    def open(self, match_id: str, version: int, verification_id: str,
             record: Mapping[str, Any]) -> str: ...

    def save(self, match_id: str, verification_id: str, record: Mapping[str, Any]) -> None: ...

    def finish(self, match_id: str, verification_id: str, version: int | None,
               record: Mapping[str, Any]) -> None: ...

    def get(self, match_id: str, verification_id: str) -> dict[str, Any] | None: ...


class Analyses(Protocol):
    """Post-game analyses, filed with their match under ids their parameters decide, each
    expiring; an analysis queued, running or done is answered, never asked again."""

    def open(self, match_id: str, analysis_id: str, record: Mapping[str, Any]) -> bool:
        """File ``record`` (queued) unless the analysis is queued, running or done: True
        when it was filed, so the caller queues the work."""

    def save(self, match_id: str, analysis_id: str, record: Mapping[str, Any]) -> None: ...

    def get(self, match_id: str, analysis_id: str) -> dict[str, Any] | None: ...


class AnalysisFailed(Exception):
    """An analysis did not finish: its process could not start, ran past its time or died."""


class Analyst(Protocol):
    """Weighs every decision of a finished match's log (``domain.bots.analysis``), here or
    in another process; ``AnalysisFailed`` when it cannot."""

    def __call__(self, variant: str, records: Sequence[Mapping[str, Any]], seed: str,
                 budget_ms: int, samples: int) -> list[dict[str, Any]]: ...


class WorkIndex(Protocol):
    """The matches awaiting background work, by kind (the table of obligations' kinds:
    ``service.usecases.obligations.KINDS``), and when each is due."""

    def mark(self, kind: str, match_id: str, at: float) -> None: ...

    def reschedule(self, kind: str, match_id: str, at: float) -> None: ...

    def wake(self) -> None: ...


class Jobs(Protocol):
    """Background jobs for workers (real mode)."""

    def enqueue_replay(self, match_id: str, verification_id: str) -> str: ...

    def enqueue_tournament_replay(self, tournament_id: str, verification_id: str) -> str: ...

    def enqueue_analysis(self, match_id: str, analysis_id: str) -> str: ...

    def enqueue_delivery(self, owner: str, webhook_id: str, delivery_id: str) -> str: ...


class WorkTimer(Protocol):
    """Embedded mode's one timer of owed work, every kind: it calls ``fire(kind,
    match_id)`` on a thread of its own once ``at`` (epoch seconds) has come."""

    def schedule(self, kind: str, match_id: str, at: float) -> None: ...

    def start(self, fire: Callable[[str, str], None]) -> None: ...


class Deliveries(Protocol):
    """Embedded mode's webhook deliveries."""

    def submit(self, ref: DeliveryRef, delay: float = 0.0) -> None: ...


class FinishedRecord(Protocol):
    """Embedded mode's record of finished matches, which deletes the oldest beyond a cap."""

    def record(self, match_id: str, finished_at: float) -> list[str]: ...


# --- verifying uploaded logs -------------------------------------------------------------


class Spool(Protocol):
    """An uploaded log's checked lines, kept out of the process's memory until verified."""

    def write(self, line: bytes) -> None: ...


ANSWER_PART = 64 * 1024
"""The verifier's answer is read (and sent) this much at a time."""


@dataclass
class Verification:
    """What the verifier made of a spooled log: the answer's JSON text, ``size`` bytes in
    ``answer`` (a file, read part by part: never held whole), or the ``refusal`` (code,
    message) of a log it cannot walk. ``close`` lets the file go (``parts`` does at its
    end)."""

    answer: IO[bytes] | None
    size: int = 0
    refusal: tuple[str, str] | None = None

    def parts(self) -> Iterator[bytes]:
        if self.answer is None:
            return
        try:
            while part := self.answer.read(ANSWER_PART):
                yield part
        finally:
            self.close()

    def close(self) -> None:
        if self.answer is not None:
            self.answer.close()


class VerifierBusy(Exception):
    """Every verification slot stayed taken while the request waited for one."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"every verifier is busy; retry after {retry_after_s} s")
        self.retry_after_s = retry_after_s


class VerifierFailed(Exception):
    """A verification did not finish: its process could not start, took too long or died."""


class LogVerifier(Protocol):
    """Verifies uploaded logs away from the request loop, a few at a time."""

    def spool(self) -> AbstractContextManager[Spool]: ...

    def verify(self, spool: Spool, states_bytes: int | None) -> Verification: ...


@dataclass(frozen=True)
class RatingRecord:
    """One player's rating of a variant as stored: openskill's mu and sigma, the tables
    rated, and the name last seen."""

    player: str
    name: str
    mu: float
    sigma: float
    games: int


class Ratings(Protocol):
    """Players' ratings by variant, each result applied once."""

    def apply(self, variant: str, marker: str, players: Sequence[tuple[str, str]],
              update: Callable[[list[RatingRecord | None]], list[RatingRecord]]) -> bool:
        """Update the ratings of ``players`` (id, name) with ``update`` of their ratings
        now (None for a player not rated yet), unless ``marker`` was applied already;
        whether this call applied it. Concurrent updates of the variant retry."""

    def top(self, variant: str, offset: int, limit: int) -> tuple[int, list[RatingRecord]]:
        """How many players the variant rates, and a page of them, best first."""


# --- what the server counts ----------------------------------------------------------------


class RunObserver(Protocol):
    """What the command runner tells as it runs (``service.usecases.runner``), by kind of
    aggregate (``match``, ``tournament``)."""

    def appended(self, aggregate: str, events: int) -> None:
        """A command's events were appended."""

    def conflicted(self, aggregate: str) -> None:
        """An append lost its race: the log moved past the version it was decided on."""

    def retried(self, aggregate: str) -> None:
        """A command is decided again on the newer version after a lost race."""

    def replayed(self, aggregate: str) -> None:
        """A retried idempotency key got its first request's answer again."""


class Metrics(RunObserver, Protocol):
    """The figures an operator watches (``service.adapters.metrics``: Prometheus). Every
    part of the server reports through this port; none imports a metrics library."""

    def request_answered(self, route: str, method: str, status: int, seconds: float) -> None:
        """An HTTP request was answered (``route``: the URL rule, never the raw path)."""

    def action_taken(self, variant: str, outcome: str) -> None:
        """A seat's action: ``accepted``, ``replayed`` or the refusal's code."""

    def store_round_trip(self, store: str, operation: str) -> None:
        """The event store (``store``: its index, ``matches`` or ``tournaments``) made one
        round trip to Redis for ``operation`` (a script call or a command)."""

    def redriven(self, kind: str, result: str) -> None:
        """The reconciler took a due row of owed work of ``kind``: ``paid`` (events
        appended), ``idle`` (nothing to append), ``gone`` (no such aggregate) or
        ``failed``."""

    def stream_opened(self) -> None:
        """A live stream (a match's or a feed) began following its key in this process."""

    def stream_closed(self) -> None: ...

    def fanned_out(self, delay_s: float) -> None:
        """An entry reached this process's streams ``delay_s`` after it was written."""

    def rate_limited(self, route: str) -> None:
        """A request to ``route`` was refused with 429."""

    def exposition(self) -> tuple[bytes, str]:
        """The figures as a scrape answer: the body and its content type."""


class Unmeasured:
    """``Metrics`` that count nothing (the default of parts built without them)."""

    def appended(self, aggregate: str, events: int) -> None:
        pass

    def conflicted(self, aggregate: str) -> None:
        pass

    def retried(self, aggregate: str) -> None:
        pass

    def replayed(self, aggregate: str) -> None:
        pass

    def request_answered(self, route: str, method: str, status: int, seconds: float) -> None:
        pass

    def action_taken(self, variant: str, outcome: str) -> None:
        pass

    def store_round_trip(self, store: str, operation: str) -> None:
        pass

    def redriven(self, kind: str, result: str) -> None:
        pass

    def stream_opened(self) -> None:
        pass

    def stream_closed(self) -> None:
        pass

    def fanned_out(self, delay_s: float) -> None:
        pass

    def rate_limited(self, route: str) -> None:
        pass

    def exposition(self) -> tuple[bytes, str]:
        return b"", "text/plain; version=0.0.4; charset=utf-8"


UNMEASURED = Unmeasured()


@dataclass(frozen=True)
class Backlog:
    """Owed work of one kind that is due now: how many rows, and since when the oldest
    has been due (epoch seconds; None when nothing is due)."""

    due: int
    oldest_due_at: float | None


class OwedWork(Protocol):
    """Where owed work waits (the work index in real mode, the timer in embedded mode),
    as a scrape reads it."""

    def backlog(self, kind: str, now: float) -> Backlog: ...
