"""The one loader of aggregates: a cached fold per stream, fast-forwarded with newer events.

Every caller (API views and actions, system steps, organiser controls, clock checks) gets a
match from here, and the tournaments' use cases a tournament from a second instance over
the same store code (``domain.aggregate``: an ``AggregateKind`` says how each kind begins
and what its commands decide with). A cached aggregate is brought up to date by reading the
events after its version, never the whole stream; one not in the cache is folded from its
first event, or from its snapshot (``service.usecases.snapshots``). The cache is an
optimisation only: state is always the fold of the stored
events.

What never changes once an aggregate exists (a match's family and secrets) is read from
the meta once and cached with it.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from domain.aggregate import A
from domain.events import Event
from domain.evolving import folded
from domain.fairness import MatchSecrets
from domain.match import Match
from domain.variants import VARIANTS
from service.codec import to_recorded
from service.ports import EventStore, Reading, StoredEvent
from service.usecases.errors import NotFound, storable
from service.usecases.snapshots import Snapshots

T = TypeVar("T")

CACHE_SIZE = 512
META_KEPT = 16 * CACHE_SIZE
"""Metas (and contexts) kept before they are all let go: those of matches read but not kept
folded too (views, lists); a repository keeping many folded (a worker's) keeps twice as
many, not sixteen times, so that its metas stay within its folds' memory."""
GONE_KEPT = 4096
"""Deleted match ids remembered so that requests in flight at their deletion cannot cache
them again; a request lasts far less than it takes to delete this many matches."""


@dataclass
class ReadStats:
    """What loading cost: stream reads, events read, ``evolve`` calls (for the bench)."""

    reads: int = 0
    events: int = 0
    evolves: int = 0


def not_found(match_id: str) -> NotFound:
    return NotFound("match_not_found", f"no match {match_id!r}")


@dataclass(frozen=True)
class AggregateKind(Generic[A]):
    """How the repository begins one kind of aggregate and what its commands decide with."""

    name: str
    blank: Callable[[Mapping[str, str]], A]
    """The aggregate before its first event, from its creation metadata."""
    context: Callable[[Mapping[str, str]], Any]
    """What a command decides with besides the aggregate, from its metadata (a match's
    secrets); read once and cached."""
    not_found: Callable[[str], NotFound]
    evolves: Callable[[Event], int] = lambda event: 1
    """``evolve`` calls one stored event costs (the bench's count)."""


def match_secrets(meta: Mapping[str, str]) -> MatchSecrets:
    """The match's seed and the players' entropy, kept in its meta."""
    return MatchSecrets(bytes.fromhex(meta["seed"]), tuple(json.loads(meta.get("entropy", "[]"))))


@functools.cache
def blank_match(variant: str) -> Match:
    """A match of ``variant`` before its first event. It is frozen, so every cold load
    begins from the one kept for its variant (building it anew cost a few microseconds,
    a worker's every cold read)."""
    return Match.new(VARIANTS[variant])


MATCHES: AggregateKind[Match] = AggregateKind(
    "match", lambda meta: blank_match(meta["variant"]), match_secrets, not_found, folded)


class Repository(Generic[A]):
    """Loads one kind of aggregate for every use case; thread-safe; ``cache_size`` kept."""

    def __init__(self, store: EventStore, cache_size: int = CACHE_SIZE,
                 kind: AggregateKind[Any] = MATCHES, snapshots: Snapshots | None = None,
                 ) -> None:
        """``snapshots``: where a cold load may start from (``service.usecases.snapshots``);
        None folds every cold load from the first event."""
        self.store = store
        self.snapshots = snapshots
        self.kind: AggregateKind[A] = kind
        self.stats = ReadStats()
        self._cache: OrderedDict[str, A] = OrderedDict()
        self._meta: dict[str, dict[str, str]] = {}
        self._contexts: dict[str, Any] = {}
        self._cache_size = cache_size
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> A:
        """The aggregate at its newest version; ``NotFound`` when there is none."""
        if not storable(match_id):
            raise self.kind.not_found(match_id)
        with self._lock:
            cached = self._cache.get(match_id)
        if cached is None:
            loaded, fresh = self._cold(match_id)
        else:
            loaded, fresh = cached, self._read(match_id, after=cached.version)
        if fresh:
            loaded = self.fold(loaded, fresh)
        self._remember(match_id, loaded)
        return loaded

    def cached(self, match_id: str) -> A | None:
        """The aggregate as this process last loaded or saved it, reading nothing; it may be
        behind the log (another process appended since), so a command decided on it is
        appended only if the log is still at its version (``CommandRunner.run``'s
        ``loaded``)."""
        with self._lock:
            return self._cache.get(match_id)

    def get_along(self, match_id: str, reading: Callable[[int], tuple[list[StoredEvent], T]]
                  ) -> tuple[A, T] | None:
        """``get`` of a cached aggregate, whose newer events ``reading(version)`` reads with
        something else in the same round trip (a view's presence), returned beside it;
        None when the aggregate is not cached (``get`` it, and read the rest apart)."""
        if not storable(match_id):
            return None
        with self._lock:
            cached = self._cache.get(match_id)
        if cached is None:
            return None
        fresh, beside = reading(cached.version)
        self.stats.reads += 1
        self.stats.events += len(fresh)
        loaded = self.fold(cached, fresh) if fresh else cached
        self._remember(match_id, loaded)
        return loaded, beside

    def get_many(self, match_ids: Sequence[str]) -> dict[str, A | NotFound]:
        """Each aggregate at its newest version as ``get`` loads it, all read in one round
        trip (a worker's claimed batch), two when some are not cached and snapshots are
        on (their snapshots first, so each log is read from its snapshot's version); a
        ``NotFound`` in place of one there is none of."""
        with self._lock:
            cached = {match_id: self._cache.get(match_id) for match_id in match_ids}
        ids = [match_id for match_id in match_ids if storable(match_id)]
        snapshots = self._snapshots_of([match_id for match_id in ids if cached[match_id] is None])
        readings = [self._reading(match_id, cached[match_id], snapshots.get(match_id))
                    for match_id in ids]
        loaded: dict[str, A | NotFound] = {match_id: self.kind.not_found(match_id)
                                            for match_id in match_ids}
        for reading, found in zip(readings, self.store.read_many(readings), strict=True):
            self.stats.reads += 1
            self.stats.events += len(found.events)
            match_id = reading.match_id
            if reading.with_meta and self._keep_meta(match_id, found.meta) is None:
                continue
            try:
                begun, events = self._begun(match_id, cached[match_id],
                                            snapshots.get(match_id), found.events)
            except NotFound as gone:
                loaded[match_id] = gone
                continue
            aggregate = self.fold(begun, events) if events else begun
            self._remember(match_id, aggregate)
            loaded[match_id] = aggregate
        return loaded

    def _snapshots_of(self, match_ids: list[str]) -> dict[str, tuple[int, bytes]]:
        if self.snapshots is None or not match_ids:
            return {}
        return self.snapshots.versions(match_ids)

    def _reading(self, match_id: str, cached: A | None,
                 snapshot: tuple[int, bytes] | None) -> Reading:
        """What ``get_many`` reads of one log: the events after the cached version; else
        the meta they begin from and the events from the snapshot's own (whose hash
        vouches for it) or all of them."""
        if cached is not None:
            return Reading(match_id, cached.version)
        after = snapshot[0] - 1 if snapshot is not None else 0
        return Reading(match_id, after, with_meta=match_id not in self._meta)

    def _begun(self, match_id: str, cached: A | None, snapshot: tuple[int, bytes] | None,
               events: list[StoredEvent]) -> tuple[A, list[StoredEvent]]:
        """Where ``get_many`` folds one log from, and the events to fold: the cached
        aggregate; the snapshot, when the log's event at its version is the one it was
        taken at; or the blank aggregate (a snapshot not to be trusted: read again as
        ``get`` would, which is rare)."""
        if cached is not None:
            return cached, events
        if snapshot is None:
            return self._from_first(match_id, self._empty(match_id), events)
        thawed = Snapshots.thawed(snapshot[1], self._empty(match_id))
        if thawed is not None and _vouched(thawed, events):
            return thawed, events[1:]
        return self._cold(match_id)

    def at(self, match_id: str, version: int) -> A:
        """The aggregate as it stood right after event ``version`` (folded from the start)."""
        empty = self._empty(match_id)
        return self.fold(empty, self._read(match_id, after=0, until=version))

    def stored(self, match_id: str, after: int = 0,
               until: int | None = None) -> list[StoredEvent]:
        """The stored events (for logs, exports and live streams)."""
        if not storable(match_id):
            raise self.kind.not_found(match_id)
        return self._read(match_id, after, until)

    def meta(self, match_id: str) -> dict[str, str] | None:
        """The creation metadata (a match's variant, seed, owner, tags...; never seat
        tokens), cached: it never changes once the aggregate exists. None when there is
        none of this kind (a tournament's id names no match, and the other way round:
        every meta says its ``aggregate``, a match's by its absence)."""
        cached = self._meta.get(match_id)
        if cached is not None:
            return cached
        return self._keep_meta(match_id,
                               self.store.meta(match_id) if storable(match_id) else None)

    def _keep_meta(self, match_id: str, meta: Mapping[str, str] | None) -> dict[str, str] | None:
        """Cache a meta just read (``meta``'s answer for it)."""
        if meta is None or meta.get("aggregate", "match") != self.kind.name:
            return None
        fixed = {key: value for key, value in meta.items() if not key.startswith("token:")}
        with self._lock:
            if match_id in self._gone:
                return fixed
            if len(self._meta) > max(META_KEPT, 2 * self._cache_size):
                self._meta.clear()
                self._contexts.clear()
            self._meta[match_id] = fixed
        return fixed

    def context(self, match_id: str) -> Any:
        """What its commands decide with besides the aggregate (``AggregateKind.context``):
        a match's seed and the players' entropy, kept in its meta."""
        cached = self._contexts.get(match_id)
        if cached is not None:
            return cached
        meta = self.meta(match_id)
        if meta is None:
            raise self.kind.not_found(match_id)
        context = self.kind.context(meta)
        with self._lock:
            if match_id not in self._gone:
                self._contexts[match_id] = context
        return context

    def forget(self, match_id: str) -> None:
        """Drop a deleted match (embedded retention) from every cache, for good: a request
        that read it just before the deletion cannot put it back, so the next one is a 404.
        """
        with self._lock:
            self._cache.pop(match_id, None)
            self._meta.pop(match_id, None)
            self._contexts.pop(match_id, None)
            self._gone[match_id] = None
            while len(self._gone) > GONE_KEPT:
                self._gone.popitem(last=False)

    # --- folding -----------------------------------------------------------------------

    def fold(self, aggregate: A, stored: Sequence[StoredEvent]) -> A:
        """``aggregate`` after the stored events that follow it (its ``apply``)."""
        records = to_recorded(stored)
        self.stats.evolves += sum(self.kind.evolves(record.event) for record in records)
        return aggregate.apply(records)

    def decided(self, before: A, events: list[Event]) -> Any:
        """Fold freshly decided events once, ahead of their append (the aggregate's
        ``ahead``)."""
        self.stats.evolves += sum(self.kind.evolves(event) for event in events)
        return before.ahead(events)

    def saved(self, match_id: str, before: A, ahead: Any,
              stored: Sequence[StoredEvent]) -> A:
        """The aggregate after ``ahead`` was appended as ``stored``: no re-read, no
        re-fold."""
        after = before.stored(ahead, to_recorded(stored))
        self._remember(match_id, after)
        return after

    # --- internals ---------------------------------------------------------------------

    def _read(self, match_id: str, after: int, until: int | None = None) -> list[StoredEvent]:
        events = self.store.read(match_id, after=after, until=until)
        self.stats.reads += 1
        self.stats.events += len(events)
        return events

    def _cold(self, match_id: str) -> tuple[A, list[StoredEvent]]:
        """Where a load not in the cache starts, and the events to fold onto it: a snapshot
        and the events after it, when the stream still holds the snapshot's last event
        (same version, same hash); else the blank aggregate and every event. A long fold
        without a snapshot to trust writes one."""
        blank = self._empty(match_id)
        if self.snapshots is None:
            return blank, self._read(match_id, after=0)
        snapshot = self.snapshots.load(match_id, blank)
        if snapshot is not None:
            events = self._read(match_id, after=snapshot.version - 1)
            if _vouched(snapshot, events):
                return snapshot, events[1:]
        return self._from_first(match_id, blank, self._read(match_id, after=0))

    def _from_first(self, match_id: str, blank: A,
                    events: list[StoredEvent]) -> tuple[A, list[StoredEvent]]:
        """A fold from the first event: done here and snapshotted when it is long enough
        to owe one, else left to the caller."""
        if events and self.snapshots is not None and self.snapshots.due(0, events[-1].version):
            folded_all = self.fold(blank, events)
            self.snapshots.save(match_id, folded_all)
            return folded_all, []
        return blank, events

    def _empty(self, match_id: str) -> A:
        meta = self.meta(match_id)
        if meta is None:
            raise self.kind.not_found(match_id)
        return self.kind.blank(meta)

    def _remember(self, match_id: str, loaded: A) -> None:
        with self._lock:
            if match_id in self._gone:
                return
            cached = self._cache.get(match_id)
            if cached is None or cached.version <= loaded.version:
                self._cache[match_id] = loaded
            self._cache.move_to_end(match_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)


def _vouched(snapshot: Any, events: Sequence[StoredEvent]) -> bool:
    """Whether the log's first event read is the one the snapshot was taken at (same
    version, same hash): else the stream is not the one it was folded from."""
    return bool(events) and (events[0].version, events[0].hash) == (snapshot.version,
                                                                    snapshot.head_hash)
