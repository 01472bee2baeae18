"""The hashes of a rematch's seat tokens, kept until the rematch is created.

``{prefix}:{<match_id>}:rematch`` hash (the ended match's hash tag, so its Cluster slot):
the rematch's seat -> the SHA-256 of the token its player will hold there
(``service.usecases.rematches``). Each is written by its holder's own acceptance, before
the acceptance is logged; the new match's meta takes them as its seat tokens' hashes. The
tokens themselves are never stored: each holder's is derived again from the token they
hold in the ended match.
"""

from __future__ import annotations

from collections.abc import Callable

import redis


class RematchTokenHashes:
    def __init__(self, client: redis.Redis, key_of: Callable[[str, str], str]) -> None:
        """``key_of(match_id, suffix)``: the store's per-match key (same hash tag)."""
        self._client = client
        self._key = key_of

    def keep(self, match_id: str, seat: int, digest: str) -> None:
        self._client.hset(self._key(match_id, "rematch"), str(seat), digest)

    def of(self, match_id: str) -> dict[int, str]:
        raw = self._client.hgetall(self._key(match_id, "rematch"))
        return {int(_text(seat)): _text(digest) for seat, digest in raw.items()}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
