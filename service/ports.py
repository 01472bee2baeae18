"""The ports: what the use cases need of the outside, as small protocols and the plain
data they exchange. Adapters (``service.adapters``) implement them; the bootstrap builds
the adapters and hands them to the use cases by constructor; the use cases and the API
know only these names, never a Redis client.

The store's errors live here too, so that a use case or the API can tell a conflict from
an unknown match without importing an adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

WEBHOOK_KINDS = ("hand_scored", "match_completed", "match_forfeited", "match_aborted")
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
class SeatClaim:
    """What ``claim_seat`` did: ``status`` is one of store_scripts' ``NO_LOBBY``,
    ``NOT_OPEN``, ``TAKEN``, ``NEED_START``, ``CLAIMED`` (``open_seats`` left) or
    ``STARTED`` (the match now exists at ``version``)."""

    status: int
    open_seats: int | None = None
    version: int = 0
    events: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True)
class AppendResult:
    """Outcome of create/append; a replayed idempotency key reports the first version."""

    version: int
    events: tuple[StoredEvent, ...]
    replayed: bool = False
