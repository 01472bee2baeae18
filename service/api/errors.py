"""Domain and store errors mapped to HTTP in one place."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify

from domain.errors import MALFORMED_ACTION, RuleError
from service.ports import IdempotencyKeyReused, StoreUnavailable, UnknownMatch, VersionConflict
from service.usecases.errors import (
    AppError,
    Busy,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Rejected,
    TimedOut,
    TooLarge,
    Unauthenticated,
)


def _error(status: int, code: str, message: str, errors: Any = None) -> Any:
    body: dict[str, Any] = {"code": code, "message": message}
    if errors:
        body["errors"] = errors
    return jsonify(body), status


STORE_RETRY_AFTER_S = 2
"""A 503's ``Retry-After``: Redis restarts or fails over in seconds."""

MALFORMED = frozenset({MALFORMED_ACTION})
"""Rule-error codes that mean the request was malformed for the variant, not illegal."""


STATUS = {Invalid: 400, Unauthenticated: 401, Forbidden: 403, NotFound: 404,
          TimedOut: 408, Conflict: 409, TooLarge: 413, Rejected: 422, Busy: 503}
"""Each application error type's HTTP status: the one place use cases meet HTTP."""


def status_of(exc: AppError) -> int:
    return next((status for kind, status in STATUS.items() if isinstance(exc, kind)), 400)


def register(app: Flask, unavailable: tuple[type[Exception], ...]) -> None:
    """Map every error a view can raise; ``unavailable`` are the store's own errors for
    "does not answer" (the bootstrap names them: the API knows no adapter), answered as
    the ports' ``StoreUnavailable`` is."""
    @app.errorhandler(AppError)
    def app_error(exc: AppError) -> Any:
        body, status = _error(status_of(exc), exc.code, exc.message, exc.errors)
        if isinstance(exc, Busy):
            return body, status, {"Retry-After": str(exc.retry_after_s)}
        return body, status

    @app.errorhandler(RuleError)
    def rule_error(exc: RuleError) -> Any:
        """An illegal move is a 422; an action the variant cannot even read is a 400."""
        return _error(400 if exc.code in MALFORMED else 422, exc.code, exc.message)

    @app.errorhandler(UnknownMatch)
    def unknown_match(exc: UnknownMatch) -> Any:
        return _error(404, "match_not_found", str(exc) or "no such match")

    @app.errorhandler(VersionConflict)
    def version_conflict(exc: VersionConflict) -> Any:
        return _error(409, "version_conflict", str(exc))

    def store_down(exc: Exception) -> Any:
        app.logger.error("redis unavailable: %s", exc)
        body, status = _error(503, "store_unavailable",
                              "the event store does not answer or could not confirm the "
                              "write; retry later with the same Idempotency-Key")
        return body, status, {"Retry-After": str(STORE_RETRY_AFTER_S)}

    down: tuple[type[Exception], ...] = (StoreUnavailable, *unavailable)
    for kind in down:  # the ports' own error, and the adapters'
        app.register_error_handler(kind, store_down)

    @app.errorhandler(IdempotencyKeyReused)
    def key_reused(exc: IdempotencyKeyReused) -> Any:
        return _error(422, "idempotency_key_reused", str(exc))
