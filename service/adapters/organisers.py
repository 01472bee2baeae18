"""Organiser API keys: made, listed and revoked by the admin; stored only as hashes.

An organiser key can do for its own matches what the admin token does for all of them
(seeded and prepared matches, full views and logs, organiser controls); another
organiser's matches do not exist for it (404). Keys live in two Redis hashes:
``{prefix}:organisers`` (id -> JSON record) and ``{prefix}:organiser_keys`` (key hash ->
id). Every request looks the key up afresh, so a revoked key stops at once.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from typing import Any

import redis

from service.adapters.auth import token_hash
from service.ports import ADMIN, Organiser


class OrganiserKeys:
    """The key registry (an adapter over two Redis hashes)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._records = f"{prefix}:organisers"
        self._by_hash = f"{prefix}:organiser_keys"

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
        """Revoke at once: the key's hash leaves the lookup table; the record stays."""
        raw = self._client.hget(self._records, organiser_id)
        if raw is None:
            return None
        record = json.loads(raw)
        if record.get("revoked_at") is None:
            record["revoked_at"] = round(time.time(), 3)
            pipe = self._client.pipeline(transaction=True)
            pipe.hdel(self._by_hash, record["key_hash"])
            pipe.hset(self._records, organiser_id, json.dumps(record))
            pipe.execute()
        return self._decode(json.dumps(record))

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
        if raw is None:
            return None
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    @staticmethod
    def _decode(raw: Any) -> Organiser:
        record = json.loads(raw)
        return Organiser(record["id"], record["name"], record["created_at"],
                         record.get("revoked_at"))
