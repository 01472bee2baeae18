"""The one gap-free follower of a stream key: the backlog by normal reads, then the
process's fan-out, so that the switch neither loses nor repeats an entry.

It reads what is after the client's position, subscribes to the fan-out at the position
it reached, then reads once more: the fan-out delivers everything dispatched after the
subscription and that second read everything before it, and entries at or before the
position are dropped, so each entry comes once, in order. Match streams
(``service.usecases.live``) and the organisers' feed (``service.usecases.lifecycle``)
both follow their key this way; what they do with the entries is their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from service.ports import FanOut, entry_order

T = TypeVar("T")
Entries = list[tuple[str, T]]


@dataclass(frozen=True)
class Delivery(Generic[T]):
    """What came: the followed key's new entries (entry id, item), in order, and what the
    companion keys delivered beside them in the same take (raw, as the fan-out gives it)."""

    fresh: Entries[T]
    companions: list[tuple[str, list[tuple[str, Mapping[Any, Any]]]]] = field(
        default_factory=list)


@dataclass(frozen=True)
class Followed(Generic[T]):
    """A key to follow: where from, how to read after a position (one page, empty at
    the end), and how to decode what the fan-out delivers."""

    key: str
    position: str
    read: Callable[[str], Entries[T]]
    decode: Callable[[str, Mapping[Any, Any]], T]


def follow(fanout: FanOut, followed: Followed[T], idle_s: float,
           companions: Mapping[str, str] | None = None,
           check: Callable[[], object | None] | None = None) -> Iterator[Any]:
    """Deliveries of ``followed.key`` (and its ``companions``: other keys from their own
    positions) as they come; None is the fan-out's nudge after ``idle_s`` of nothing.

    The backlog and the read after subscribing come as one delivery. ``check``, asked
    after those reads and before anything is delivered, may end the follow: what it
    returns, when not None, is yielded last. Ends when the fan-out closes; closing the
    generator unsubscribes.
    """
    position = [followed.position]

    def unseen(entries: Entries[T]) -> Entries[T]:
        fresh = [(entry, item) for entry, item in entries
                 if entry_order(entry) > entry_order(position[0])]
        if fresh:
            position[0] = fresh[-1][0]
        return fresh

    def read_all() -> Entries[T]:
        found: Entries[T] = []
        while page := unseen(followed.read(position[0])):
            found += page
        return found

    backlog = read_all()
    sub = fanout.subscribe({followed.key: position[0], **(companions or {})}, idle_s)
    try:
        backlog += read_all()
        stop = check() if check is not None else None
        if stop is not None:
            yield stop
            return
        if backlog:
            yield Delivery(backlog)
        while True:
            take = sub.get()
            if not take:
                if sub.closed:  # this process's fan-out is closing
                    return
                yield None
                continue
            fresh = unseen([(entry, followed.decode(entry, fields))
                            for key, entries in take if key == followed.key
                            for entry, fields in entries])
            yield Delivery(fresh, [(key, entries) for key, entries in take
                                   if key != followed.key])
    finally:
        fanout.unsubscribe(sub)
