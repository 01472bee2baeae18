"""gunicorn's own error answers in the API's one error shape.

gunicorn refuses some requests before the app sees them: a request line past
``limit_request_line`` (414), too many or too large headers (431), a malformed request
(400), and answers in HTML. Clients of this API read every error as JSON
``{"code", "message"}``, so this module makes gunicorn write that instead.

gunicorn writes those answers with ``gunicorn.util.write_error`` from its worker's
``handle_error`` (every worker class: sync, gthread, gevent). ``install()`` replaces that
function in the worker process. Wire it from the gunicorn config file::

    from service.gunicorn_errors import post_worker_init  # noqa: F401  (gunicorn's hook)

or, when the config already has a ``post_worker_init``, call ``install()`` from it (or
from a custom worker class's ``init_process`` before ``super().init_process()``).
"""

from __future__ import annotations

import json
from typing import Any

from gunicorn import util

CODES = {400: "invalid_request", 403: "forbidden", 414: "request_line_too_long",
         417: "expectation_failed", 431: "headers_too_large", 500: "internal_error",
         501: "not_implemented"}
"""Stable codes of gunicorn's answers; any other status is ``http_error``."""

MESSAGES = {414: "the request line (method, path and query) is too long",
            431: "the request headers are too many or too large",
            500: "the server failed to handle the request"}
"""Messages of the answers whose gunicorn text says nothing useful to a client."""


def error_body(status: int, reason: str, message: str) -> bytes:
    """The JSON body: ``{"code", "message"}`` as every API error."""
    text = MESSAGES.get(status) or message or reason
    return json.dumps({"code": CODES.get(status, "http_error"), "message": text}).encode()


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """A drop-in ``gunicorn.util.write_error`` that answers in JSON."""
    body = error_body(status_int, reason, mesg)
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


def install() -> None:
    """Make this process's gunicorn write its own errors as JSON (idempotent)."""
    util.write_error = write_json_error


def post_worker_init(worker: Any) -> None:
    """gunicorn's ``post_worker_init`` server hook: ``install()`` in each worker."""
    install()
