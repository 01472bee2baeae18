"""Deadlines for request bodies and for answers, applied before the app reads a byte.

gunicorn's gevent worker bounds a request's line and headers (its keep-alive timeout, 2 s,
around the parser) but nothing bounds a body: a client that sent headers and part of a
body, then nothing, held its connection, its greenlet and whatever the view had read so
far for as long as it liked. ``BodyDeadlines`` wraps the app (``create_app``) and bounds
every request that has a body (``config.Deadlines``; Apache mod_reqtimeout's
``body=grace,MinRate=rate``, with a cap):

- the body must end ``grace_s`` plus one second per ``min_rate`` bytes received after the
  app was called, and never later than ``total_s``;
- each read of ``n`` bytes must end within ``grace_s`` plus ``n`` at ``min_rate`` (so a
  body that goes silent is cut after that long, however much it sent before).

A read is interrupted at its deadline, not noticed once it returns: gunicorn's reader loops
over the socket until it has all it was asked for, so a trickle of one byte a second keeps
a read going whatever the socket's timeout; under gevent (every deployment) a
``gevent.Timeout`` interrupts the whole read, and the socket's timeout (``gunicorn.socket``)
bounds each wait on other servers. A body that misses its deadline raises ``TimedOut``
(408 ``body_timeout``) in the view that reads it, and the request is marked
(``BODY_EXPIRED``) so that gunicorn closes the connection after the answer
(``service.gunicorn_bodies``): where the next request would start is unknown.

Answers are bounded the same way: each part handed to gunicorn must be written within
``grace_s`` plus its length at ``min_rate``. gevent's ``sendall`` honours the socket's
timeout as a whole, so a client that stops reading (a 16 MiB audit answer) has its
connection closed then, instead of holding the answer and its greenlet. Event streams are
left alone: they live as long as their reader and end by their own rules.

Without a socket (the Flask test client, another WSGI server) the deadlines are checked
after each read.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import gevent
from gevent import monkey

from service.config import Deadlines
from service.gunicorn_bodies import BODY_EXPIRED
from service.usecases.errors import TimedOut

SOCKET = "gunicorn.socket"
EVENT_STREAM = "text/event-stream"


class BodyDeadlines:
    """WSGI middleware: every body read within its deadline, every answer written within
    its own (see the module)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], deadlines: Deadlines,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app, self.deadlines, self.clock = app, deadlines, clock

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get(SOCKET)
        original = _gettimeout(sock) if sock is not None else None
        if has_body(environ):
            environ["wsgi.input"] = DeadlineBody(environ["wsgi.input"], self.deadlines,
                                                 self.clock, environ, sock)
        kinds: list[str] = []

        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            kinds.append(next((value for name, value in headers
                               if name.lower() == "content-type"), ""))
            if environ.get(BODY_EXPIRED):
                say_close(start_response)
            return start_response(status, headers, *exc_info)

        answer = self.app(environ, start)
        if sock is None:
            return answer
        if kinds and kinds[-1].startswith(EVENT_STREAM):
            _settimeout(sock, original)
            return answer
        return TimedAnswer(answer, sock, self.deadlines, original)


def say_close(start_response: Callable[..., Any]) -> None:
    """Make gunicorn answer ``Connection: close`` (its ``start_response`` is its response's
    method): the connection closes after this answer (``service.gunicorn_bodies``), and a
    client told "keep-alive" would send its next request into a closing socket."""
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if callable(force_close):
        force_close()


def has_body(environ: dict[str, Any]) -> bool:
    """Whether the request declares a body: a positive Content-Length, or chunked."""
    length = str(environ.get("CONTENT_LENGTH") or "").strip()
    chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
    return chunked or (length.isdigit() and int(length) > 0)


