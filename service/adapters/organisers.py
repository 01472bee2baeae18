"""Organiser API keys: made, listed and revoked by the admin; stored only as hashes.

An organiser key can do for its own matches what the admin token does for all of them
(seeded and prepared matches, full views and logs, organiser controls); another
organiser's matches do not exist for it (404). Keys live in two Redis hashes:
``{prefix}:{organisers}`` (id -> JSON record) and ``{prefix}:{organisers}:keys`` (key hash
-> id), one hash tag, so the transactions over both stay in one Redis Cluster slot (before
this they were ``{prefix}:organisers`` and ``{prefix}:organiser_keys``: docs/operations.md
says how to move them). Every request looks the key up afresh, so a revoked key stops at
once.

A stream the key opened is not a request: it holds the key's hash, and the revocation is
announced on ``{prefix}:{organisers}:revoked:<id>`` (a capped stream, entries ``revoked`` =
the key's hash, on the key's own channel), in the same transaction that drops the hash
from the lookup table. Every process's stream hub reads that key beside the streams the
organiser's key opened (``service.usecases.revocation``), so they end in whichever
process holds them. One key per organiser, not an entry on each of its matches' live
keys: a revocation is one write and one message however many matches the organiser
runs, needs no list of its live matches, and reaches its feed too. The announcement is
only for streams open at that moment (a stream opened later is refused by the lookup),
so it expires after a day.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Mapping
from typing import Any

import redis

from service.adapters.auth import token_hash
from service.adapters.fanout import notify
from service.ports import ADMIN, Organiser

ANNOUNCED_MAXLEN = 16
ANNOUNCED_TTL_S = 24 * 3600


class OrganiserKeys:
    """The key registry (an adapter over two Redis hashes)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._records = f"{prefix}:{{organisers}}"
        self._by_hash = f"{prefix}:{{organisers}}:keys"
        self._revoked = f"{prefix}:{{organisers}}:revoked"

    def create(self, name: str) -> tuple[Organiser, str]:
        """A new organiser and its key; the key is returned only here, once."""
        organiser = Organiser(f"org_{uuid.uuid4().hex[:16]}", name, round(time.time(), 3))
        key = f"rk_{secrets.token_urlsafe(32)}"
        record = {**organiser.to_dict(), "key_hash": token_hash(key)}
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(self._records, organiser.id, json.dumps(record))
        pipe.hset(self._by_hash, record["key_hash"], organiser.id)
        pipe.execute()
        return organiser, key

    def all(self) -> list[Organiser]:
        records = [self._decode(raw) for raw in self._client.hvals(self._records)]
        return sorted(records, key=lambda o: (o.created_at, o.id))

    def get(self, organiser_id: str) -> Organiser | None:
        raw = self._client.hget(self._records, organiser_id)
        return None if raw is None else self._decode(raw)

    def revoke(self, organiser_id: str) -> Organiser | None:
        """Revoke at once: the key's hash leaves the lookup table and, in the same
        transaction, is announced revoked to the streams the key opened; the record
        stays."""
        raw = self._client.hget(self._records, organiser_id)
        if raw is None:
            return None
        record = json.loads(raw)
        if record.get("revoked_at") is None:
            record["revoked_at"] = round(time.time(), 3)
            announced = self.revocations_key(organiser_id)
            pipe = self._client.pipeline(transaction=True)
            pipe.hdel(self._by_hash, record["key_hash"])
            pipe.hset(self._records, organiser_id, json.dumps(record))
            pipe.xadd(announced, {"revoked": record["key_hash"]}, maxlen=ANNOUNCED_MAXLEN,
                      approximate=True)
            pipe.expire(announced, ANNOUNCED_TTL_S)
            notify(pipe, announced)
            pipe.execute()
        return self._decode(json.dumps(record))

    def revocations_key(self, organiser_id: str) -> str:
        """Where the organiser's key is announced revoked (see the module docstring)."""
        return f"{self._revoked}:{organiser_id}"

    def last_revocation(self, organiser_id: str) -> str:
        newest = self._client.xrevrange(self.revocations_key(organiser_id), "+", "-", count=1)
        return _text(newest[0][0]) if newest else "0-0"

    @staticmethod
    def revoked_hash(fields: Mapping[Any, Any]) -> str | None:
        """The key hash an announcement revokes (``revoked``), or None."""
        for key, value in fields.items():
            if _text(key) == "revoked":
                return _text(value)
        return None

    def is_live(self, owner: str) -> bool:
        """Whether ``owner`` (the admin, or an organiser id) may still receive webhooks: a
        revoked organiser may not."""
        if owner == ADMIN:
            return True
        organiser = self.get(owner)
        return organiser is not None and organiser.revoked_at is None

    def lookup(self, key: str) -> str | None:
        """The id of the live organiser whose key this is, else None."""
        return self.lookup_hash(token_hash(key))

    def lookup_hash(self, digest: str) -> str | None:
        """``lookup`` by the key's hash (what a stream ticket remembers of its key)."""
        raw = self._client.hget(self._by_hash, digest)
        return None if raw is None else _text(raw)

    @staticmethod
    def _decode(raw: Any) -> Organiser:
        record = json.loads(raw)
        return Organiser(record["id"], record["name"], record["created_at"],
                         record.get("revoked_at"))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
