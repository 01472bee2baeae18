"""What every request leaves for an operator: its request id and its figures.

``Observed`` wraps the Flask app (inside the body deadlines, ``create_app``). For each
request it takes the client's ``X-Request-Id`` when it is a sensible token, else makes one
(``service.correlation``), binds it for everything the request runs (log lines, queued
jobs, webhook deliveries) and puts it on the answer, whatever the answer is: a view's, an
error's, a 404 for no route, a 429, a live stream's. When the answer starts, the request's
time (a live stream's: to open it) is reported to the ``Metrics`` port by route (the URL
rule, never the raw path: ids would make a label for every match), method and status.

``GET /metrics`` answers a Prometheus scrape (``service.adapters.metrics``: under gunicorn
the figures of every worker process). It is left out of the OpenAPI document on purpose,
as the reference web client's pages are: it is an operator's endpoint in Prometheus's own
format, not part of the API a client is generated from (docs/operations.md).

``RequestIdHeader`` documents the ``X-Request-Id`` answer header on every response of the
OpenAPI document.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from apispec import APISpec, BasePlugin
from flask import Blueprint, Flask, Response, has_request_context, request
from werkzeug.wsgi import ClosingIterator

from service import correlation
from service.api.base import use_cases

UNMATCHED = "<unmatched>"
"""The route label of a request no URL rule matched (a 404, a 405)."""
ENVIRON_KEY = "rummy.request_id"
"""Where a request's id is in its WSGI environ."""

blp = Blueprint("metrics", __name__)


@blp.get("/metrics")
def metrics() -> Response:
    """The server's figures in Prometheus's text format."""
    body, content_type = use_cases().metrics.exposition()
    return Response(body, content_type=content_type)


def route() -> str:
    """The URL rule of the request in hand, or ``UNMATCHED``."""
    if not has_request_context() or request.url_rule is None:
        return UNMATCHED
    return request.url_rule.rule


class Observed:
    """WSGI middleware: every request's id and figures (see the module)."""

    def __init__(self, app: Flask, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.flask, self.app = app, wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        started = time.perf_counter()
        request_id = correlation.accepted(environ.get("HTTP_X_REQUEST_ID"))
        environ[ENVIRON_KEY] = request_id
        correlation.bind(request_id)
        counted = False

        def respond(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            nonlocal counted
            headers = [(name, value) for name, value in headers
                       if name.lower() != "x-request-id"]
            headers.append((correlation.HEADER, request_id))
            if not counted:
                counted = True
                self._count(environ, status, time.perf_counter() - started)
            return start_response(status, headers, *exc_info)

        return ClosingIterator(self.app(environ, respond), lambda: correlation.bind(None))

    def _count(self, environ: dict[str, Any], status: str, seconds: float) -> None:
        wiring = self.flask.extensions.get("rummy")
        if wiring is None:
            return
        code = int(status.split(" ", 1)[0])
        wiring.metrics.request_answered(route(), environ.get("REQUEST_METHOD", ""), code,
                                        seconds)


REQUEST_ID_HEADER = {
    "description": "The request's id: the X-Request-Id the request sent when it is 1-128 "
                   "characters of A-Z a-z 0-9 . _ ~ + / = : @ -, else one the server made "
                   "(32 hex digits). Every log line the request caused carries it, and so "
                   "do the jobs it queued and the webhook deliveries it caused",
    "schema": {"type": "string", "maxLength": correlation.MAX_LENGTH},
}


class RequestIdHeader(BasePlugin):
    """apispec plugin: ``X-Request-Id`` on every response the document describes."""

    COMPONENT = "X_REQUEST_ID"

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        spec.components.header(self.COMPONENT, REQUEST_ID_HEADER)

    def response_helper(self, response: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {"headers": {**response.get("headers", {}), correlation.HEADER: self.COMPONENT}}

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            for response in (operation.get("responses") or {}).values():
                if isinstance(response, dict) and "$ref" not in response:
                    response.setdefault("headers", {})[correlation.HEADER] = self.COMPONENT
