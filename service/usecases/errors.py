"""Errors the API reports as they are, and what can name a match at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ApiError(Exception):
    """An error the API reports as it is: HTTP status, stable code, message, field details."""

    def __init__(self, status: int, code: str, message: str,
                 errors: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors


def bad_request(field: str, message: str, code: str = "invalid_request") -> ApiError:
    return ApiError(400, code, f"{field}: {message}", {field: [message]})



def storable(match_id: str) -> bool:
    """Whether ``match_id`` can name a match at all.

    The store refuses ids with braces (they delimit its Redis Cluster hash tag) with a
    ValueError, which was a 500; such an id is simply unknown.
    """
    return bool(match_id) and "{" not in match_id and "}" not in match_id
