"""Rebuilding the work index from the matches themselves (``rummy reconcile --scan``).

The index (``service.ports.WorkIndex``) is derived data: every match that owes background
work (``Match.owed``: a system step, a running turn's clock...) can be found by loading
it. This walks every match in the catalog once and marks each thing it owes under its
kind, at its due time; the workers' reconciler then pays what it marked.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from service.ports import WorkIndex
from service.usecases.obligations import KINDS
from service.usecases.repository import Repository

PAGE = 500


def index_everything(match_ids: Callable[[int, int], list[str]], repository: Repository,
                     index: WorkIndex, clock: Callable[[], float] = time.time
                     ) -> dict[str, int]:
    """Mark every match that owes work (``match_ids(offset, limit)`` pages through them
    all); how many matches were looked at, and how many were marked under each kind."""
    counts = {"matches": 0, **dict.fromkeys(KINDS, 0)}
    offset = 0
    while ids := match_ids(offset, PAGE):
        offset += len(ids)
        for match_id in ids:
            counts["matches"] += 1
            for owed in repository.get(match_id).owed():
                index.mark(owed.kind, match_id, owed.due(clock()))
                counts[owed.kind] += 1
    return counts
