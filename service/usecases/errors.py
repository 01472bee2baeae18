"""Typed application errors: what a use case refuses, in the application's own terms.

Use cases raise these and never an HTTP status; ``service.api.errors`` maps each type to
its status in one place. ``code`` is the stable machine-readable reason clients branch on;
``errors`` names the offending request fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class AppError(Exception):
    """A refusal with a stable ``code``, a human ``message`` and per-field ``errors``."""

    def __init__(self, code: str, message: str, errors: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.errors = code, message, errors


class Invalid(AppError):
    """The request is malformed or names something impossible (a field is wrong)."""


class Unauthenticated(AppError):
    """No credentials, or credentials that name nobody."""


class Forbidden(AppError):
    """The caller is known but may not do this."""


class NotFound(AppError):
    """The thing asked for does not exist (or is not the caller's to know of)."""


class Conflict(AppError):
    """The match moved on: the caller decided on a version that is no longer current."""


class Rejected(AppError):
    """Well-formed but refused as it stands (a reused idempotency key, a finished match)."""


class TooLarge(AppError):
    """More than the server does for one request: a body, a line or a log past its limit."""


class TimedOut(AppError):
    """The request took longer than the server waits: a body that did not arrive in time."""


class Busy(AppError):
    """The server has no room for this now; the same request may succeed after
    ``retry_after_s`` seconds."""

    def __init__(self, code: str, message: str, retry_after_s: int) -> None:
        super().__init__(code, message)
        self.retry_after_s = retry_after_s


def invalid(field: str, message: str, code: str = "invalid_request") -> Invalid:
    """An ``Invalid`` about one field: ``"<field>: <message>"``."""
    return Invalid(code, f"{field}: {message}", {field: [message]})


def not_allowed(authenticated: bool, code: str, message: str) -> AppError:
    """``Forbidden`` for a caller who sent credentials, ``Unauthenticated`` for one who did not."""
    return (Forbidden if authenticated else Unauthenticated)(code, message)


def storable(match_id: str) -> bool:
    """Whether ``match_id`` can name a match at all.

    The store refuses ids with braces (they delimit its Redis Cluster hash tag); such an id
    is simply unknown.
    """
    return bool(match_id) and "{" not in match_id and "}" not in match_id
