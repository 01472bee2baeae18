"""Rebuilding the work index from the matches themselves (``rummy reconcile --scan``).

The index (``service.ports.WorkIndex``) is derived data: every match that awaits a system
step, or has a running turn clock, can be found by loading it. This walks every match in
the catalog once; the workers' reconciler then drives what it marked.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from domain.match import DeadlineDue, StepDue
from service.ports import CLOCKS, STEPS, WorkIndex
from service.usecases.repository import Repository

PAGE = 500


def index_everything(match_ids: Callable[[int, int], list[str]], repository: Repository,
                     index: WorkIndex) -> dict[str, int]:
    """Mark every waiting match (``match_ids(offset, limit)`` pages through them all);
    how many matches were looked at and marked, as ``Match.owed`` says."""
    counts = {"matches": 0, STEPS: 0, CLOCKS: 0}
    offset = 0
    while ids := match_ids(offset, PAGE):
        offset += len(ids)
        for match_id in ids:
            counts["matches"] += 1
            for owed in repository.get(match_id).owed():
                if isinstance(owed, StepDue):
                    index.mark(STEPS, match_id, time.time())
                    counts[STEPS] += 1
                elif isinstance(owed, DeadlineDue):
                    index.mark(CLOCKS, match_id, owed.deadline)
                    counts[CLOCKS] += 1
    return counts
