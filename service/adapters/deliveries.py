"""The in-process delivery runner of embedded mode: webhooks off the request thread.

In embedded mode jobs run inline, on the thread that appended; a webhook sent there would
make a slow endpoint slow the game. The app factory starts this runner instead: a heap of
due attempts worked by a few daemon threads, started on demand and gone when idle, with
the same attempts and backoff as the RQ jobs of real mode. ``drain`` lets tests wait for
it deterministically; ``backoff`` and ``timeout`` can be shortened for them. ``private``
is ``RUMMY_WEBHOOK_PRIVATE=allow`` (``Settings.private_webhooks``): without it every
attempt holds the address policy after DNS (``service.adapters.addresses``).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence

import redis

from service.adapters.webhooks import BACKOFF, TIMEOUT_S, DeliveryRef, Webhooks, attempt

log = logging.getLogger("rummy.webhooks")


class DeliveryRunner:
    """Runs delivery attempts on background threads, each when it falls due."""

    def __init__(self, client: redis.Redis, prefix: str, *, threads: int = 4,
                 backoff: Sequence[float] = BACKOFF, timeout: float = TIMEOUT_S,
                 private: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hooks = Webhooks(client, prefix)
        self.backoff = tuple(backoff)
        self.timeout = timeout
        self.private = private
        self._clock = clock
        self._threads = threads
        self._due: list[tuple[float, int, DeliveryRef]] = []
        self._seq = itertools.count()
        self._live = 0
        self._busy = 0
        self._closed = False
        self._cond = threading.Condition()

    def submit(self, ref: DeliveryRef, delay: float = 0.0) -> None:
        """Attempt ``ref`` after ``delay`` seconds (never on the caller's thread)."""
        with self._cond:
            if self._closed:
                return
            self._push(ref, delay)
            idle = self._live - self._busy
            if idle == 0 and self._live < self._threads:
                self._live += 1
                threading.Thread(target=self._work, name="rummy-webhooks", daemon=True).start()
            self._cond.notify()

    def _push(self, ref: DeliveryRef, delay: float) -> None:
        heapq.heappush(self._due, (self._clock() + delay, next(self._seq), ref))

    def _work(self) -> None:
        while True:
            with self._cond:
                ref = self._next()
                if ref is None:
                    self._live -= 1
                    self._cond.notify_all()
                    return
                self._busy += 1
            try:
                outcome = attempt(self.hooks, ref, self.backoff, self.timeout, self.private)
            except Exception:  # the runner must outlive a bad record or a store hiccup
                log.exception("webhook delivery %s failed unexpectedly", ref.delivery_id)
                outcome = None
            with self._cond:
                # the retry is queued before this attempt stops counting, so drain() never
                # sees a gap between the two
                if outcome is not None and outcome.retry_in is not None and not self._closed:
                    self._push(ref, outcome.retry_in)
                self._busy -= 1
                self._cond.notify_all()

    def _next(self) -> DeliveryRef | None:
        """The next due delivery, waiting for it; None when nothing is left (or closed)."""
        while self._due and not self._closed:
            wait = self._due[0][0] - self._clock()
            if wait <= 0:
                return heapq.heappop(self._due)[2]
            self._cond.wait(wait)
        return None

    def pending(self) -> int:
        """Attempts waiting or running."""
        with self._cond:
            return len(self._due) + self._busy

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until nothing is waiting or running; False if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._due or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def close(self, timeout: float = 10.0) -> bool:
        """Drop waiting attempts and wait for running ones to finish."""
        with self._cond:
            self._closed = True
            self._due.clear()
            self._cond.notify_all()
        return self.drain(timeout)
