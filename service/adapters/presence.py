"""Presence: which seats have a live stream open now, and when each seat last acted.

Presence is not a game fact, so nothing of it goes into the match's event log. Its keys
share the match's hash tag (one Cluster slot, so one script may touch them all):

- ``{prefix}:{<match_id>}:presence`` sorted set of ``<seat>:<connection>`` members scored by
  their expiry (ms, Redis server time). The process holding a stream refreshes its members;
  a crashed process's members simply expire. A seat is online while one of its members has
  not expired.
- ``{prefix}:{<match_id>}:acted`` hash, seat -> the time (epoch seconds) of the seat's last
  action, i.e. of the first event its last successful action appended.
- ``{prefix}:{<match_id>}:seen`` hash, seat -> the last time (epoch seconds, the process's
  clock) the seat was here: a stream of it opened, was refreshed or closed, or its token
  read the view of the match while it waited. The lobby reads it for a waiting match's
  creator (``service.usecases.creator_presence``).
- ``{prefix}:{<match_id>}:live`` capped stream (``MAXLEN ~ 64``) of ``presence`` messages
  (``seat``, ``online``): written by the script below when a seat's first stream opens or
  its last one closes (or expires), announced on its pub/sub channel, read by every
  process's stream hub alongside the match's events, and sent to the match's live streams
  without an SSE ``id``. The store's token rotation writes ``seat``, ``revoked`` (the old
  token's hash) there too: never sent to anybody, it ends the streams that token opened
  (``revoked_token``).

Every key expires when no process refreshes it, so an abandoned match leaves nothing behind.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import redis
from redis.cluster import RedisCluster

from service.adapters.slot_moves import SlotMoveScript
from service.ports import (
    UNMEASURED,
    Metrics,
    PresenceNow,
    Sightings,
    StoredEvent,
    StoreUnavailable,
)

T = TypeVar("T")

TTL_MS = 30_000
"""How long a stream's presence lasts without a refresh; the hub refreshes every third."""
LIVE_MAXLEN = 64
KEY_TTL_MS = 24 * 3_600_000
"""The presence and live keys of a match no one watches go after a day."""

# KEYS: presence zset, live stream, seen hash. ARGV: op ("add"|"rem"), ttl ms, maxlen, key
# ttl ms, now (epoch seconds, for the seen hash), members... Expiry in server time, so
# processes with skewed clocks agree on who has expired.
_UPDATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function online()
  local seats = {}
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
    local seat = string.match(m, '^(%d+):')
    if seat then seats[seat] = true end
  end
  return seats
end
local before = online()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 6, #ARGV do
  local seen = string.match(ARGV[i], '^(%d+):')
  if seen then redis.call('HSET', KEYS[3], seen, ARGV[5]) end
  if ARGV[1] == 'add' then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
  else
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
local after = online()
local changed = 0
local function publish(seat, flag)
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'seat', seat, 'online', flag)
  changed = changed + 1
