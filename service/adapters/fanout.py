"""Per-process fan-out of Redis streams: one reader for every live stream a process serves.

A live stream used to hold a thread and a blocking ``XREAD`` of its own for as long as the
client listened, so a process ran out of threads (and Redis connections) at a few hundred
streams. Here one hub per process follows every watched stream key and hands each new
entry to every subscriber of that key; a subscriber costs a small inbox and an event, no
thread and no connection. Under gunicorn's gevent worker the hub's thread and every
subscriber's wait are greenlets (gevent's monkey-patching makes ``threading`` and redis-py's
sockets cooperative); without gevent (the Flask test client, the CLI) they are ordinary
threads, and the same code works.

How the hub learns of new entries: every writer of a followed key also publishes on the
sharded pub/sub channel of the same name (``SPUBLISH <key>``: the store's append scripts,
presence, the organiser feed; see ``notify``). The hub holds one pub/sub connection
(one per master on a cluster, below), ``SSUBSCRIBE``s a key's channel while the key has
subscribers, and on a message reads that key alone from its position. The message is
only a hint; the stream is the truth.
Before, one blocking ``XREAD`` over every watched key was re-issued after each event:
with a thousand matches followed, each call cost Redis about 10 ms (it registers and
unregisters the read on every key), while actions waited behind it.

On a Redis Cluster a channel named after a key hashes to the key's slot, and a sharded
message reaches only the clients of the master owning that slot. The hub then holds one
pub/sub connection per master (``_ShardedListener``), subscribes each key's channel on
its slot's owner, and a reader per connection hands what it hears to one inbox, so a
message on any master wakes the hub at once (redis-py's own cluster pub/sub polls the
masters one after another). When a slot moves to another master, the old one ends the
subscriptions of its channels (Redis 7 sends ``sunsubscribe``), a subscription sent to
a master that lost the slot is answered MOVED, and a broken connection ends them all:
the listener learns the slots again, subscribes each such channel on its new owner and
reads the key once more (below), so a stream never goes silent after a reshard.

The hub knows stream keys and entry ids, nothing about matches: ``service.usecases.live``
reads the backlog with normal reads, subscribes at the position it reached, and decodes and
redacts what arrives.

Gap-free hand-over: a subscriber reads what it has not seen with a normal read *after*
``subscribe`` returned. Every entry the hub dispatches after that moment reaches the new
subscriber, and every entry dispatched before it was already in Redis, so that read sees it;
the subscriber drops what it already has by id. The hub dispatches under the same lock that
``subscribe`` takes, which is what makes "before" and "after" well defined. A key newly
watched is read once more when its channel's subscription is confirmed, and every key when
the pub/sub connection was lost and made again (on a cluster, every key of the lost
master, or of a slot that moved, when its subscription is confirmed on the owner): what
was appended while no message could arrive is read then.

The hub counts what an operator watches (``service.ports.Metrics``): each subscription is
an open stream from ``subscribe`` until ``unsubscribe`` (or the hub's close), and each
entry it dispatches is a fan-out delay: from the entry's write (an event's ``ts``, else
the time in a ``*`` entry id) to its hand-over to this process's streams.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Mapping
from typing import Any

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

from service.ports import UNMEASURED, Metrics, entry_order

log = logging.getLogger("rummy.fanout")

Fields = Mapping[Any, Any]
Batch = tuple[str, list[tuple[str, Fields]]]
"""(stream key, [(entry id, fields), ...]) as the hub read them: one list shared by every
subscriber of the key, so read it and never change it."""

_RETRY_S = 0.5
_DRAIN = 10_000
"""Messages taken off the connection at most before the keys they name are read."""
_EPOCH_MS = 10**12
"""An entry id whose first part is at least this is a time in milliseconds (``XADD *``);
an event's id is its version."""
_LOG_TRIM_AT = 64
"""Batches a group's log holds before what every member has taken is dropped."""
_LISTEN_S = 1.0
"""A shard's reader waits this long for a message before it looks whether it should stop."""
_REFRESH_S = 0.1
"""The cluster's slot map is refreshed at most this often while channels are stray."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def notify(client: Any, key: str) -> None:
    """Tell every process's hub that ``key`` has new entries (``client`` may be a
    pipeline). Lua writers call ``redis.call('SPUBLISH', key, '1')`` instead."""
    client.spublish(key, "1")


class _Group:
    """The subscribers of one set of keys with one keep-alive interval (every stream of a
    match, in practice): they get the same batches, so they share one log and one bell.

    One bell per group, not one event per subscriber: ringing it wakes every member with a
    single notification, and a move no longer costs a thousand separate wake-ups (which
    were a fifth of the process's time while a match with a thousand streams was played).
    The log keeps what its slowest member has not taken yet.
    """

    def __init__(self, keys: tuple[str, ...], idle_s: float) -> None:
        self.keys = keys
        self.idle_s = idle_s
        self.due_at = time.monotonic() + idle_s
        self.log: list[Batch] = []
        self.base = 0
        self.nudges = 0
        self.members: set[Subscription] = set()
        self.bell = threading.Event()

    @property
    def end(self) -> int:
        return self.base + len(self.log)

    def ring(self) -> None:
        """Wake every member waiting now; later waits use a fresh bell."""
        rung, self.bell = self.bell, threading.Event()
        rung.set()

    def push(self, batch: Batch) -> None:
        self.log.append(batch)
        self.due_at = time.monotonic() + self.idle_s
        if len(self.log) > _LOG_TRIM_AT:
            oldest = min((member.cursor for member in self.members), default=self.end)
            del self.log[:oldest - self.base]
            self.base = oldest
        self.ring()

    def nudge(self) -> None:
        self.nudges += 1
        self.due_at = time.monotonic() + self.idle_s
        self.ring()


class Subscription:
    """One consumer of the keys it watches: the new entries, in order per key.

    A consumer that got nothing for ``idle_s`` seconds is woken empty-handed by the hub
    (its keep-alive), so its wait needs no timer of its own: under gevent a wait with a
    timeout creates and cancels a timer every time.
    """

    def __init__(self, hub: StreamHub, group: _Group) -> None:
        self.keys = group.keys
        self.group = group
        self.closed = False
        self._hub = hub
        self.cursor = group.end
        self.nudges_seen = group.nudges

    def get(self) -> list[Batch]:
        """Everything new since the last call, waiting for something; [] when the hub's
        keep-alive nudge came first, or the subscription is ``closed`` (the hub closed:
        the consumer should stop)."""
        return self._hub.take(self)


class StreamHub:
    """Follows every watched stream key through its pub/sub channel and fans entries out.

    Watching starts with a key's first subscriber and ends with its last, so a match no one
    follows costs nothing. The reader thread starts on the first subscription and ends when
    nothing is watched. A key newly watched wakes the reader through the hub's own channel
    (``wake_channel``), so its channel is subscribed at once rather than after the current
    wait (``idle_ms``) ends. Between messages the reader also nudges every subscriber that
    has been idle for its ``idle_s`` (kept in a heap by due time, so a nudge costs
    O(log n) and a delivery nothing but a timestamp).
    """

    def __init__(self, client: redis.Redis, wake_channel: str, *, idle_ms: int = 1000,
                 count: int = 200, metrics: Metrics = UNMEASURED) -> None:
        self._client = client
        self._metrics = metrics
        self._wake_channel = wake_channel
        self._idle_s = max(1, idle_ms) / 1000
        self._count = count
        self._lock = threading.Lock()
        self._groups: dict[tuple[tuple[str, ...], float], _Group] = {}
        self._key_groups: dict[str, set[_Group]] = {}
        self._positions: dict[str, str] = {}
        self._wake_pending = False
        self._keys_changed = True
        self._idle_heap: list[tuple[float, int, _Group]] = []
        self._wait_until = 0.0
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    # --- subscribers ---------------------------------------------------------------------

    def subscribe(self, positions: Mapping[str, str], idle_s: float) -> Subscription:
        """Watch each key from its position (an entry id) unless it is watched already;
        the subscriber is nudged after ``idle_s`` seconds without anything.

        A key already watched keeps the hub's position: the subscriber's own read after
        this call covers anything between the two.
        """
        keys = tuple(positions)
        with self._lock:
            if self._closed:
                raise RuntimeError("the stream hub is closed")
            new = False
            for key, position in positions.items():
                if key not in self._key_groups:
                    self._key_groups[key] = set()
                    self._positions[key] = position
                    new = True
            group = self._groups.get((keys, idle_s))
            if group is None:
                group = self._groups[(keys, idle_s)] = _Group(keys, idle_s)
                for key in keys:
                    self._key_groups[key].add(group)
                heapq.heappush(self._idle_heap, (group.due_at, next(self._order), group))
            sub = Subscription(self, group)
            group.members.add(sub)
            self._keys_changed = self._keys_changed or new
            wake = (new or group.due_at < self._wait_until) and self._thread is not None \
                and not self._wake_pending
            if wake:
                self._wake_pending = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rummy-stream-hub",
                                                daemon=True)
                self._thread.start()
        self._metrics.stream_opened()
        if wake:
            self._wake()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a subscriber; a key left without subscribers is no longer read."""
        with self._lock:
            if sub.closed:
                return
            sub.closed = True
            self._metrics.stream_closed()
            group = sub.group
            group.members.discard(sub)
            if group.members or self._groups.get((group.keys, group.idle_s)) is not group:
                return
            del self._groups[(group.keys, group.idle_s)]
            for key in group.keys:
                groups = self._key_groups[key]
                groups.discard(group)
                if not groups:
                    del self._key_groups[key]
                    del self._positions[key]
                    self._keys_changed = True

    def take(self, sub: Subscription) -> list[Batch]:
        """``Subscription.get``: the group's batches past the subscriber's cursor, waiting
        on the group's bell while there are none."""
        group = sub.group
        while True:
            with self._lock:
                if sub.cursor < group.end:
                    taken = group.log[sub.cursor - group.base:]
                    sub.cursor = group.end
                    return taken
                if sub.nudges_seen < group.nudges or self._closed or sub.closed:
                    sub.nudges_seen = group.nudges
                    return []
                bell = group.bell
            bell.wait()

    def watched(self) -> set[str]:
        """The keys read now (for tests and metrics)."""
        with self._lock:
            return set(self._key_groups)

    def subscribers(self, key: str) -> int:
        with self._lock:
            return sum(len(group.members) for group in self._key_groups.get(key, ()))

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None

    def close(self) -> None:
        """Stop reading; the reader ends after its current wait (at most ``idle_ms``).
        Every subscription is closed and woken."""
        with self._lock:
            self._closed = True
            groups = list(self._groups.values())
            self._groups.clear()
            self._key_groups.clear()
            self._positions.clear()
            self._idle_heap = []
            for group in groups:
                for sub in group.members:
                    if not sub.closed:
                        sub.closed = True
                        self._metrics.stream_closed()
                group.ring()

    # --- the reader ----------------------------------------------------------------------

    def _wake(self) -> None:
        """Interrupt the reader's wait so it subscribes the new keys' channels."""
        try:
            notify(self._client, self._wake_channel)
        except redis.RedisError:
            log.warning("stream hub wake-up failed; new keys are read after the current wait")

    def _run(self) -> None:
        listener: _Listener | _ShardedListener | None = None
        due: set[str] = set()
        try:
            while True:
                with self._lock:
                    if self._closed or not self._key_groups:
                        self._thread = None
                        return
                    wanted = set(self._key_groups) if self._keys_changed or listener is None \
                        else None
                    self._keys_changed = False
                    self._wake_pending = False
                next_nudge_s = self._nudge_idle()
                wait_s = 0.0 if due else min(self._idle_s, next_nudge_s)
                with self._lock:
                    self._wait_until = time.monotonic() + wait_s
                try:
                    if listener is None:
                        listener = _listener(self._client, self._wake_channel)
                    if wanted is not None:
                        listener.follow(wanted)
                    due |= listener.due(wait_s)
                    if due:
                        due = self._read_and_dispatch(due)
                except Exception:  # noqa: BLE001 - the reader must outlive a Redis outage
                    log.warning("stream hub read failed; retrying", exc_info=True)
                    if listener is not None:
                        listener.close()
                        listener = None
                    time.sleep(_RETRY_S)
        finally:
            if listener is not None:
                listener.close()

    def _nudge_idle(self) -> float:
        """Nudge the groups idle for their ``idle_s``; returns the seconds until the next
        one is due. A group that got something meanwhile has a later ``due_at`` and goes
        back into the heap at it; a group without members leaves it."""
        now = time.monotonic()
        with self._lock:
            heap = self._idle_heap
            while heap and heap[0][0] <= now:
                _, _, group = heapq.heappop(heap)
                if self._groups.get((group.keys, group.idle_s)) is not group:
                    continue
                if group.due_at <= now:
                    group.nudge()
                heapq.heappush(heap, (group.due_at, next(self._order), group))
            next_due = heap[0][0] - now if heap else self._idle_s
        return max(0.0, next_due)

    def _read_and_dispatch(self, due: set[str]) -> set[str]:
        """Read the keys messages named, with every key watched beside them, from the
        hub's positions, and dispatch; returns the keys that had more than one read's
        worth (read again at once)."""
        with self._lock:
            positions = {key: self._positions[key] for key in self._companions(due)
                         if key in self._positions}
        read = self._read(positions)
        self._dispatch(read)
        return {key for key, entries in read if len(entries) >= self._count}

    def _companions(self, due: set[str]) -> list[str]:
        """The due keys and every key a group watches with them: first every group's
        followed key (its first), then the companions. Read in that order in one
        pipeline and dispatched together, a companion's entry written before a followed
        key's entry is never delivered after it: a seat token's revocation (on the
        match's live key) or an organiser key's (on a key every stream of that key
        follows, whatever the match) reaches a stream no later than any event appended
        after it. A companion shared by several matches' groups must come after all of
        their followed keys, not only its own group's; no key is followed by one group
        and a companion of another. Called under the lock."""
        followed: dict[str, None] = {}
        companions: dict[str, None] = {}
        for key in sorted(due):
            for group in self._key_groups.get(key, ()):
                followed[group.keys[0]] = None
                companions.update(dict.fromkeys(group.keys[1:]))
        return [*followed, *(key for key in companions if key not in followed)]

    def _read(self, positions: Mapping[str, str]) -> list[Batch]:
        """Each key's entries after its position: one single-key ``XREAD`` per key (so
        every command stays within one slot), pipelined."""
        if not positions:
            return []
        pipe = self._client.pipeline(transaction=False)
        keys = list(positions)
        for key in keys:
            pipe.xread({key: positions[key]}, count=self._count)
        out: list[Batch] = []
        for key, reply in zip(keys, pipe.execute(), strict=True):
            entries = _entries_of(reply)
            if entries:
                out.append((key, entries))
        return out

    def _dispatch(self, read: list[Batch]) -> None:
        handed: list[Batch] = []
        with self._lock:
            for batch in read:
                key, entries = batch
                groups = self._key_groups.get(key)
                if groups is None or entry_order(entries[-1][0]) <= \
                        entry_order(self._positions[key]):
                    continue
                self._positions[key] = entries[-1][0]
                for group in groups:
                    group.push(batch)
                handed.append(batch)
        now = time.time()
        for _, entries in handed:
            for entry_id, fields in entries:
                written = _written_at(entry_id, fields)
                if written is not None:
                    self._metrics.fanned_out(now - written)


class _Listener:
    """The hub's pub/sub connection: which channels it holds and what they said."""

    def __init__(self, client: redis.Redis, wake_channel: str) -> None:
        self._pubsub = client.pubsub()
        self._wake_channel = wake_channel
        self._held: set[str] = set()
        self._pubsub.ssubscribe(wake_channel)

    def follow(self, wanted: set[str]) -> None:
        """Subscribe the channels of keys newly wanted, unsubscribe the rest."""
        new, gone = wanted - self._held, self._held - wanted
        if new:
            self._pubsub.ssubscribe(*new)
            self._held |= new
        if gone:
            self._pubsub.sunsubscribe(*gone)
            self._held -= gone

    def due(self, timeout: float) -> set[str]:
        """The keys to read: named by a message, or just subscribed (confirmed). Waits up
        to ``timeout`` for the first message, then takes what has already arrived."""
        keys: set[str] = set()
        message = self._pubsub.get_sharded_message(timeout=timeout)
        taken = 0
        while message is not None and taken < _DRAIN:
            channel = _text(message.get("channel"))
            if message.get("type") in ("smessage", "ssubscribe") and channel in self._held:
                keys.add(channel)
            taken += 1
            message = self._pubsub.get_sharded_message(timeout=0.0)
        return keys

    def close(self) -> None:
        try:
            self._pubsub.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            log.debug("stream hub pub/sub close failed", exc_info=True)


def _listener(client: redis.Redis, wake_channel: str) -> _Listener | _ShardedListener:
    """A connection per master on a Redis Cluster; one connection on a single Redis."""
    if isinstance(client, RedisCluster):
        return _ShardedListener(client, wake_channel)
    return _Listener(client, wake_channel)


class _Shard:
    """One master's pub/sub connection on a cluster, and the reader that hands what it
    hears to the listener's inbox: ``(shard, type, channel)`` for a message, a
    subscription's confirmation or its end, ``(shard, "moved", slot)`` when the master
    answered a subscription with MOVED, ``(shard, "lost", None)`` when the connection
    broke. The reader only reads; the hub's thread subscribes and unsubscribes."""

    def __init__(self, node: ClusterNode, inbox: queue.SimpleQueue[Heard]) -> None:
        self.name = node.name
        self.channels: set[str] = set()
        self._pubsub = _own_connection(node).pubsub()
        self._inbox = inbox
        self._closing = False
        self._reader: threading.Thread | None = None

    def ssubscribe(self, *channels: str) -> None:
        for same_slot in _by_slot(channels):
            self._pubsub.ssubscribe(*same_slot)
            self.channels.update(same_slot)
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, name=f"rummy-shard-{self.name}",
                                            daemon=True)
            self._reader.start()

    def sunsubscribe(self, *channels: str) -> None:
        self.channels.difference_update(channels)
        for same_slot in _by_slot(channels):
            self._pubsub.sunsubscribe(*same_slot)

    def _read(self) -> None:
        try:
            while not self._closing:
                try:
                    message = self._pubsub.get_sharded_message(timeout=_LISTEN_S)
                except redis.exceptions.MovedError as moved:
                    self._inbox.put((self, "moved", moved.slot_id))
                    continue
                except redis.ResponseError:
                    log.warning("shard %s answered an error", self.name, exc_info=True)
                    continue
                if message is not None and message.get("type") in _HEARD:
                    self._inbox.put((self, message["type"], _text(message["channel"])))
        except Exception:  # noqa: BLE001 - the listener remakes what a lost shard held
            if not self._closing:
                log.warning("shard %s pub/sub connection lost", self.name, exc_info=True)
                self._inbox.put((self, "lost", None))
        finally:
            self._release()

    def close(self) -> None:
        """Stop the reader; it lets the connection go at its next wake-up (at most
        ``_LISTEN_S``), so no other thread touches a socket it is reading."""
        self._closing = True
        if self._reader is None:
            self._release()

    def _release(self) -> None:
        try:
            self._pubsub.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            log.debug("shard %s pub/sub close failed", self.name, exc_info=True)


