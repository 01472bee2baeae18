"""flask-smorest pieces set to this API's conventions: 400 for malformed input, one error shape."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, Response, current_app, request
from flask_smorest import Api, Blueprint
from marshmallow import Schema
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service.api.inputs import INVALID_TEXT, text_refusals_only
from service.api.schemas import IDEMPOTENCY_KEY_MAX, ErrorSchema
from service.usecases.access import Access
from service.usecases.errors import Unauthenticated
from service.usecases.queries import MatchQueries

if TYPE_CHECKING:
    from service.bootstrap import Wiring

HTTP_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden",
              404: "not_found", 405: "method_not_allowed", 409: "version_conflict",
              413: "payload_too_large", 415: "unsupported_media_type",
              422: "illegal_move", 429: "rate_limited", 500: "internal_error"}


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schemas: dict[type[Schema], Schema] = {}

    def _get_schema(self, argmap: Any, req: Any) -> Schema:
        """One instance per schema class, made on its first request: webargs makes a new
        one for every request (its fields deep-copied each time), and loading keeps no
        state on the instance."""
        if isinstance(argmap, type) and issubclass(argmap, Schema):
            schema = self._schemas.get(argmap)
            if schema is None:
                schema = self._schemas[argmap] = argmap()
            return schema
        return super()._get_schema(argmap, req)

    def _raw_load_json(self, req: Any) -> Any:
        """A body ``json.loads`` cannot read is invalid JSON (400), however it fails.

        Besides ``JSONDecodeError`` (which webargs handles) it raises ``RecursionError`` for
        deep nesting and ``ValueError`` for integers past Python's 4300-digit limit; webargs
        lets both through, and they became 500s.
        """
        try:
            return super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise
        except (RecursionError, ValueError) as exc:
            self._handle_invalid_json_error(exc, req)  # type: ignore[arg-type]


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.before_request(_token_first)

    def doc(self, *, ticket: bool = False,  # type: ignore[override]
            caller: str | None = None, retried_after_forgotten: bool = False,
            **kwargs: Any) -> Any:
        """flask-smorest's ``doc``. A view documented with a security (``BEARER`` or
        ``ANYONE``) reads a token: one that names nobody is refused with a 401
        ``invalid_token`` before anything else. With ``security=BEARER`` it also refuses a
        request that sends no token, with a 401 ``missing_token``, before it reads its
        arguments: the spec says the token is required, so a request without one is
        unauthorised whatever else is wrong with it (not a 400 about its body).

        ``ticket``: a ``?ticket=`` stands in for the token (the feed), so the view itself
        decides whether one is missing. ``caller``: who may call the view at all
        (``ORGANISER_CALLER``, ``ADMIN_CALLER``, ``OWNER_CALLER``,
        ``OWNER_OR_CREATOR_CALLER``: ``Access.require_caller``);
        anyone else gets their 401/403 before the view reads its arguments, so a caller
        who may not call it learns nothing about what a valid body looks like.
        ``retried_after_forgotten``: the operation makes its own token name nobody (leaving
        a seat), so a retry with an ``Idempotency-Key`` goes on to the view, whose use case
        answers it as the first time or refuses the token itself.
        """
        document = documents_only(super().doc(**kwargs))
        security = kwargs.get("security")
        if security not in (BEARER, ANYONE):
            return document

        def decorate(func: Any) -> Any:
            documented = document(func)
            documented.reads_token = True  # copied outwards by every functools.wraps
            documented.needs_token = security == BEARER and not ticket
            documented.caller = caller
            documented.retried_after_forgotten = retried_after_forgotten
            return documented
        return decorate

    def conditional(self, func: Any) -> Any:
        """A GET whose answer carries an ``ETag`` (a hash of the body, so it changes with
        anything the caller sees: a move, presence, a clock) and answers 304 with no body
        to an ``If-None-Match`` that names it. A client polling a view pays for a body
        only when something changed. Put it above ``@blp.response``."""

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            response = func(*args, **kwargs)
            if response.status_code == 200:
                response.add_etag()
                response.make_conditional(request)
            return response
        apidoc = copy.deepcopy(getattr(wrapper, "_apidoc", {}))
        wrapper._apidoc = apidoc  # type: ignore[attr-defined]  # flask-smorest reads it
        arguments = apidoc.setdefault("arguments", {})  # beside the view's own
        arguments.setdefault("parameters", []).append(dict(IF_NONE_MATCH))
        return self.doc(responses={304: {"description": "Not modified: the body would be "
                                         "the one whose ETag the If-None-Match names"},
                                   200: {"headers": {"ETag": ETAG}}})(wrapper)

    def alt_response(self, *args: Any, **kwargs: Any) -> Any:
        """flask-smorest's ``alt_response``, documenting the view without wrapping it."""
        return documents_only(super().alt_response(*args, **kwargs))

    def errors(self, *statuses: int) -> Any:
        """Document the error responses a view can give (all ``ErrorSchema``)."""
        def decorate(func: Any) -> Any:
            for status in statuses:
                func = self.alt_response(status, schema=ErrorSchema)(func)
            return func
        return decorate


