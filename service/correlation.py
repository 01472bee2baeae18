"""Request ids: which request (or which RQ job) a piece of work is done for.

The API takes a client's ``X-Request-Id`` when it is a sensible token (``accepted``:
1-128 characters of ``A-Z a-z 0-9 . _ ~ + / = : @ -``), else makes one (``new``: 32 hex
digits), answers with it, and runs the request with it bound here (``bound``). What runs
on the request's own thread (greenlet, under gevent) reads it with ``current``: every log
line (``service.logs``), the meta of every RQ job the request enqueues
(``service.adapters.jobs``) and every webhook delivery it logs
(``service.adapters.webhooks``), whose POSTs send it as ``X-Request-Id``. A worker binds
a job's ``request_id`` from its meta and the job's own id while it runs the job.

Work no request caused (a system step, a clock, a bot's turn, paid by a worker's
reconciler or the embedded timer thread) has no request id: its log lines and the webhook
deliveries it logs carry none (docs/operations.md).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

HEADER = "X-Request-Id"
MAX_LENGTH = 128
_TOKEN = re.compile(rf"[A-Za-z0-9._~+/=:@-]{{1,{MAX_LENGTH}}}")

_request_id: ContextVar[str | None] = ContextVar("rummy_request_id", default=None)
_job_id: ContextVar[str | None] = ContextVar("rummy_job_id", default=None)


def new() -> str:
    """A fresh request id."""
    return uuid.uuid4().hex


def accepted(sent: str | None) -> str:
    """The client's id when it is a sensible token, else a fresh one: a header that is too
    long, empty or carries spaces, quotes or control characters is replaced, never
    trimmed (it then names nothing the client knows)."""
    if sent is not None and _TOKEN.fullmatch(sent):
        return sent
    return new()


def current() -> str | None:
    """The request id bound here, or None (work no request caused)."""
    return _request_id.get()


def current_job() -> str | None:
    """The RQ job id bound here (a worker running a job), or None."""
    return _job_id.get()


def bind(request_id: str | None) -> None:
    """Bind ``request_id`` for the rest of this thread's (greenlet's) current work: the API
    binds each request's at its start, the next request on the connection its own."""
    _request_id.set(request_id)


@contextmanager
def bound(request_id: str | None, job_id: str | None = None) -> Iterator[None]:
    """``request_id`` (and ``job_id``) bound for the block, the earlier ones after it."""
    request_token = _request_id.set(request_id)
    job_token = _job_id.set(job_id)
    try:
        yield
    finally:
        _job_id.reset(job_token)
        _request_id.reset(request_token)
