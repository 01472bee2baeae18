"""Tournaments open for entry, as listed in the lobby: derived sorted sets (score = the
creation time), ``{prefix}:tournament_entry`` and ``{prefix}:tournament_entry:variant:
<variant>``. A tournament leaves them when it starts or is called off; an entry the
listing finds closed (a lost removal) is dropped when a listing meets it."""

from __future__ import annotations

from typing import Any

import redis


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisOpenEntries:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def _index(self, variant: str | None) -> str:
        return f"{self._prefix}:tournament_entry" + (f":variant:{variant}" if variant else "")

    def add(self, tournament_id: str, variant: str, created_at: float) -> None:
        for index in (self._index(None), self._index(variant)):
            self._client.zadd(index, {tournament_id: created_at})

    def unlist(self, tournament_id: str, variant: str) -> None:
        for index in (self._index(None), self._index(variant)):
            self._client.zrem(index, tournament_id)

    def page(self, variant: str | None, offset: int, limit: int) -> tuple[list[str], int | None]:
        """A page of ids, newest first, and the next page's offset (None at the end)."""
        index = self._index(variant)
        ids = [_text(i) for i in self._client.zrevrange(index, offset, offset + limit - 1)]
        more = len(ids) == limit and self._client.zcard(index) > offset + limit
        return ids, (offset + limit if more else None)
