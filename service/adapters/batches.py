"""Batches of matches, as stored: ``{prefix}:batch:<id>`` holds one JSON record (id,
owner, created_at, duplicate, tags, matches)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import redis


class BatchStore:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client, self._prefix = client, prefix

    def _key(self, batch_id: str) -> str:
        return f"{self._prefix}:batch:{batch_id}"

    def save(self, record: Mapping[str, Any]) -> None:
        self._client.set(self._key(record["id"]), json.dumps(record))

    def get(self, batch_id: str) -> dict[str, Any] | None:
        raw = self._client.get(self._key(batch_id))
        return None if raw is None else dict(json.loads(raw))
