"""Waiting matches as stored: a match created with open seats waits in a lobby record
until every seat is taken; only then are its first events written (``claim_seat`` in the
event store creates the match in the same script that takes the last seat).

- ``{prefix}:{<match_id>}:lobby`` hash (the match's Cluster slot), expiring when nobody
  claims a seat for ``ttl``:

  - ``variant``, ``body`` (the creation body, JSON), ``owner``, ``created_at``,
    ``creator`` (hash of the creator token), ``invite`` (hash of the invite code, or
    ""), ``seats`` (how many), ``open`` (how many are still open), ``rev`` (bumped by
    every claim and leave; absent is 0: the last claim starts the match only from the
    revision it decided the first events from);
  - per seat ``n``: ``seat:<n>`` (``open`` or ``named``), and once the seat has a player
    ``name:<n>``, ``token:<n>`` (token hash), ``entropy:<n>``, ``external_id:<n>``;
  - ``reply:<token hash>:<idempotency key>``: what leaving a seat or calling the match off
    answered (``service.ports.LobbyReply``), for retries.

- ``{prefix}:lobby`` and ``{prefix}:lobby:variant:<variant>`` sorted sets (score = creation
  time): the listing, derived; an entry whose record is gone (started or expired) is
  dropped when a listing meets it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import redis

from service.ports import Waiting


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class LobbyStore:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def _key(self, match_id: str) -> str:
        return f"{self._prefix}:{{{match_id}}}:lobby"

    def _index(self, variant: str | None) -> str:
        return f"{self._prefix}:lobby" + (f":variant:{variant}" if variant else "")

    def open(self, match_id: str, fields: Mapping[str, str], ttl_s: int) -> None:
        """Write a new waiting match and list it in the lobby."""
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(self._key(match_id), mapping=dict(fields))  # type: ignore[arg-type]
        pipe.expire(self._key(match_id), ttl_s)
        pipe.execute()
        score = {match_id: float(fields["created_at"])}
        self._client.zadd(self._index(None), score)
        self._client.zadd(self._index(fields["variant"]), score)

    def get(self, match_id: str) -> Waiting | None:
        raw = self._client.hgetall(self._key(match_id))
        if not raw:
            return None
        return Waiting(match_id, {_text(k): _text(v) for k, v in raw.items()})

    def unlist(self, match_id: str, variant: str) -> None:
        """Take a match out of the listing (it started)."""
        self._client.zrem(self._index(None), match_id)
        self._client.zrem(self._index(variant), match_id)

    def listing(self, variant: str | None, offset: int,
                limit: int) -> tuple[list[Waiting], int | None]:
        """A page of waiting matches, newest first, and the next page's offset (None at
        the end)."""
        index = self._index(variant)
        ids = [_text(i) for i in self._client.zrevrange(index, offset, offset + limit - 1)]
        pipe = self._client.pipeline(transaction=False)
        for match_id in ids:
            pipe.hgetall(self._key(match_id))
        found: list[Waiting] = []
        for match_id, raw in zip(ids, pipe.execute(), strict=True):
            if raw:
                found.append(Waiting(match_id, {_text(k): _text(v) for k, v in raw.items()}))
            else:
                self._client.zrem(self._index(None), match_id)
                if variant:
                    self._client.zrem(index, match_id)
        more = len(ids) == limit and self._client.zcard(index) > offset + limit
        return found, (offset + limit if more else None)
