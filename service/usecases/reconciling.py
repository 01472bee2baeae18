"""Rebuilding the work index from the aggregates themselves (``rummy reconcile --scan``).

The index (``service.ports.WorkIndex``) is derived data: every match or tournament that
owes background work (its ``owed``: a system step, a running turn's clock, a bot's move, a
tournament's progress) can be found by loading it. This walks every match and every
tournament once and marks each thing it owes under its kind, at its due time; the
workers' reconciler then pays what it marked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from service.ports import WorkIndex
from service.usecases.obligations import KINDS
from service.usecases.repository import Repository

PAGE = 500

Ids = Callable[[int, int], list[str]]
"""A page of one kind's ids (``offset``, ``limit``), newest first: its store's index."""


def index_everything(kinds: Mapping[str, tuple[Ids, Repository[Any]]], index: WorkIndex,
                     clock: Callable[[], float] = time.time) -> dict[str, Any]:
    """Mark everything that owes work; ``kinds`` gives, by aggregate kind, the pages of its
    ids and its repository. How many of each kind were looked at (``scanned``), and how
    many were marked under each kind of work."""
    counts: dict[str, Any] = {"scanned": dict.fromkeys(kinds, 0), **dict.fromkeys(KINDS, 0)}
    for name, (ids_of, repository) in kinds.items():
        offset = 0
        while ids := ids_of(offset, PAGE):
            offset += len(ids)
            for aggregate_id in ids:
                counts["scanned"][name] += 1
                for owed in repository.get(aggregate_id).owed():
                    index.mark(owed.kind, aggregate_id, owed.due(clock()))
                    counts[owed.kind] += 1
    return counts
