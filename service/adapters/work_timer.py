"""The in-process timer of embedded mode: every kind of owed work, paid when it falls due.

Real mode keeps what matches owe in the work index (``service.adapters.work``) and the
workers' reconciler pays it when due. Embedded mode has no worker, so the bootstrap builds
one of these: the follow-up (``service.usecases.background.InProcessWork``) schedules each
thing a match owes, of whatever kind, at its due time (at once for a system step, the
deadline for a clock), and the timer calls back on its one daemon thread. So the request
whose write made work due answers first, and the work runs right after it, off the
request: the next deal after a knock, a clock's move, a bot's reply.

Once every part is built the bootstrap ``start``s it with the callback (the follow-up's
``pay``, which needs the command runner, which needs the follow-up); the thread starts on
the first schedule after that and sleeps until the earliest due time. It never keeps a
process alive, and ``stop`` ends it. A call that fails is logged and dropped: the match's
next write schedules what it owes again.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

from service.ports import Backlog

log = logging.getLogger("rummy.work")

Fire = Callable[[str, str], None]
"""Called as ``fire(kind, match_id)`` once work of that kind the match owes is due."""


class WorkTimer:
    """A heap of (due time, kind, match) worked by one background thread."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._fire: Fire | None = None
        self._clock = clock
        self._due: list[tuple[float, int, str, str]] = []
        self._keys: set[tuple[str, str, float]] = set()
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._running = 0

    def schedule(self, kind: str, match_id: str, at: float) -> None:
        """Fire for ``kind`` of this match at ``at`` (epoch seconds); a second call for
        the same time is a no-op."""
        with self._cond:
            key = (kind, match_id, at)
            if self._closed or key in self._keys:
                return
            self._keys.add(key)
            heapq.heappush(self._due, (at, next(self._seq), kind, match_id))
            self._start_thread()
            self._cond.notify_all()

    def start(self, fire: Fire) -> None:
        """Fire ``fire`` at each due time from now on (what was scheduled before waits)."""
        with self._cond:
            self._fire = fire
            self._start_thread()

    def _start_thread(self) -> None:
        """Called under the lock: the worker thread, once started and with work."""
        if self._thread is None and self._fire is not None and self._due:
            self._thread = threading.Thread(target=self._work, name="rummy-work",
                                            daemon=True)
            self._thread.start()

    def backlog(self, kind: str, now: float) -> Backlog:
        """What of ``kind`` is due at ``now`` and not yet fired (a scrape's owed work)."""
        with self._cond:
            due = [at for at, _, owed, _ in self._due if owed == kind and at <= now]
        return Backlog(len(due), min(due) if due else None)

    def pending(self) -> int:
        with self._cond:
            return len(self._due) + self._running

    def _work(self) -> None:
        while True:
            with self._cond:
                item = self._next()
                if item is None:
                    return
                at, kind, match_id = item
                self._keys.discard((kind, match_id, at))
                self._running += 1
            try:
                assert self._fire is not None  # the thread starts only once it is set
                self._fire(kind, match_id)
            except Exception:  # one match's failure must not stop every other match's work
                log.exception("%s of match %s failed", kind, match_id)
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()

    def _next(self) -> tuple[float, str, str] | None:
        while not self._closed:
            if not self._due:
                self._cond.wait()
                continue
            wait = self._due[0][0] - self._clock()
            if wait <= 0:
                at, _, kind, match_id = heapq.heappop(self._due)
                return at, kind, match_id
            self._cond.wait(min(wait, 1.0))
        return None

    def stop(self, timeout: float = 5.0) -> None:
        """Drop what is waiting and end the thread (after a running call finishes)."""
        with self._cond:
            self._closed = True
            self._due.clear()
            self._keys.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