def documents_only(decorate: Any) -> Any:
    """A flask-smorest decorator whose wrapper only calls the view (``doc``,
    ``alt_response``) as one that puts its documentation on the view itself: the view is
    sync, so the wrapper did nothing a request needs, yet every request paid a call through
    it and Flask's ``ensure_sync`` (seven of them on ``/actions``, one per error status)."""

    def decorate_in_place(func: Any) -> Any:
        func._apidoc = decorate(func)._apidoc
        return func
    return decorate_in_place


ETAG = {"description": "The body's entity tag; send it back in If-None-Match",
        "schema": {"type": "string"}}
IF_NONE_MATCH = {"in": "header", "name": "If-None-Match", "required": False,
                 "description": "An ETag this view gave: 304 with no body while it is "
                                "still the current one", "schema": {"type": "string"}}
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
"""OpenAPI security of a view that needs a token."""
ANYONE: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]
"""OpenAPI security of a view that answers without a token too."""


def use_cases() -> Wiring:
    """The app's use cases, as the bootstrap built them (each view calls the ones it
    needs: ``use_cases().queries``, ``.play``, ``.creation``...)."""
    return cast("Wiring", current_app.extensions["rummy"])


def sse_response(body: Iterator[bytes]) -> Response:
    """A Server-Sent Events response whose body (bytes, one message each) goes to the
    server as it is: no per-message encoding or wrapping, which a thousand streams of one
    match pay for every event. The body must not need the request context (it runs after
    the view returned); closing it (the client left) runs its ``finally`` blocks."""
    return Response(body, mimetype="text/event-stream", direct_passthrough=True,
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _token_first() -> None:
    """Refuse, before the view reads anything else, a request without a token to a view
    that needs one and a token that names nobody to any view that reads one
    (``ApiBlueprint.doc``)."""
    view = current_app.view_functions.get(request.endpoint or "")
    view_class = getattr(view, "view_class", None)
    method = request.method.lower()
    handler = getattr(view_class, method, None) or (
        getattr(view_class, "get", None) if method == "head" else None)
    if not getattr(handler, "reads_token", False):
        return
    token = bearer_token()
    if token is None:
        if getattr(handler, "needs_token", False):
            raise Unauthenticated("missing_token", "this needs a bearer token "
                                  "(Authorization: Bearer <token>)")
        return
    match_id = (request.view_args or {}).get("match_id")
    key = request.headers.get("Idempotency-Key", "")
    if getattr(handler, "retried_after_forgotten", False) and token and (
            0 < len(key) <= IDEMPOTENCY_KEY_MAX):
        return
    if token and match_id and getattr(handler, "reads_ahead", False):
        use_cases().queries.read_ahead(match_id)
    if not token or not use_cases().access.names_anybody(token, match_id):
        raise Unauthenticated("invalid_token", "the bearer token is not one this server "
                              "issued (or it was rotated, or its key revoked)")
    caller = getattr(handler, "caller", None)
    if caller is not None:
        use_cases().access.require_caller(token, caller, match_id)


def one_meta_read_per_token_check(app: Flask) -> None:
    """Each request's token check hands the match's meta it read to the use case's own
    check of the token (``Access.request_begins``), and a view marked ``reads_ahead`` has
    that meta read with its events (``MatchQueries.read_ahead``), within the request
    only."""
    app.before_request(Access.request_begins)
    app.before_request(MatchQueries.request_begins)
    app.teardown_request(lambda _error: Access.request_ends())
    app.teardown_request(lambda _error: MatchQueries.request_ends())


def reads_ahead(view: Any) -> Any:
    """Mark a match's view whose token check reads the match's meta together with the
    events and presence the view reads next (``MatchQueries.read_ahead``): one round trip
    for both. Put it right above the view function."""
    view.reads_ahead = True
    return view


def credentials_sent() -> bool:
    """Whether the request names a caller: a bearer token (well-formed or not) or a ticket."""
    return request.headers.get("Authorization") is not None or bool(request.args.get("ticket"))


CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def keep_private(response: Response) -> Response:
    """``Cache-Control: no-store`` on every answer to a request that sent credentials (a
    seat's hand, an organiser's lists, even a 304 or a refusal) or that changes something
    (creating a match or claiming a seat returns tokens without any credentials sent; so do
    rotations, tickets, organiser keys), and ``Vary: Authorization`` on every answer: a
    shared cache must never keep a secret, nor give one caller's answer to another.

    Public reads (no credentials) keep their ``ETag`` caching. One rule on the request, not
    a list of views that return secrets, so a new view cannot forget it."""
    response.vary.add("Authorization")
    if credentials_sent() or request.method in CHANGES:
        response.headers["Cache-Control"] = "no-store"
    return response


def bearer_token() -> str | None:
    """The caller's token, from ``Authorization: Bearer <token>``: None without the header,
    "" for a header that is not a bearer token (use cases take a token, never a header)."""
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return ""
    return token.strip()


class RummyApi(Api):
    """Every HTTP error as ``{"code", "message"}`` (+ ``errors`` per field for 400)."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException) -> Any:
        status = error.code or 500
        data = getattr(error, "data", None) or {}
        messages = data.get("messages") or data.get("errors")
        payload: dict[str, Any] = {"code": _code(status, data.get("schema"), messages),
                                   "message": error.description or error.name}
        if messages:
            payload["errors"] = _flatten_locations(messages)
            problem = ("text with a character that is not allowed"
                       if payload["code"] == INVALID_TEXT else "the request is malformed")
            payload["message"] = f"{problem}: " + ", ".join(payload["errors"])
        return payload, status, {**_own_headers(error), **(data.get("headers") or {})}


def null_only_for_none(spec: APISpec) -> None:
    """A nullable nested schema is "the schema or null", not "the schema or any object".

    For OpenAPI 3.0 apispec writes a ``Nested(..., allow_none=True)`` as ``anyOf: [<the
    schema>, {type: object, nullable: true}]``, whose second branch takes every object: the
    spec then let ``"clock": {"x": 1}`` through while the server refuses it. ``enum: [null]``
    narrows that branch to null. Runs before the blueprints are documented.
    """
    plugin = next(p for p in spec.plugins if isinstance(p, MarshmallowPlugin))

    def null_branch(self: Any, field: Any, ret: dict[str, Any]) -> dict[str, Any]:
        for branch in ret.get("anyOf", ()):
            if branch == {"type": "object", "nullable": True}:
                branch["enum"] = [None]
        return {}

    assert plugin.converter is not None  # set once the plugin is initialised with the spec
    plugin.converter.add_attribute_function(null_branch)


def _own_headers(error: HTTPException) -> dict[str, str]:
    """The exception's headers but its HTML content type: a 405's ``Allow``, a 401's
    ``WWW-Authenticate``; the body is always JSON."""
    return {name: value for name, value in error.get_headers()
            if name.lower() != "content-type"}


def _code(status: int, schema: Any, messages: Any = None) -> str:
    """The error's code: ``invalid_text`` when every problem is a character a text field
    refuses (one malformed field besides makes it the usual code: docs/front-ends.md 5);
    else a body schema may name its own (``ActionSchema``: invalid_action)."""
    if status == 400 and messages and text_refusals_only(messages):
        return INVALID_TEXT
    own = getattr(schema, "error_code", None)
    if status == 400 and own:
        return str(own)
    return HTTP_CODES.get(status, "error")


def _flatten_locations(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs nests errors under the location ("json", "headers"), marshmallow under each
    nested field and list index; callers want one path per field: ``players.1.name``."""
    flat: dict[str, Any] = {}
    for location, errors in messages.items():
        if isinstance(errors, dict):
            flat.update(dotted(errors))
        else:
            flat[location] = errors
    return flat


def dotted(messages: Any, path: str = "") -> dict[str, Any]:
    """Nested marshmallow errors as ``{"matches.2.players.0.name": [...]}``."""
    if not isinstance(messages, dict):
        return {path: messages}
    flat: dict[str, Any] = {}
    for key, value in messages.items():
        flat.update(dotted(value, f"{path}.{key}" if path else str(key)))
    return flat
