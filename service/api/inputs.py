"""How the API reads what clients send: text (whole-string patterns, which openapi.yaml
states, and Unicode), and JSON scalars of their own JSON type."""

from __future__ import annotations

import re
from typing import Any, cast

from marshmallow import ValidationError, fields, validate


class Pattern(validate.Regexp):
    """A pattern the whole string must match (``re.fullmatch``); apispec states it as the
    field's ``pattern``, so openapi.yaml and the server check the same thing.

    ``Regexp`` uses ``re.match``, whose ``$`` also matches before a final newline: the
    lobby's ``^[0-9]{1,9}$`` took ``"12\\n"``, which the spec (and schemathesis) refuses.
    """

    def __call__(self, value: str) -> str:  # type: ignore[override]  # text only, no bytes
        if cast("re.Pattern[str]", self.regex).fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


def unicode_text(text: str) -> None:
    """Refuse lone surrogates: JSON's ``\\ud800`` escapes carry them, but they have no UTF-8
    form, so the event store could neither hash nor keep the text (a 500).

    No pattern in openapi.yaml says so: a string with a lone surrogate is not interoperable
    JSON (RFC 8259, 8.2) and regular expression engines disagree on naming them (Rust's
    refuses ``\\ud800`` outright), so the spec leaves them to this check.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError("must be Unicode text (no lone surrogates)") from exc


PRINTABLE_TEXT = r"^[^\x00-\x1f\x7f-\x9f]*$"
"""Ids and tags: text without control characters (C0, DEL, C1), which would end up in CSV
cells and index keys."""


class _Printable(Pattern):
    def __call__(self, value: Any) -> Any:
        unicode_text(value)
        return super().__call__(value)


printable_text = _Printable(PRINTABLE_TEXT, error="must be printable text (no control "
                                                  "characters)")
"""Validates ids and tags: ``PRINTABLE_TEXT`` (stated in the spec), and Unicode text."""


# --- JSON scalars ------------------------------------------------------------------------
# marshmallow's fields read more than JSON's types: Boolean takes 0, 1, "yes" and 1.0,
# Float takes "30", a non-strict Integer takes "3" and truncates 3.7. A JSON body's field is
# what the spec says it is, so these take exactly that type.


class JsonBoolean(fields.Boolean):
    """true or false, nothing else."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class JsonNumber(fields.Float):
    """A JSON number (not a string, not a boolean)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


def json_integer(**kwargs: Any) -> fields.Integer:
    """A JSON integer (``strict``: not 3.7, "3" or true)."""
    return fields.Integer(strict=True, **kwargs)
