"""A request body the app left unread closes its connection, instead of being read to its
end (issue 16, finding 5).

gunicorn keeps a connection open for the next request, so after each response it reads
and discards whatever the app left of the body. The gevent worker does that with no
bound but its keep-alive timeout (2 s): a refused upload (413, a 400 at its first line, a
429) that the client keeps sending was read at some 400 MB/s for those 2 s, measured,
the whole worker's CPU. The gthread worker bounds that drain to 64 KiB; this does the same
for every worker: after the response, at most ``DRAIN_BYTES`` more are read, within
``DRAIN_SECONDS``, and if the body has not ended by then the connection is closed.

A body that missed its deadline (``service.api.deadlines``) closes its connection at once.

Wired from the gunicorn config (service/gunicorn_conf.py) as its ``post_request`` hook.
"""

from __future__ import annotations

import logging
import time
from typing import Any

DRAIN_BYTES = 64 * 1024
"""The most of a body's rest read to keep its connection (what gunicorn's gthread reads)."""
DRAIN_SECONDS = 1.0
"""The longest wait for that rest, however slowly it comes."""
STEP = 8 * 1024
BODY_EXPIRED = "rummy.body_expired"
"""Set in a request's environ when its body missed its deadline: the connection closes."""


def finish_or_close(req: Any, environ: dict[str, Any]) -> bool:
    """Read what is left of ``req``'s body if it ends within the bounds; else mark the
    request so that gunicorn closes its connection rather than read on. True when the
    body ended."""
    if environ.get(BODY_EXPIRED):
        req.force_close()
        return False
    body = getattr(req, "body", None)
    if body is None or _drained(body, environ.get("gunicorn.socket")):
        return True
    req.force_close()
    return False


def _drained(body: Any, sock: Any) -> bool:
    deadline = time.monotonic() + DRAIN_SECONDS
    previous = _timeout(sock)
    read = 0
    try:
        while read <= DRAIN_BYTES:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if sock is not None:
                sock.settimeout(remaining)
            data = body.read(STEP)
            if not data:
                return True
            read += len(data)
        return False
    except Exception:
        # A timeout, a reset, a malformed chunk: where the next request starts is unknown.
        return False
    finally:
        if sock is not None:
            _restore(sock, previous)


def _timeout(sock: Any) -> float | None:
    try:
        return sock.gettimeout() if sock is not None else None
    except OSError:
        return None


def _restore(sock: Any, timeout: float | None) -> None:
    try:
        sock.settimeout(timeout)
    except OSError:
        pass



class AnswersNotTaken(logging.Filter):
    """One line, not a traceback, for an answer its client did not take in time.

    gunicorn logs every socket error but a reset or a broken pipe with its traceback
    ("Socket error processing request."); a write that timed out is a client that stopped
    reading its answer, whose connection the answer's deadline closed
    (``service.api.deadlines``): routine, and a flood of tracebacks is a way to fill disks.
    """

    MESSAGE = "rummy: closed a connection whose client did not take its answer in time"

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, TimeoutError):
            record.msg, record.args, record.exc_info, record.exc_text = self.MESSAGE, (), None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def quiet_answers_not_taken() -> None:
    """Put ``AnswersNotTaken`` on gunicorn's error log (once)."""
    errors = logging.getLogger("gunicorn.error")
    if not any(isinstance(f, AnswersNotTaken) for f in errors.filters):
        errors.addFilter(AnswersNotTaken())
