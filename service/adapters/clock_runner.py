"""The in-process clock timer of embedded mode: timeout checks at their deadlines.

Real mode indexes each running turn's deadline (``service.adapters.work``) and the
workers' reconciler checks it when due. Embedded mode has no worker, so the bootstrap
builds one of these and, once every part is built, ``start``s it with the check to fire
(the clocks' use case, which needs the command runner, which needs this timer's
follow-up): one daemon thread, started on the first schedule after that, sleeping until
the earliest deadline. It never keeps a process alive, and ``stop`` ends it. A check that
fails is logged and dropped: the match's next move times its turn again.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("rummy.clocks")

Fire = Callable[[str, int], None]
"""Called as ``fire(match_id, turn_version)`` when that turn's deadline has come."""


class ClockRunner:
    """A heap of (deadline, match, turn) worked by one background thread."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._fire: Fire | None = None
        self._clock = clock
        self._due: list[tuple[float, int, str, int]] = []
        self._keys: set[tuple[str, int]] = set()
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._running = 0

    def schedule(self, match_id: str, turn_version: int, at: float) -> None:
        """Fire for this turn at ``at`` (epoch seconds); a second call for it is a no-op."""
        with self._cond:
            key = (match_id, turn_version)
            if self._closed or key in self._keys:
                return
            self._keys.add(key)
            heapq.heappush(self._due, (at, next(self._seq), match_id, turn_version))
            self._start_thread()
            self._cond.notify_all()

    def start(self, fire: Fire) -> None:
        """Fire ``fire`` at each deadline from now on (what was scheduled before waits)."""
        with self._cond:
            self._fire = fire
            self._start_thread()

    def _start_thread(self) -> None:
        """Called under the lock: the worker thread, once started and with work."""
        if self._thread is None and self._fire is not None and self._due:
            self._thread = threading.Thread(target=self._work, name="rummy-clocks",
                                            daemon=True)
            self._thread.start()

    def pending(self) -> int:
        with self._cond:
            return len(self._due) + self._running

    def _work(self) -> None:
        while True:
            with self._cond:
                item = self._next()
                if item is None:
                    return
                match_id, turn_version = item
                self._keys.discard(item)
                self._running += 1
            try:
                assert self._fire is not None  # the thread starts only once it is set
                self._fire(match_id, turn_version)
            except Exception:  # a check that fails must not stop every other match's clock
                log.exception("clock check of match %s failed", match_id)
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()

    def _next(self) -> tuple[str, int] | None:
        while not self._closed:
            if not self._due:
                self._cond.wait()
                continue
            wait = self._due[0][0] - self._clock()
            if wait <= 0:
                _, _, match_id, turn_version = heapq.heappop(self._due)
                return match_id, turn_version
            self._cond.wait(min(wait, 1.0))
        return None

    def stop(self, timeout: float = 5.0) -> None:
        """Drop what is waiting and end the thread (after a running check finishes)."""
        with self._cond:
            self._closed = True
            self._due.clear()
            self._keys.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
