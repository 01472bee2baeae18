"""Retention of finished matches in embedded mode: the newest ``keep`` stay, older go.

Why: embedded mode keeps every key in an in-process fakeredis, so without this every match
ever played (about 8 KB each) stays in the server's memory until it stops. A finished match
(complete, forfeited or aborted) never changes again, so the oldest finished ones are the
safe ones to drop; live matches are never touched. Real Redis deployments do not wire this
(service/bootstrap.py): there every match is kept and operators manage Redis's memory.

``{prefix}:retention:finished`` sorted set: finished match id -> finish time (the terminal
event's time). ``FinishedMatches.record`` adds one and deletes every one beyond ``keep``,
oldest first. Deleting a match removes:

- its own keys (``PER_MATCH_SUFFIXES``, and its verification reports and analyses:
  ``derived``), in one DEL: they share the match's hash tag, so one Cluster slot;
- its entries in the global indexes, one single-key command each: ``{prefix}:matches``
  and the catalog's tag, external id and owner indexes (``MatchIndex.remove``), its seat
  tokens in ``{prefix}:tokens`` (their hashes are in its meta), the work index (each of
  its kinds).

Left to expire or to their own caps: stream tickets (``:ticket:*``, 60 s), idempotency
claims (``:claim:*``, seconds) and a verification in flight (``:verifying:*``, an hour at
most) of the match; feed messages and webhook deliveries that
mention it (capped per organiser and per webhook); a batch record's list of ids (listings
skip matches that are gone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis

from service.adapters.auth import TokenIndex
from service.adapters.catalog import MatchIndex, MatchInfo
from service.adapters.work import WorkIndex

PER_MATCH_SUFFIXES = ("events", "meta", "idem", "presence", "acted", "seen", "live", "rematch",
                      "snapshot")
"""Every lasting per-match key ``{prefix}:{<match_id>}:<suffix>`` (tests guard the list)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class FinishedMatches:
    """The finished-match record of embedded mode, and the deletion of the oldest ones."""

    def __init__(self, client: redis.Redis, prefix: str, keep: int, index: MatchIndex,
                 tokens: TokenIndex, work: WorkIndex,
                 derived: Callable[[str], Sequence[str]]) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        self._client = client
        self._prefix = prefix
        self.keep = keep
        self.key = f"{prefix}:retention:finished"
        self._index = index
        self._tokens = tokens
        self._work = work
        self._derived = derived

    def record(self, match_id: str, finished_at: float) -> list[str]:
        """Note a finished match; delete the finished ones beyond ``keep``. Returns the
        ids deleted, for the caller to drop from its caches."""
        self._client.zadd(self.key, {match_id: finished_at}, nx=True)
        return self.trim()

    def trim(self) -> list[str]:
        """Delete the oldest finished matches beyond ``keep``."""
        excess = int(self._client.zcard(self.key)) - self.keep
        if excess <= 0:
            return []
        oldest = [_text(raw) for raw in self._client.zrange(self.key, 0, excess - 1)]
        for match_id in oldest:
            self.delete(match_id)
        return oldest

    def delete(self, match_id: str) -> None:
        """Every trace of the match that lasts: indexes first (they need its meta), then
        its own keys, then its place in the record."""
        meta = {_text(k): _text(v) for k, v in
                self._client.hgetall(self.match_key(match_id, "meta")).items()}
        if meta:
            self._unindex(match_id, meta)
        self._client.delete(*(self.match_key(match_id, suffix)
                              for suffix in PER_MATCH_SUFFIXES), *self._derived(match_id))
        self._client.zrem(self.key, match_id)

    def _unindex(self, match_id: str, meta: Mapping[str, str]) -> None:
        self._index.remove(MatchInfo.from_meta(match_id, meta))
        self._tokens.forget([value for field, value in meta.items()
                             if value and (field.startswith("token:") or field == "creator")])
        for kind in self._work.kinds:
            self._client.zrem(self._work.key(kind), match_id)

    def match_key(self, match_id: str, suffix: str) -> str:
        """The event store's per-match key layout (service/adapters/store.py)."""
        return f"{self._prefix}:{{{match_id}}}:{suffix}"
