"""Typed domain errors with stable machine-readable codes, mapped to HTTP in one place."""

from __future__ import annotations

MALFORMED_ACTION = "invalid_action"
"""The code of an action the variant cannot read (not an illegal move: a malformed one)."""


class RuleError(Exception):
    """A command the rules do not allow (HTTP 422).

    ``code`` is stable and machine-readable; ``message`` is for people.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class OptionError(ValueError):
    """A match option that does not exist or is out of range (HTTP 400, naming the field)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
