"""Rebuilding the work index from the matches themselves (``rummy reconcile --scan``).

The index (``service.adapters.work``) is derived data: every match that awaits a system
step, or has a running turn clock, can be found by loading it. This walks every match in
the catalog once; the workers' reconciler then drives what it marked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from domain.match import DeadlineDue, StepDue
from service.ports import CLOCKS, STEPS

if TYPE_CHECKING:
    from service.bootstrap import Wiring

PAGE = 500


def index_everything(wiring: Wiring) -> dict[str, int]:
    """Mark every waiting match; how many matches were looked at and marked."""
    counts = {"matches": 0, STEPS: 0, CLOCKS: 0}
    offset = 0
    while ids := wiring.store.match_ids(offset, PAGE):
        offset += len(ids)
        for match_id in ids:
            counts["matches"] += 1
            for owed in wiring.repository.get(match_id).owed():
                if isinstance(owed, StepDue):
                    wiring.index.mark(STEPS, match_id, time.time())
                    counts[STEPS] += 1
                elif isinstance(owed, DeadlineDue):
                    wiring.index.mark(CLOCKS, match_id, owed.deadline)
                    counts[CLOCKS] += 1
    return counts