end
for seat, _ in pairs(before) do if not after[seat] then publish(seat, '0') end end
for seat, _ in pairs(after) do if not before[seat] then publish(seat, '1') end end
if changed > 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('SPUBLISH', KEYS[2], '1')
end
return changed
"""

# KEYS: presence zset, a per-seat hash (acted or seen). Returns [online members, that
# hash's field/value pairs].
_READ = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf'),
        redis.call('HGETALL', KEYS[2])}
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _translated(method: Callable[..., T]) -> Callable[..., T]:
    """Redis's errors as the port's ``StoreUnavailable``: presence is a courtesy the live
    streams go on without, and they know no Redis."""

    @functools.wraps(method)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        try:
            return method(*args, **kwargs)
        except redis.RedisError as exc:
            raise StoreUnavailable(str(exc)) from exc
    return wrapped


class EventReads(Protocol):
    """How the event store reads a match's events (``RedisEventStore``), which ``with_events``
    reads beside the presence keys."""

    def events_key(self, match_id: str) -> str: ...

    def first_entry(self, after: int) -> str: ...

    def decode_read(self, match_id: str, after: int,
                    entries: Sequence[Any]) -> list[StoredEvent]: ...

    def meta_key(self, match_id: str) -> str: ...

    def decode_meta(self, raw: Mapping[Any, Any] | None) -> dict[str, str] | None: ...


class Presence:
    """Reads and writes a match's presence keys (see the module docstring)."""

    def __init__(self, client: redis.Redis, key_of: Any, ttl_ms: int = TTL_MS,
                 clock: Callable[[], float] = time.time,
                 events: EventReads | None = None,
                 metrics: Metrics = UNMEASURED) -> None:
        """``key_of(match_id, suffix)``: the store's per-match key (same hash tag);
        ``clock``: the wall clock the seen times are in (the one lobby records are);
        ``events``: the store (its events key, the first entry a read asks for, and the
        decoding of what it read) for ``with_events``, which counts its reads in
        ``metrics`` as the store's own."""
        self._client = client
        self._key = key_of
        self._events = events
        self._metrics = metrics
        self.ttl_ms = ttl_ms
        self._clock = clock
        self._update = SlotMoveScript(client, _UPDATE)
        self._read = SlotMoveScript(client, _READ)

    def live_key(self, match_id: str) -> str:
        return str(self._key(match_id, "live"))

    def _keys(self, match_id: str) -> list[str]:
        return [self._key(match_id, "presence"), self.live_key(match_id),
                self._key(match_id, "seen")]

    def _args(self, op: str, members: Iterable[str]) -> list[Any]:
        return [op, self.ttl_ms, LIVE_MAXLEN, KEY_TTL_MS, repr(self._clock()), *members]

    @_translated
    def open(self, match_id: str, member: str) -> None:
        """A seat's stream opened here (``member`` = ``<seat>:<connection>``)."""
        self._update(keys=self._keys(match_id), args=self._args("add", [member]))

    @_translated
    def close(self, match_id: str, member: str) -> None:
        self._update(keys=self._keys(match_id), args=self._args("rem", [member]))

    @_translated
    def refresh(self, held: Mapping[str, Iterable[str]]) -> None:
        """Extend every member this process holds, one script per match, pipelined; on a
        Redis Cluster one call each (a cluster pipeline of scripts would meet a
        ``NOSCRIPT`` after a failover outside the client's retry)."""
        if isinstance(self._client, RedisCluster):
            for match_id, members in held.items():
                self._update(keys=self._keys(match_id), args=self._args("add", members))
            return
        pipe = self._client.pipeline(transaction=False)
        for match_id, members in held.items():
            self._update(keys=self._keys(match_id), args=self._args("add", members),
                         client=pipe)
        pipe.execute()

    def last_live_id(self, match_id: str) -> str:
        """The newest entry id of the match's live stream ("0-0" when it has none)."""
        newest = self._client.xrevrange(self.live_key(match_id), "+", "-", count=1)
        return _text(newest[0][0]) if newest else "0-0"

    @staticmethod
    def message(fields: Mapping[Any, Any]) -> dict[str, Any] | None:
        """A live-stream entry as a presence message (``presence_message``)."""
        return presence_message(fields)

    @staticmethod
    def ends(fields: Mapping[Any, Any]) -> bool:
        """Whether a live-stream entry announces a waiting match called off
        (``store_scripts.ABANDON``)."""
        return any(_text(k) == "ended" for k in fields)

    @staticmethod
    def revocation(fields: Mapping[Any, Any]) -> tuple[str, str] | None:
        """The token hash a live-stream entry revokes (``revoked_token``) and why:
        ``rotated`` (``store_scripts.ROTATE``) or ``left`` (``store_scripts.LEAVE``)."""
        revoked = revoked_token(fields)
        if revoked is None:
            return None
        why = next((_text(v) for k, v in fields.items() if _text(k) == "why"), "rotated")
        return revoked, why

    @_translated
    def acted(self, match_id: str, seat: int, ts: float) -> None:
        """Record a seat's action time (derived data, never read back into the game)."""
        pipe = self._client.pipeline(transaction=False)
        key = self._key(match_id, "acted")
        pipe.hset(key, str(seat), repr(float(ts)))
        pipe.pexpire(key, KEY_TTL_MS)
        pipe.execute()

    @_translated
    def saw(self, match_id: str, seat: int) -> None:
        """Record that a seat is here now without a stream (its token read the match)."""
        pipe = self._client.pipeline(transaction=False)
        key = self._key(match_id, "seen")
        pipe.hset(key, str(seat), repr(self._clock()))
        pipe.pexpire(key, KEY_TTL_MS)
        pipe.execute()

    @_translated
    def sightings(self, match_ids: Sequence[str]) -> list[Sightings]:
        """Which seats of each match have a stream open now, and when each was last here:
        one script per match, pipelined (on a Redis Cluster one call each, as
        ``refresh``)."""
        keys = [[self._key(match_id, "presence"), self._key(match_id, "seen")]
                for match_id in match_ids]
        if isinstance(self._client, RedisCluster):
            answers = [self._read(keys=pair) for pair in keys]
        else:
            pipe = self._client.pipeline(transaction=False)
            for pair in keys:
                self._read(keys=pair, client=pipe)
            answers = pipe.execute()
        return [_sightings(members, pairs) for members, pairs in answers]

    def of(self, match_id: str, seats: int) -> list[dict[str, Any]]:
        """Each seat's ``{"online", "last_action_at"}``."""
        return _presence_now(*self._read(keys=self._presence_keys(match_id))).of(seats)

    @_translated
    def with_events(self, match_id: str, after: int) -> tuple[list[StoredEvent], PresenceNow]:
        """The match's events after version ``after`` (as the store reads them) and its
        presence, in one pipeline: a view reads both, and they share the match's slot. On a
        Redis Cluster one call each (``refresh``: no scripts in a cluster pipeline)."""
        store = self._store()
        events_key, first = store.events_key(match_id), store.first_entry(after)
        self._metrics.store_round_trip("matches", "read")
        if isinstance(self._client, RedisCluster):
            entries = self._client.xrange(events_key, first, "+")
            now = _presence_now(*self._read(keys=self._presence_keys(match_id)))
        else:
            _, entries, now = self._events_and_presence(events_key, first, match_id)
        return store.decode_read(match_id, max(after, 0), entries or []), now

    @_translated
    def with_meta_and_events(self, match_id: str, after: int
                             ) -> tuple[dict[str, str] | None, list[StoredEvent], PresenceNow]:
        """``with_events`` with the match's meta (as the store's ``meta`` answers it) read
        in the same pipeline: a seat view's token check needs the meta and the view the
        rest. On a Redis Cluster the meta is read apart, then ``with_events``."""
        store = self._store()
        if isinstance(self._client, RedisCluster):
            self._metrics.store_round_trip("matches", "meta")
            meta = store.decode_meta(self._client.hgetall(store.meta_key(match_id)))
            return (meta, *self.with_events(match_id, after))
        self._metrics.store_round_trip("matches", "read")
        raw, entries, now = self._events_and_presence(
            store.events_key(match_id), store.first_entry(after), match_id,
            store.meta_key(match_id))
        return (store.decode_meta(raw),
                store.decode_read(match_id, max(after, 0), entries or []), now)

    def _store(self) -> EventReads:
        if self._events is None:
            raise TypeError("reading events needs the store's events key and decoding")
        return self._events

    def _events_and_presence(self, events_key: str, first: str, match_id: str,
                             meta_key: str | None = None) -> tuple[Any, Any, PresenceNow]:
        """The events and the presence keys in one pipeline of plain commands, the server's
        ``TIME`` among them: what the read script answers, without a script (redis-py asks
        ``SCRIPT EXISTS`` before every pipeline that holds one, a round trip more). With
        ``meta_key``, the meta hash first (else None in its place)."""
        presence_key, acted_key = self._presence_keys(match_id)
        pipe = self._client.pipeline(transaction=False)
        if meta_key is not None:
            pipe.hgetall(meta_key)
        pipe.xrange(events_key, first, "+")
        pipe.zrange(presence_key, 0, -1, withscores=True)
        pipe.hgetall(acted_key)
        pipe.time()
        replies = pipe.execute()
        meta = replies.pop(0) if meta_key is not None else None
        entries, scored, acted, (seconds, micros) = replies
        now_ms = int(seconds) * 1000 + int(micros) // 1000
        return meta, entries, _presence_now([m for m, expiry in scored if expiry > now_ms],
                                            acted)

    def _presence_keys(self, match_id: str) -> list[str]:
        return [self._key(match_id, "presence"), self._key(match_id, "acted")]


