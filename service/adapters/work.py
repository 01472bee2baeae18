"""The work index: the matches that owe background work, and when to look at them.

One sorted set per kind of owed work (the table of obligations' kinds,
``service.usecases.obligations.KINDS``, handed over by the bootstrap), member = match id,
score = when the match is due (epoch seconds). Today there are three:

- ``{prefix}:work:steps``: matches that await a system step. A match is marked a little
  ahead *before* the append that makes it wait, and due at once after it; so a process
  that dies between its append and its mark still leaves the match marked. A mark whose
  append never happened is dropped at its first look.
- ``{prefix}:work:clocks``: matches with a running turn clock, scored by its deadline.
- ``{prefix}:work:bots``: matches where a computer player is to move, scored by when its
  think time has run (marked ahead and after the append as a step is).

Workers (``workers.reconciler``) ``claim`` due members: one script moves their score a
lease ahead, so two workers never take the same match at once, and a worker that dies
leaves its claims to come due again when the lease ends. A worker ``release``s a member
only if its score is still the lease it set: a mark made meanwhile survives (``settle``
does so for a whole paid batch in one script call). ``wake``
pushes a token to ``{prefix}:work:wake`` so an idle worker blocked in ``wait`` starts at
once instead of at its next poll; a lost token only costs that poll.

Each key is touched by single-key commands and scripts only, so this is Redis Cluster
safe; it costs nothing per idle match. Anything here can be rebuilt from the streams
(``rummy reconcile --scan``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import cast

import redis
from redis.cluster import RedisCluster

from service.adapters.slot_moves import SlotMoveScript
from service.ports import Backlog

WAKE_TOKENS = 64
"""At most this many wake-up tokens wait: enough to wake every idle worker."""

# KEYS: the set. ARGV: now, lease until, max members. Due members get the lease as score.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
"""

# KEYS: the set. ARGV: member, the score it must still have.
_RELEASE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

# KEYS: the set. ARGV: the lease, then members. Each is removed if its score is the lease.
_RELEASE_ALL = """
local released = 0
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[1]) then
    released = released + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return released
"""


class WorkIndex:
    """Marks, claims and releases matches that owe work of one of ``kinds``."""

    def __init__(self, client: redis.Redis, prefix: str, kinds: Sequence[str],
                 clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._prefix = prefix
        self.kinds = tuple(kinds)
        self._clock = clock
        self._release_all = SlotMoveScript(client, _RELEASE_ALL)
        self._wake_key = f"{prefix}:work:wake"
        self._claim = SlotMoveScript(client, _CLAIM)
        self._release = SlotMoveScript(client, _RELEASE)

    def key(self, kind: str) -> str:
        if kind not in self.kinds:
            raise ValueError(kind)
        return f"{self._prefix}:work:{kind}"

    def mark(self, kind: str, match_id: str, at: float) -> None:
        """Look at the match at ``at`` (or earlier, if it is already due sooner)."""
        self._client.zadd(self.key(kind), {match_id: at}, lt=True)

    def reschedule(self, kind: str, match_id: str, at: float) -> None:
        """Look at the match at ``at``, whatever was set before."""
        self._client.zadd(self.key(kind), {match_id: at})

    def claim(self, kind: str, lease_s: float, limit: int = 100) -> tuple[float, list[str]]:
        """(lease, due match ids): each claimed until ``lease`` (epoch seconds)."""
        lease, args = self._claiming(lease_s, limit)
        return lease, _ids(self._claim(keys=[self.key(kind)], args=args))

    def claim_each(self, lease_s: float, limit: int = 100) -> dict[str, tuple[float, list[str]]]:
        """``claim`` of every kind, in ``kinds``' order, in one round trip on a plain Redis
        (each kind's script still touches its one key); one by one on a Redis Cluster,
        where the kinds' keys live in different slots."""
        if isinstance(self._client, RedisCluster):
            return {kind: self.claim(kind, lease_s, limit) for kind in self.kinds}
        lease, args = self._claiming(lease_s, limit)
        return {kind: (lease, _ids(due))
                for kind, due in zip(self.kinds, self._claims(args), strict=True)}

    def _claiming(self, lease_s: float, limit: int) -> tuple[float, list[str]]:
        """The lease a claim made now gives, and the claim script's arguments."""
        now = self._clock()
        lease = round(now + lease_s, 6)
        return lease, [repr(now), repr(lease), str(limit)]

    def _claims(self, args: list[str]) -> list[list[bytes]]:
        replies = self._claim.many([([self.key(kind)], args) for kind in self.kinds])
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return cast(list[list[bytes]], replies)

    def release(self, kind: str, match_id: str, lease: float) -> bool:
        """Forget the match unless it was marked again since it was claimed."""
        return bool(self._release(keys=[self.key(kind)], args=[match_id, repr(lease)]))

    def settle(self, kind: str, lease: float, paid: Sequence[str],
               later: Mapping[str, float]) -> int:
        """After a claimed batch: ``release`` each of ``paid`` (one script call on the one
        key) and ``reschedule`` each of ``later`` at its time (one ZADD); how many were
        released."""
        key = self.key(kind)
        released = int(self._release_all(keys=[key], args=[repr(lease), *paid])) if paid else 0
        if later:
            self._client.zadd(key, dict(later))
        return released

    def wake(self) -> None:
        """Tell an idle worker that something is due now."""
        with self._client.pipeline(transaction=False) as pipe:
            pipe.lpush(self._wake_key, 1)
            pipe.ltrim(self._wake_key, 0, WAKE_TOKENS - 1)
            pipe.execute()

    def wait(self, timeout_s: float) -> bool:
        """Block until woken or ``timeout_s`` passed; True when woken."""
        if timeout_s <= 0:
            return False
        return self._client.blpop([self._wake_key], timeout=max(timeout_s, 0.01)) is not None

    def pending(self, kind: str) -> int:
        return int(self._client.zcard(self.key(kind)))

    def backlog(self, kind: str, now: float) -> Backlog:
        """How many rows of ``kind`` are due at ``now`` and the oldest one's due time (a
        scrape's owed-work figures). A claimed row's score is its lease, so it counts
        again only once the lease ends unpaid; a mark ahead counts once it falls due."""
        with self._client.pipeline(transaction=False) as pipe:
            pipe.zcount(self.key(kind), "-inf", repr(now))
            pipe.zrange(self.key(kind), 0, 0, withscores=True)
            due, first = pipe.execute()
        oldest = float(first[0][1]) if first and int(due) else None
        return Backlog(int(due), oldest)

    def due_in(self, kind: str) -> float | None:
        """Seconds until the earliest member falls due (0 when overdue); None when empty."""
        first = self._client.zrange(self.key(kind), 0, 0, withscores=True)
        if not first:
            return None
        return max(0.0, float(first[0][1]) - self._clock())


def _ids(due: Sequence[bytes | str] | None) -> list[str]:
    """Match ids as the claim script answered them (bytes, or str on a decoding client)."""
    return [m.decode() if isinstance(m, bytes) else str(m) for m in due or []]