class DeadlineBody:
    """``wsgi.input`` with a deadline on every read. No ``readinto``: werkzeug then reads
    through ``read`` (and it would turn an ``OSError`` into a 400 "client disconnected")."""

    def __init__(self, raw: Any, deadlines: Deadlines, clock: Callable[[], float],
                 environ: dict[str, Any], sock: Any = None) -> None:
        self.raw, self.deadlines, self.clock, self.environ = raw, deadlines, clock, environ
        self.sock = sock
        self.started = clock()
        self.received = 0

    def read(self, size: int | None = -1) -> bytes:
        return bytes(self._timed(self.raw.read, size))

    def readline(self, size: int | None = -1) -> bytes:
        return bytes(self._timed(self.raw.readline, size))

    def readlines(self, hint: int | None = -1) -> list[bytes]:
        return list(self._timed(self.raw.readlines, hint))

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def deadline(self) -> float:
        """When the body must have ended, for what has arrived so far."""
        allowed = self.deadlines.grace_s + self.received / self.deadlines.min_rate
        return self.started + min(self.deadlines.total_s, allowed)

    def allowed(self, size: Any) -> float:
        """Seconds the next read of ``size`` bytes may take: until the body's deadline,
        and for a bounded read ``grace_s`` plus ``size`` at ``min_rate`` at most."""
        wait = self.deadline() - self.clock()
        if isinstance(size, int) and size > 0:
            wait = min(wait, self.deadlines.grace_s + size / self.deadlines.min_rate)
        return wait

    def _timed(self, read: Callable[[Any], Any], size: Any) -> Any:
        wait = self.allowed(size)
        if self.environ.get(BODY_EXPIRED) or wait <= 0:
            raise self._expired()
        if self.sock is not None:
            _settimeout(self.sock, wait)
        try:
            with interrupted_after(wait):
                data = read(size)
        except TimeoutError as exc:  # the read did not end in time
            raise self._expired() from exc
        self.received += sum(map(len, data)) if isinstance(data, list) else len(data)
        if self.clock() > self.deadline():
            raise self._expired()
        return data

    def _expired(self) -> TimedOut:
        self.environ[BODY_EXPIRED] = True
        limits = self.deadlines
        return TimedOut("body_timeout", f"the request body did not arrive in time: it must "
                        f"start within {limits.grace_s:g} s, never pause for longer, keep "
                        f"up {limits.min_rate} bytes a second and end within "
                        f"{limits.total_s:g} s; the connection is closed")


def interrupted_after(seconds: float) -> contextlib.AbstractContextManager[Any]:
    """Under gevent, a ``TimeoutError`` raised into this greenlet after ``seconds`` (a
    read that trickles on is interrupted as a whole); elsewhere nothing (the socket's
    timeout bounds each wait, and the deadline is checked after the read)."""
    if not monkey.is_module_patched("socket"):
        return contextlib.nullcontext()
    return gevent.Timeout(seconds, TimeoutError("the body's deadline passed"))


class TimedAnswer:
    """The app's answer, each part written within ``grace_s`` plus its length at
    ``min_rate``; the socket's own timeout is back once the answer is done."""

    def __init__(self, answer: Iterable[bytes], sock: Any, deadlines: Deadlines,
                 original: float | None) -> None:
        self.answer, self.parts = answer, iter(answer)
        self.sock, self.deadlines, self.original = sock, deadlines, original
        _settimeout(sock, deadlines.grace_s)  # the headers, even of an empty answer

    def __iter__(self) -> TimedAnswer:
        return self

    def __next__(self) -> bytes:
        part = next(self.parts)
        _settimeout(self.sock, self.deadlines.grace_s + len(part) / self.deadlines.min_rate)
        return part

    def close(self) -> None:
        try:
            close = getattr(self.answer, "close", None)
            if close is not None:
                close()
        finally:
            _settimeout(self.sock, self.original)


def _gettimeout(sock: Any) -> float | None:
    try:
        return sock.gettimeout()  # type: ignore[no-any-return]
    except OSError:
        return None


def _settimeout(sock: Any, timeout: float | None) -> None:
    try:
        sock.settimeout(timeout)
    except OSError:
        pass  # closed already: the next write fails on its own


def let_others_run() -> None:
    """Under gevent, let every other greenlet run before going on (a 1 ms sleep: the loop
    polls its sockets and timers); elsewhere nothing. Between the chunks of a long body: a
    socket read with data waiting does not yield, and ``sleep(0)`` only runs callbacks
    (gevent looks at the clock every 50 of them): with 2.7 ms of line checks a chunk, a
    view waited 100-200 ms behind an upload, measured (bench/audit_load.py)."""
    if monkey.is_module_patched("socket"):
        gevent.sleep(0.001)
