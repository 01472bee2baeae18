"""The Redis Cluster client the server uses: redis-py's, hardened where its own code fails.

Under many threads, redis-py's cluster client reloads its slot map every few MOVED
replies and closes the pools' idle sockets as it does; a command taking a socket at that
moment fails inside the library with a ``TypeError`` (its poller given a closed socket)
rather than a ``ConnectionError``. Seen under a reshard (tests/faults/test_9_cluster_reshard.py).
"""

from __future__ import annotations

import os
import traceback
from typing import Any

import redis
from redis.cluster import RedisCluster

REINITIALIZE_STEPS = 1000
"""MOVED replies between two full reloads of the slot map: a MOVED patches its own slot,
so a reshard costs no reload; each reload closes the pools' idle sockets, which under
many threads raced commands taking them (redis-py's own race)."""


class ClusterClient(RedisCluster):
    """redis-py's cluster client, but a failure raised inside the library itself (a socket
    another thread closed while a command took it: ``TypeError`` from its poller) is the
    ``ConnectionError`` it means, so the API answers 503 ``store_unavailable`` and the
    client retries with its idempotency key, rather than a 500."""

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().execute_command(*args, **kwargs)
        except (TypeError, AttributeError) as exc:
            if not raised_inside_redis(exc):
                raise
            raise redis.ConnectionError(f"the Redis client failed inside: {exc!r}") from exc


_REDIS_PACKAGE = os.path.dirname(redis.__file__) + os.sep


def raised_inside_redis(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by redis-py's own code (its last frame is in the package)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename.startswith(_REDIS_PACKAGE)
