"""The index of every issued token's hash (``service.credentials`` makes and hashes them)."""

from __future__ import annotations

from typing import Any

import redis

from service.credentials import new_token, same_secret, token_hash

__all__ = ["CREATOR", "TokenIndex", "new_token", "same_secret", "token_hash"]


CREATOR = "creator"
"""What the index records for a match's creator token instead of a seat number."""


class TokenIndex:
    """token hash -> (match, seat) across all matches; a creator token's seat is None.

    Derived data outside the per-match keys: it lets the API tell a token of another
    match (403) from one that is not a token at all (401), and refuse a made-up token
    wherever one is sent. Creator tokens of matches created before they were indexed are
    not in it (the match's own meta still knows them).
    """

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._key = f"{prefix}:tokens"

    def register(self, match_id: str, seats: dict[str, int], creator: str | None = None) -> None:
        holders: dict[Any, Any] = {h: f"{match_id}:{seat}" for h, seat in seats.items()}
        if creator:
            holders[creator] = f"{match_id}:{CREATOR}"
        if holders:
            self._client.hset(self._key, mapping=holders)

    def forget(self, digests: list[str]) -> None:
        """Drop token hashes: a rotated token, or a deleted match's (embedded retention)."""
        if digests:
            self._client.hdel(self._key, *digests)

    def owner(self, digest: str) -> tuple[str, int | None] | None:
        """(match, seat) of a seat token, (match, None) of a creator token, else None."""
        raw = self._client.hget(self._key, digest)
        if raw is None:
            return None
        match_id, _, seat = (raw.decode() if isinstance(raw, bytes) else raw).rpartition(":")
        return match_id, None if seat == CREATOR else int(seat)
