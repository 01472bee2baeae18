"""Per-process fan-out of Redis streams: one reader for every live stream a process serves.

A live stream used to hold a thread and a blocking ``XREAD`` of its own for as long as the
client listened, so a process ran out of threads (and Redis connections) at a few hundred
streams. Here one hub per process reads each watched stream key once and hands every new
entry to each subscriber of that key; a subscriber costs a small inbox and an event, no
thread and no connection. Under gunicorn's gevent worker the hub's thread and every
subscriber's wait are greenlets (gevent's monkey-patching makes ``threading`` and redis-py's
sockets cooperative); without gevent (the Flask test client, the CLI) they are ordinary
threads, and the same code works.

The hub knows stream keys and entry ids, nothing about matches: ``service.usecases.live``
reads the backlog with normal reads, subscribes at the position it reached, and decodes and
redacts what arrives.

Gap-free hand-over: a subscriber reads what it has not seen with a normal read *after*
``subscribe`` returned. Every entry the hub dispatches after that moment reaches the new
subscriber, and every entry dispatched before it was already in Redis, so that read sees it;
the subscriber drops what it already has by id. The hub dispatches under the same lock that
``subscribe`` takes, which is what makes "before" and "after" well defined.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import redis

log = logging.getLogger("rummy.fanout")

Fields = Mapping[Any, Any]
Batch = tuple[str, list[tuple[str, Fields]]]
"""(stream key, [(entry id, fields), ...]) as the hub read them: one list shared by every
subscriber of the key, so read it and never change it."""

_RETRY_S = 0.5
_WAKE_MAXLEN = 16
_WAKE_TTL_MS = 3_600_000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Subscription:
    """One consumer's inbox: the new entries of the keys it watches, in order per key."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = tuple(keys)
        self._inbox: deque[Batch] = deque()
        self._ready = threading.Event()

    def push(self, batch: Batch) -> None:
        """Called by the hub (under its lock): queue the batch and wake the consumer."""
        self._inbox.append(batch)
        self._ready.set()

    def get(self, timeout: float) -> list[Batch]:
        """Everything queued, waiting up to ``timeout`` seconds for something; [] if none.

        The flag is cleared before the inbox is checked, so an entry pushed in between
        still sets it and the wait returns at once.
        """
        self._ready.clear()
        if not self._inbox:
            self._ready.wait(timeout)
        taken: list[Batch] = []
        while self._inbox:
            taken.append(self._inbox.popleft())
        return taken


class StreamHub:
    """Reads every watched stream key with one blocking ``XREAD`` and fans entries out.

    Watching starts with a key's first subscriber and ends with its last, so a match no one
    follows costs nothing. The reader thread starts on the first subscription and ends when
    nothing is watched. A change to the watched set wakes a blocked read through the hub's
    own wake-up key (an ``XADD`` to a capped stream the read also watches), so a new key is
    read at once rather than after the current block ends.
    """

    def __init__(self, client: redis.Redis, wake_key: str, *, block_ms: int = 1000,
                 count: int = 200) -> None:
        self._client = client
        self._wake_key = wake_key
        self._block_ms = max(1, block_ms)
        self._count = count
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}
        self._positions: dict[str, str] = {}
        self._wake_position = "0-0"
        self._wake_pending = False
        self._thread: threading.Thread | None = None
        self._closed = False

    # --- subscribers ---------------------------------------------------------------------

    def subscribe(self, positions: Mapping[str, str]) -> Subscription:
        """Watch each key from its position (an entry id) unless it is watched already.

        A key already watched keeps the hub's position: the subscriber's own read after
        this call covers anything between the two.
        """
        sub = Subscription(positions)
        with self._lock:
            if self._closed:
                raise RuntimeError("the stream hub is closed")
            new = False
            for key, position in positions.items():
                if key not in self._subs:
                    self._subs[key] = set()
                    self._positions[key] = position
                    new = True
                self._subs[key].add(sub)
            wake = new and self._thread is not None and not self._wake_pending
            if wake:
                self._wake_pending = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rummy-stream-hub",
                                                daemon=True)
                self._thread.start()
        if wake:
            self._wake()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a subscriber; a key left without subscribers is no longer read."""
        with self._lock:
            for key in sub.keys:
                subs = self._subs.get(key)
                if subs is None:
                    continue
                subs.discard(sub)
                if not subs:
                    del self._subs[key]
                    del self._positions[key]

    def watched(self) -> set[str]:
        """The keys read now (for tests and metrics)."""
        with self._lock:
            return set(self._subs)

    def subscribers(self, key: str) -> int:
        with self._lock:
            return len(self._subs.get(key, ()))

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None

    def close(self) -> None:
        """Stop reading; the reader ends after its current block (at most ``block_ms``)."""
        with self._lock:
            self._closed = True
            self._subs.clear()
            self._positions.clear()

    # --- the reader ----------------------------------------------------------------------

    def _wake(self) -> None:
        """Interrupt the reader's blocked ``XREAD`` so it re-arms with the new keys."""
        try:
            pipe = self._client.pipeline(transaction=False)
            pipe.xadd(self._wake_key, {"w": "1"}, maxlen=_WAKE_MAXLEN, approximate=True)
            pipe.pexpire(self._wake_key, _WAKE_TTL_MS)
            pipe.execute()
        except redis.RedisError:
            log.warning("stream hub wake-up failed; new keys are read after the current block")

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed or not self._subs:
                    self._thread = None
                    return
                positions = dict(self._positions)
                positions[self._wake_key] = self._wake_position
                self._wake_pending = False
            try:
                read = self._read(positions)
            except Exception:  # noqa: BLE001 - the reader must outlive a Redis outage
                log.warning("stream hub read failed; retrying", exc_info=True)
                time.sleep(_RETRY_S)
                continue
            self._dispatch(read)

    def _read(self, positions: Mapping[str, str]) -> list[Batch]:
        """One ``XREAD BLOCK`` over every watched key, from each key's position.

        Not Redis Cluster safe: the keys belong to many matches, hence many slots. This is
        the one place that reads them together; a Cluster version groups ``positions`` by
        node (or slot) and runs one such read per group, e.g. one reader per node.
        """
        streams: dict[Any, Any] = dict(positions)
        reply: Any = self._client.xread(streams, count=self._count, block=self._block_ms)
        if not reply:
            return []
        items = reply.items() if isinstance(reply, dict) else reply
        out: list[Batch] = []
        for key, entries in items:
            if len(entries) == 1 and isinstance(entries[0], list):
                entries = entries[0]  # RESP3: redis-py wraps each key's entry list once more
            out.append((_text(key), [(_text(entry_id), fields or {})
                                     for entry_id, fields in entries]))
        return out

    def _dispatch(self, read: list[Batch]) -> None:
        with self._lock:
            for batch in read:
                key, entries = batch
                if not entries:
                    continue
                if key == self._wake_key:
                    self._wake_position = entries[-1][0]
                    continue
                subs = self._subs.get(key)
                if subs is None:
                    continue
                self._positions[key] = entries[-1][0]
                for sub in subs:
                    sub.push(batch)


def entry_order(entry_id: str) -> tuple[int, int]:
    """A stream entry id as a sortable pair (``"5-0"`` -> (5, 0))."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)
