"""Embedded mode's bound on memory: finished matches beyond ``RUMMY_EMBEDDED_KEEP_FINISHED``
are deleted, oldest finish first (the keys: service/adapters/retention.py).

``Retention`` is a subscriber (``service.usecases.subscribers``): it hears of a match's
terminal event once it is stored; the bootstrap subscribes it in embedded mode only. Each
deleted match is also dropped from the in-process caches (repository, access), so the
next request for it is a clean 404 ``match_not_found``. Live matches are never deleted: a
game in progress is never cut off, so there is no cap on matches as a whole (creation is
rate-limited instead).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from domain.controls import TERMINAL_EVENTS
from domain.match import Match
from service.ports import FinishedRecord
from service.usecases.subscribers import Appended

log = logging.getLogger("rummy.retention")

Forget = Callable[[str], None]
"""Drops one deleted match from an in-process cache."""


class Retention:
    """Records finished matches and deletes those beyond the cap; one per process."""

    def __init__(self, matches: FinishedRecord, forget: Sequence[Forget]) -> None:
        self.matches = matches
        self._forget = list(forget)
        self._lock = threading.Lock()

    def __call__(self, appended: Appended[Match]) -> None:
        for event in appended.events:
            if event.type in TERMINAL_EVENTS:
                self.finished(appended.aggregate_id, event.ts)

    def finished(self, match_id: str, finished_at: float) -> None:
        """A match has ended: record it, and delete the finished ones beyond the cap.

        Serialised in the process, so two matches ending at once never delete one twice.
        """
        with self._lock:
            deleted = self.matches.record(match_id, finished_at)
        for gone in deleted:
            for forget in self._forget:
                forget(gone)
        if deleted:
            log.debug("retention deleted %d finished matches", len(deleted))
