"""The one gap-free follower of a stream key: the backlog by normal reads, then the
process's fan-out, so that the switch neither loses nor repeats an entry.

It reads what is after the client's position, subscribes to the fan-out at the position
it reached, then reads once more: the fan-out delivers everything dispatched after the
subscription and that second read everything before it, and entries at or before the
position are dropped, so each entry comes once, in order. Match streams
(``service.usecases.live``) and the organisers' feed (``service.usecases.lifecycle``)
both follow their key this way; what they do with the entries is their own.

``Follower`` is an object with a blocking ``next`` rather than a generator, and what it
hands over is plain tuples: with 1,000 streams on one match, each move is taken 1,000
times, and a generator layer per stream with a small object per take cost the API about
10 ms of CPU per fanned-out move (bench/streams.py: 44 against 35 ms per round).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from service.ports import FanOut, Subscription, entry_order

T = TypeVar("T")
Entries = list[tuple[str, T]]
Take = list[tuple[str, list[tuple[str, Mapping[Any, Any]]]]]


Delivery = tuple[list[T], Take]
"""What came: the followed key's new entries, decoded, in order, and what the companion
keys delivered beside them in the same take (raw, as the fan-out gives it). A plain
tuple: one is made per stream for every take fanned out, and a named tuple's
constructor cost the fan-out of a move to 1,000 streams a tenth of its time."""


@dataclass(frozen=True)
class Followed(Generic[T]):
    """A key to follow: where from, how to read after a position (one page, empty at
    the end), and how to decode what the fan-out delivers."""

    key: str
    position: str
    read: Callable[[str], Entries[T]]
    decode: Callable[[str, Mapping[Any, Any]], T]
    """An entry the fan-out delivered, as ``read`` gives its items."""


class Follower(Generic[T]):
    """Follows ``followed.key`` (and its ``companions``: other keys from their own
    positions, delivered raw beside it). ``start`` subscribes and returns the backlog;
    ``next`` waits for the next delivery; ``close`` unsubscribes (always call it)."""

    def __init__(self, fanout: FanOut, followed: Followed[T], idle_s: float,
                 companions: Mapping[str, str] | None = None) -> None:
        self._fanout = fanout
        self._followed = followed
        self._idle_s = idle_s
        self._companions = dict(companions or {})
        self._position = followed.position
        self._order = entry_order(followed.position)
        self._sub: Subscription | None = None

    @property
    def closed(self) -> bool:
        """Whether the fan-out is closing (this process is stopping): stop following."""
        return self._sub is None or self._sub.closed

    def start(self) -> list[T]:
        """The backlog: every entry after the position, read before and after
        subscribing, so the fan-out takes over exactly where the reads ended."""
        backlog = self._read_all()
        self._sub = self._fanout.subscribe(
            {self._followed.key: self._position, **self._companions}, self._idle_s)
        return [item for _, item in backlog + self._read_all()]

    def next(self) -> Delivery[T] | None:
        """The next delivery, waiting for it; None is the fan-out's nudge after
        ``idle_s`` of nothing, or its close (see ``closed``)."""
        assert self._sub is not None, "start() first"
        take = self._sub.get()
        if not take:
            return None
        key, decode = self._followed.key, self._followed.decode
        fresh: list[T] = []
        companions: Take = []
        for taken_key, entries in take:
            if taken_key != key:
                companions.append((taken_key, entries))
                continue
            for entry, fields in entries:
                order = entry_order(entry)
                if order > self._order:
                    fresh.append(decode(entry, fields))
                    self._order, self._position = order, entry
        return fresh, companions

    def close(self) -> None:
        if self._sub is not None:
            self._fanout.unsubscribe(self._sub)

    def _read_all(self) -> Entries[T]:
        found: Entries[T] = []
        while True:
            page = [(entry, item) for entry, item in self._followed.read(self._position)
                    if entry_order(entry) > self._order]
            if not page:
                return found
            found += page
            self._position = page[-1][0]
            self._order = entry_order(self._position)
