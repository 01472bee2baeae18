"""Stream tickets as stored: hashed, expiring, taken once.

- ``{prefix}:{<match_id>}:ticket:<sha256 of the ticket>`` -> who it lets in (a match's
  stream; the key lives in the match's Cluster slot);
- ``{prefix}:feed:ticket:<sha256 of the ticket>`` -> ``<organiser id>:<the key's hash>``
  (the lifecycle feed).

The ticket itself is never stored. ``take`` is GETDEL, so a ticket lets in one request.
"""

from __future__ import annotations

import redis

from service.adapters.auth import token_hash


class TicketStore:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def _match_key(self, match_id: str, ticket: str) -> str:
        return f"{self._prefix}:{{{match_id}}}:ticket:{token_hash(ticket)}"

    def _feed_key(self, ticket: str) -> str:
        return f"{self._prefix}:feed:ticket:{token_hash(ticket)}"

    def put_match(self, match_id: str, ticket: str, holder: str, ttl_s: int) -> None:
        self._client.set(self._match_key(match_id, ticket), holder, ex=ttl_s)

    def take_match(self, match_id: str, ticket: str) -> str | None:
        return _text(self._client.getdel(self._match_key(match_id, ticket)))

    def put_feed(self, ticket: str, organiser: str, ttl_s: int) -> None:
        self._client.set(self._feed_key(ticket), organiser, ex=ttl_s)

    def take_feed(self, ticket: str) -> str | None:
        return _text(self._client.getdel(self._feed_key(ticket)))


def _text(value: object) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)
