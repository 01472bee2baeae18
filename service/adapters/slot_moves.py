"""Lua scripts that outlast a slot moving between two masters of a Redis Cluster.

While a slot migrates (``redis-cli --cluster reshard``, a rebalance), its keys leave the
old master a few at a time. A script that names several keys of a match finds some on
each side and is answered ``TRYAGAIN``; redis-py follows ``ASK`` and ``MOVED`` and retries
``TRYAGAIN`` itself, but for about half a second at most, then gives up with
``ClusterError("TTL exhausted.")``. Either way the script did not run (Redis refuses it
before it starts), so calling it again is safe. A script registered here is called again,
with a growing pause, for up to ``MIGRATION_WAIT_S``: a slot of a few keys moves in
milliseconds, so an action then waits instead of being answered 503. On a single Redis
none of these errors happen and nothing changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import redis
from redis.exceptions import ClusterError, NoScriptError, TryAgainError

if TYPE_CHECKING:
    from service.adapters.replica_acks import ReplicaAcks

T = TypeVar("T")

MIGRATION_WAIT_S = 2.0
"""How long a script keeps being retried while its slot is half moved."""
_FIRST_PAUSE_S = 0.05
_LONGEST_PAUSE_S = 0.4


def through_slot_moves(call: Callable[[], T], wait_s: float = MIGRATION_WAIT_S,
                       sleep: Callable[[float], None] = time.sleep,
                       clock: Callable[[], float] = time.monotonic) -> T:
    """``call()``, again after a pause while it meets a slot half moved, until
    ``wait_s`` has passed; then the last error is raised (503 ``store_unavailable``)."""
    deadline = clock() + wait_s
    pause = _FIRST_PAUSE_S
    while True:
        try:
            return call()
        except (ClusterError, TryAgainError):
            if clock() + pause > deadline:
                raise
        sleep(pause)
        pause = min(pause * 2, _LONGEST_PAUSE_S)


class SlotMoveScript:
    """A registered script (``redis.commands.core.Script``) called through slot moves;
    same call as redis-py's. A pipelined call (``client=`` a pipeline) is only queued
    here, so it is not retried. ``acks``, when it asks for replicas, confirms every call
    with ``WAIT`` before it returns (``service.adapters.replica_acks``)."""

    def __init__(self, client: redis.Redis, source: str,
                 acks: ReplicaAcks | None = None) -> None:
        self._client = client
        self._script = client.register_script(source)
        self._acks = acks

    def __call__(self, keys: Sequence[Any] | None = None, args: Sequence[Any] | None = None,
                 client: Any = None) -> Any:
        if client is not None:
            return self._script(keys=keys, args=args, client=client)
        if self._acks is not None and self._acks.asked:
            return self._acks.run(self._client, self._script, keys or [], args or [])
        return through_slot_moves(lambda: self._script(keys=keys, args=args))

    def many(self, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> list[Any]:
        """The script run once per (keys, args) in one pipeline on a plain Redis: each
        call's reply, or the error it met, in order. Called by its digest: a pipeline of
        scripts registered with redis-py first asks the server whether it has them, one
        more round trip each time. Calls a server that lost its scripts (restarted)
        refused are run again once it has been given the script: refused, they did not
        run."""
        replies: list[Any] = [None] * len(calls)
        todo = list(range(len(calls)))
        for _ in range(2):
            with self._client.pipeline(transaction=False) as pipe:
                for at in todo:
                    keys, args = calls[at]
                    pipe.evalsha(self._script.sha, len(keys), *keys, *args)
                answers = pipe.execute(raise_on_error=False)
            for at, answer in zip(todo, answers, strict=True):
                replies[at] = answer
            todo = [at for at in todo if isinstance(replies[at], NoScriptError)]
            if not todo:
                break
            self._script.sha = self._client.script_load(self._script.script)
        return replies