def _presence_now(members: Sequence[Any], pairs: Sequence[Any] | Mapping[Any, Any]
                  ) -> PresenceNow:
    """The presence script's answer: who has a stream open, and when each seat acted."""
    online = {int(seat) for seat in (_text(m).split(":", 1)[0] for m in members)
              if seat.isdigit()}
    acted = {int(seat): float(at) for seat, at in _pairs(pairs).items() if seat.isdigit()}
    return PresenceNow(frozenset(online), acted)


def _sightings(members: Sequence[Any], pairs: Sequence[Any] | Mapping[Any, Any]) -> Sightings:
    online = {int(seat) for seat in (_text(m).split(":", 1)[0] for m in members)
              if seat.isdigit()}
    seen = {int(seat): float(at) for seat, at in _pairs(pairs).items() if seat.isdigit()}
    return Sightings(frozenset(online), seen)


def _pairs(flat: Sequence[Any] | Mapping[Any, Any]) -> dict[str, str]:
    """HGETALL inside a script comes back flat (RESP2) or as a map (RESP3)."""
    if isinstance(flat, Mapping):
        return {_text(k): _text(v) for k, v in flat.items()}
    items = [_text(value) for value in flat]
    return dict(zip(items[::2], items[1::2], strict=False))


def presence_message(fields: Mapping[Any, Any]) -> dict[str, Any] | None:
    """A live-stream entry as the ``presence`` SSE data; None for anything else."""
    values = {_text(k): _text(v) for k, v in fields.items()}
    if not values.get("seat", "").isdigit() or values.get("online") not in ("0", "1"):
        return None
    return {"seat": int(values["seat"]), "online": values["online"] == "1"}


def revoked_token(fields: Mapping[Any, Any]) -> str | None:
    """The hash of the seat token a live-stream entry revokes (a rotation); None for any
    other entry."""
    for key, value in fields.items():
        if _text(key) == "revoked":
            return _text(value)
    return None
