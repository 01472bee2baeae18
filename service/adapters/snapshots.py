"""Snapshots of a match's fold in Redis: ``{prefix}:{<match_id>}:snapshot``, one string.

The key carries the match's hash tag, so it lives in the match's Cluster slot beside its
events, and retention deletes it with the match's other keys (``PER_MATCH_SUFFIXES``).
Only the server writes it; what it holds is the use case's business
(``service.usecases.snapshots``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import redis

from service.ports import UNMEASURED, Metrics

SUFFIX = "snapshot"


class RedisSnapshots:
    """GET and SET of each match's snapshot key; a reply that is not bytes (a client that
    decodes replies) counts as no snapshot."""

    def __init__(self, client: redis.Redis, key: Callable[[str, str], str],
                 metrics: Metrics = UNMEASURED) -> None:
        """``key``: the event store's per-match key layout (``RedisEventStore.key``)."""
        self._client = client
        self._key = key
        self._metrics = metrics

    def load(self, match_id: str) -> bytes | None:
        self._metrics.store_round_trip("matches", "snapshot_load")
        raw = self._client.get(self._key(match_id, SUFFIX))
        return raw if isinstance(raw, bytes) else None

    def load_many(self, match_ids: Sequence[str]) -> list[bytes | None]:
        """One GET per match in one pipeline: each reads one key, so on a Redis Cluster
        the pipeline splits by node and stays cluster-safe."""
        if not match_ids:
            return []
        self._metrics.store_round_trip("matches", "snapshot_load")
        with self._client.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.get(self._key(match_id, SUFFIX))
            replies = pipe.execute()
        return [raw if isinstance(raw, bytes) else None for raw in replies]

    def save(self, match_id: str, snapshot: bytes) -> None:
        self._metrics.store_round_trip("matches", "snapshot_save")
        self._client.set(self._key(match_id, SUFFIX), snapshot)