def _own_connection(node: ClusterNode) -> redis.Redis:
    """A client of ``node`` with a pool of its own, made like the cluster client's: the
    cluster client disconnects its node pools when it learns the slots again (after a
    MOVED), and redis-py would then reconnect a pub/sub connection taken from one and
    subscribe its channels of every slot again in one command (CROSSSLOT)."""
    pool = node.redis_connection.connection_pool  # type: ignore[union-attr]
    return redis.Redis(connection_pool=redis.ConnectionPool(
        connection_class=pool.connection_class, max_connections=1, **pool.connection_kwargs))


def _by_slot(channels: tuple[str, ...]) -> list[list[str]]:
    """Channels grouped by slot: one (un)subscription may name channels of one slot only
    (CROSSSLOT otherwise)."""
    slots: dict[int, list[str]] = {}
    for channel in channels:
        slots.setdefault(key_slot(channel.encode()), []).append(channel)
    return list(slots.values())


Heard = tuple[_Shard, str, Any]
_HEARD = ("smessage", "ssubscribe", "sunsubscribe")


class _ShardedListener:
    """The hub's ears on a Redis Cluster: one pub/sub connection per master, each
    channel subscribed on the master owning its slot, and one reader per connection
    feeding a common inbox, so a message on any shard wakes the hub at once.

    It follows slot moves. A master that gives a slot away ends its channels'
    subscriptions (``sunsubscribe`` from the server); a subscription sent to a master
    that no longer owns the slot is answered MOVED; a broken connection ends all of its
    subscriptions. Each such channel is *stray*: the listener refreshes the cluster's
    slot map (at most every ``_REFRESH_S``) and subscribes it again on its owner, whose
    confirmation makes the hub read the key once more, so what was appended meanwhile is
    delivered.
    """

    def __init__(self, client: RedisCluster, wake_channel: str) -> None:
        self._client = client
        self._wake_channel = wake_channel
        self._inbox: queue.SimpleQueue[Heard] = queue.SimpleQueue()
        self._shards: dict[str, _Shard] = {}
        self._held: dict[str, _Shard] = {}
        self._stray: set[str] = set()
        self._refreshed_at = -_REFRESH_S
        self._place({wake_channel})

    def follow(self, wanted: set[str]) -> None:
        """Subscribe the channels of keys newly wanted, unsubscribe the rest."""
        wanted = wanted | {self._wake_channel}
        held = set(self._held) | self._stray
        self._stray &= wanted
        for channel in held - wanted:
            shard = self._held.pop(channel, None)
            if shard is not None:
                self._quietly(shard, shard.sunsubscribe, channel)
        self._place(wanted - held)
        self._close_idle()

    def due(self, timeout: float) -> set[str]:
        """The keys to read: named by a message, or just subscribed (confirmed). Waits up
        to ``timeout`` (``_REFRESH_S`` while channels are stray) for the first word from
        any shard, then takes what has arrived; stray channels are placed again
        afterwards."""
        keys: set[str] = set()
        if self._stray:
            timeout = min(timeout, _REFRESH_S)
        try:
            heard: Heard | None = self._inbox.get(timeout=timeout) if timeout > 0 \
                else self._inbox.get_nowait()
        except queue.Empty:
            heard = None
        taken = 0
        while heard is not None and taken < _DRAIN:
            self._hear(heard, keys)
            taken += 1
            try:
                heard = self._inbox.get_nowait()
            except queue.Empty:
                heard = None
        if self._stray and time.monotonic() - self._refreshed_at >= _REFRESH_S:
            self._refresh()
            self._place(self._stray)
            self._close_idle()
        return keys

    def close(self) -> None:
        for shard in self._shards.values():
            shard.close()
        self._shards.clear()
        self._held.clear()

    def _hear(self, heard: Heard, keys: set[str]) -> None:
        shard, kind, what = heard
        if kind == "lost":
            self._lose(shard)
        elif kind == "moved":
            self._stray_from(shard, {channel for channel in shard.channels
                                     if self._client.keyslot(channel) == what})
        elif self._held.get(what) is not shard:
            return
        elif kind == "sunsubscribe":
            self._stray_from(shard, {what})
        elif what != self._wake_channel:
            keys.add(what)

    def _stray_from(self, shard: _Shard, channels: set[str]) -> None:
        """Channels a shard no longer carries: forgotten there, placed again later."""
        channels = {channel for channel in channels if self._held.get(channel) is shard}
        if not channels:
            return
        for channel in channels:
            del self._held[channel]
        self._stray |= channels
        self._quietly(shard, shard.sunsubscribe, *channels)

    def _lose(self, shard: _Shard) -> None:
        if self._shards.get(shard.name) is shard:
            del self._shards[shard.name]
        shard.close()
        for channel, holder in list(self._held.items()):
            if holder is shard:
                del self._held[channel]
                self._stray.add(channel)

    def _place(self, channels: set[str]) -> None:
        """Subscribe each channel on the master owning its slot now; a channel whose
        master cannot be reached stays stray."""
        by_node: dict[str, list[str]] = {}
        for channel in channels:
            try:
                node = self._client.get_node_from_key(channel)
            except redis.RedisError:
                node = None
            if node is None or node.redis_connection is None:
                self._stray.add(channel)
                continue
            by_node.setdefault(node.name, []).append(channel)
            if node.name not in self._shards:
                self._shards[node.name] = _Shard(node, self._inbox)
        for name, placed in by_node.items():
            shard = self._shards[name]
            if self._quietly(shard, shard.ssubscribe, *placed):
                self._stray.difference_update(placed)
                self._held.update(dict.fromkeys(placed, shard))
            else:
                self._stray.update(placed)

    def _quietly(self, shard: _Shard, command: Any, *channels: str) -> bool:
        """Send a (un)subscription; a shard whose connection fails is lost."""
        try:
            command(*channels)
        except redis.RedisError:
            log.warning("shard %s pub/sub failed", shard.name, exc_info=True)
            self._lose(shard)
            return False
        return True

    def _refresh(self) -> None:
        """Learn the slots' owners again (redis-py's own refresh after MOVED)."""
        self._refreshed_at = time.monotonic()
        try:
            self._client.nodes_manager.initialize()
        except redis.RedisError:
            log.warning("cluster slot map refresh failed", exc_info=True)

    def _close_idle(self) -> None:
        for name, shard in list(self._shards.items()):
            if not shard.channels:
                del self._shards[name]
                shard.close()


def _written_at(entry_id: str, fields: Fields) -> float | None:
    """When an entry was written (epoch seconds): an event's ``ts``, else the time of an
    id Redis chose (``XADD *``); None when neither says."""
    ts = fields.get(b"ts", fields.get("ts"))
    if ts is not None:
        try:
            return float(_text(ts))
        except ValueError:
            return None
    ms = entry_order(entry_id)[0]
    return ms / 1000 if ms >= _EPOCH_MS else None


def _entries_of(reply: Any) -> list[tuple[str, Fields]]:
    """One key's entries from an ``XREAD`` reply, under RESP2 or RESP3."""
    if not reply:
        return []
    items = reply.items() if isinstance(reply, dict) else reply
    for _, entries in items:
        if len(entries) == 1 and isinstance(entries[0], list):
            entries = entries[0]  # RESP3: redis-py wraps each key's entry list once more
        return [(_text(entry_id), fields or {}) for entry_id, fields in entries]
    return []
