"""Writes confirmed by replicas before they are acknowledged (``RUMMY_REPLICA_ACKS``).

Redis replicates asynchronously: a master answers a write before any replica has it, so a
master that dies just after answering takes the write with it, and the replica promoted
in its place never saw it. ``WAIT numreplicas timeout`` blocks until that many replicas
confirm every write made so far *on the same connection*, so the script and its WAIT go
down one connection in one pipeline: on a plain Redis the client's own, on a Redis Cluster
the connection to the master that holds the match's slot.

A WAIT that times out does not undo the write: the events may be stored (and may survive),
but nobody can promise it. The caller is answered ``ReplicasBehind`` (503
``store_unavailable``); a retry with the same idempotency key replays the stored result
or appends once, never twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ClusterError,
    MovedError,
    RedisClusterException,
    TryAgainError,
)

from service.adapters.slot_moves import through_slot_moves


class ReplicasBehind(redis.RedisError):
    """Fewer replicas than asked confirmed a write within the timeout: it may be stored,
    but it is not acknowledged (a Redis error, so the API answers 503)."""


class _SlotMoved(ClusterError):
    """The slot left the master this client thought held it: the script did not run."""


@dataclass(frozen=True)
class ReplicaAcks:
    """How many replicas must confirm a write (``replicas``) within ``timeout_ms``."""

    replicas: int = 0
    timeout_ms: int = 500

    def __post_init__(self) -> None:
        if self.replicas < 0 or self.timeout_ms < 1:
            raise ValueError("replica acks must be 0 or more, with a timeout of 1 ms or more")

    @property
    def asked(self) -> bool:
        return self.replicas > 0

    def run(self, client: redis.Redis, script: Any, keys: Sequence[str],
            args: Sequence[Any]) -> Any:
        """``script``'s reply once ``replicas`` replicas hold its writes; ``script`` is a
        redis-py ``Script``. Raises ``ReplicasBehind`` when they do not in time."""
        if isinstance(client, RedisCluster):
            reply, confirmed = through_slot_moves(
                lambda: self._on_master(client, script, keys, args))
        else:
            reply, confirmed = self._pipelined(client, script, keys, args)
        if int(confirmed) < self.replicas:
            raise ReplicasBehind(
                f"{confirmed} of {self.replicas} replicas confirmed the write within "
                f"{self.timeout_ms} ms; it may be stored: retry with the same idempotency key")
        return reply

    def _pipelined(self, node: redis.Redis, script: Any, keys: Sequence[str],
                   args: Sequence[Any]) -> tuple[Any, Any]:
        """The script and its WAIT on one connection of ``node``."""
        with node.pipeline(transaction=False) as pipe:
            script(keys=keys, args=args, client=pipe)
            pipe.execute_command("WAIT", self.replicas, self.timeout_ms)
            reply, confirmed = pipe.execute()
        return reply, confirmed

    def _on_master(self, cluster: RedisCluster, script: Any, keys: Sequence[str],
                   args: Sequence[Any]) -> tuple[Any, Any]:
        """The pipeline on the master of ``keys[0]``'s slot. A moved slot (a failover, a
        reshard) refreshes the slot map and is retried by ``through_slot_moves``: the
        script did not run. A lost connection refreshes it too, and is raised: the script
        may have run, which only a retry with the idempotency key can tell."""
        node = cluster.get_node_from_key(keys[0])
        try:
            return self._pipelined(cluster.get_redis_connection(node), script, keys, args)
        except (MovedError, AskError, ClusterDownError, TryAgainError) as exc:
            _refresh(cluster)
            raise _SlotMoved(str(exc)) from exc
        except (redis.ConnectionError, redis.TimeoutError):
            _refresh(cluster)
            raise


def _refresh(cluster: RedisCluster) -> None:
    """Read the slot map again, so the next write finds the promoted master; a cluster
    that cannot tell yet (mid-failover) is asked again by the next write."""
    try:
        cluster.nodes_manager.initialize()
    except (redis.RedisError, RedisClusterException):
        pass


NO_REPLICA_ACKS = ReplicaAcks()
"""Acknowledge what the master holds (the default)."""
