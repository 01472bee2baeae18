"""The wiring RQ job functions run with, one per worker process.

``python -m workers`` builds it once through the bootstrap and hands it over with ``use``
before the first job; a plain ``rq worker`` (no ``use``) gets one built on first need
from the job's own connection (the job Redis) and prefix, with the rest of its settings
from the environment (``RUMMY_WEBHOOK_PRIVATE`` among them); when the environment names
the events' Redis apart from the jobs' (``RQ_REDIS_URL``, or ``RUMMY_REDIS_CLUSTER``), the
events are read from ``REDIS_URL``.
"""

from __future__ import annotations

import threading

from rq import get_current_job

from service.bootstrap import Wiring, bootstrap
from service.config import Settings

_lock = threading.Lock()
_wirings: dict[str, Wiring] = {}


def use(wiring: Wiring) -> None:
    """Run this process's jobs for ``wiring``'s key prefix with it."""
    with _lock:
        _wirings[wiring.settings.key_prefix] = wiring


def wiring_for(prefix: str) -> Wiring:
    """The process's wiring for ``prefix`` (built from the running job's connection)."""
    with _lock:
        wiring = _wirings.get(prefix)
        if wiring is None:
            job = get_current_job()
            if job is None:
                raise RuntimeError("workers job functions run inside an RQ job")
            settings = Settings.from_env(key_prefix=prefix)
            if settings.separate_jobs:
                wiring = bootstrap(settings, in_process=False, job_client=job.connection)
            else:
                wiring = bootstrap(Settings.from_env(redis_url="redis://worker",
                                                     key_prefix=prefix),
                                   client=job.connection, in_process=False)
            _wirings[prefix] = wiring
        return wiring
