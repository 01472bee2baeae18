"""Snapshots of a match's fold, so that a cold read folds only the events after one.

A snapshot is derived, never a fact: the repository reads it only for a match it has not
cached, checks it against the stream, and on any doubt folds from the first event. The
auditors' replay and verify never read one. State is always the fold of the stored events.

Record: one header line ``<SNAPSHOT_SCHEMA> <STATE_VERSION> <event version>`` and the
match as of that version (its ``Match`` fields but the variant, which the meta gives)
pickled. A header that differs from today's code (another record layout, another fold:
``domain.snapshots.STATE_VERSION``) is thrown away, and the snapshot is rebuilt by the
next write or cold read that folds at least ``every`` events.

Why pickle: the state is the server's own frozen dataclasses of tuples, pickled and read
by the same code only (the header's versions refuse any other), and the key is written by
the server alone. Pickle reads a 1,000-event gin match's state in tens of microseconds and
needs no schema of its own; the header carries the versions a pickle cannot. A plain
``pickle.loads`` would run whatever a record names, so someone able to write one key of the
Redis could run code on every API process: records are read by ``_StateUnpickler``, which
builds the domain's own classes and a few plain containers and refuses every other name, so
the worst a forged record does is fail to load (and the match is folded from its events).

When it is written: ``SnapshotWriter`` is a subscriber, run after an append whose events
cross a multiple of ``every``, so one append in ``every`` pays one extra SET and the
others nothing. Writing it inside the append script instead would send the state with
every append (or the script would have to fold): far more bytes for a read that cold
loads alone need.
"""

from __future__ import annotations

import io
import logging
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.match import Match
from domain.snapshots import STATE_VERSION
from service.ports import SnapshotStore
from service.usecases.subscribers import Appended

log = logging.getLogger("rummy.snapshots")

SNAPSHOT_SCHEMA = 1
"""The record's layout (header and pickled fields); change it with ``freeze``/``thaw``."""
SNAPSHOT_EVERY = 100
"""Events between two snapshots of a match (``RUMMY_SNAPSHOT_EVERY``; 0 turns them off)."""
_FIELDS = ("state", "version", "head_hash", "clock", "bots", "at", "rematch")


def freeze(match: Match) -> bytes:
    """The snapshot record of ``match``."""
    header = f"{SNAPSHOT_SCHEMA} {STATE_VERSION} {match.version}\n".encode()
    return header + pickle.dumps(tuple(getattr(match, name) for name in _FIELDS),
                                 protocol=pickle.HIGHEST_PROTOCOL)


_CONTAINERS = frozenset({"tuple", "list", "dict", "set", "frozenset"})


class _StateUnpickler(pickle.Unpickler):
    """Reads a snapshot's pickle, building nothing but ``domain`` classes and plain
    containers."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "domain" or module.startswith("domain."):
            return super().find_class(module, name)
        if module == "builtins" and name in _CONTAINERS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a snapshot may not name {module}.{name}")


def version_of(record: bytes) -> int | None:
    """The version a record holds the match at, read from its header alone; None when
    today's code did not write it (``thaw`` would refuse it)."""
    header = record.partition(b"\n")[0]
    try:
        schema, state_version, version = (int(word) for word in header.split())
    except ValueError:
        return None
    return version if (schema, state_version) == (SNAPSHOT_SCHEMA, STATE_VERSION) else None


def thaw(record: bytes, blank: Match) -> Match | None:
    """The match a record holds (``blank``: the match before its first event, for its
    variant), or None when it was written by other code or cannot be read."""
    version = version_of(record)
    if version is None:
        return None
    try:
        body = record.partition(b"\n")[2]
        match = Match(blank.variant, *_StateUnpickler(io.BytesIO(body)).load())
    except Exception:  # a damaged record is no record: fold from the start
        log.warning("unreadable snapshot ignored", exc_info=True)
        return None
    return match if match.version == version else None


@dataclass
class Snapshots:
    """The repository's use of snapshots: read one for a cold load, say when one is due."""

    store: SnapshotStore
    every: int = SNAPSHOT_EVERY

    def load(self, match_id: str, blank: Any) -> Any | None:
        """The match as a snapshot holds it, None when there is none to trust."""
        record = self.store.load(match_id)
        return None if record is None else self.thawed(record, blank)

    def versions(self, match_ids: Sequence[str]) -> dict[str, tuple[int, bytes]]:
        """The snapshots of many matches in one read, by match: the version each holds
        its match at (from the record's header, before its variant is known) and the
        record, for ``thawed``; matches without one today's code wrote are left out."""
        found = {}
        for match_id, record in zip(match_ids, self.store.load_many(match_ids), strict=True):
            version = 0 if record is None else version_of(record) or 0
            if record is not None and version > 0:
                found[match_id] = (version, record)
        return found

    @staticmethod
    def thawed(record: bytes, blank: Any) -> Any | None:
        """The match ``record`` holds (``thaw``), None for another kind of aggregate."""
        return thaw(record, blank) if isinstance(blank, Match) else None

    def due(self, before: int, after: int) -> bool:
        """Whether the versions from ``before`` (excluded) to ``after`` cross a multiple of
        ``every``."""
        return self.every > 0 and after // self.every > before // self.every

    def save(self, match_id: str, match: Any) -> None:
        if isinstance(match, Match) and match.version > 0:
            self.store.save(match_id, freeze(match))


class SnapshotWriter:
    """The subscriber that snapshots a match when an append crosses a multiple of
    ``every`` (module docstring: why a subscriber)."""

    def __init__(self, snapshots: Snapshots) -> None:
        self.snapshots = snapshots

    def __call__(self, appended: Appended[Any]) -> None:
        if not appended.events:
            return
        before = appended.events[0].version - 1
        if self.snapshots.due(before, appended.aggregate.version):
            self.snapshots.save(appended.aggregate_id, appended.aggregate)
