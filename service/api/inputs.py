"""How the API reads what clients send: text (whole-string patterns, which openapi.yaml
states, and Unicode; plain text for what others see is in ``plain_text``), and JSON scalars
of their own JSON type."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, cast

from marshmallow import ValidationError, fields, validate

INVALID_TEXT = "invalid_text"
"""The code of a 400 whose every problem is a character a text field refuses
(``TextRefusal``); with any other problem in the same request it is ``invalid_request``."""


class TextRefusal(str):
    """The message refusing a character of a text field (it names the character).

    A ``str``, so it is an ordinary marshmallow message; its type lets ``base._code`` tell
    a request refused only for its characters (``INVALID_TEXT``) from a malformed one.
    """


def text_refusals_only(messages: Any) -> bool:
    """Whether every message of a (nested) marshmallow error is a ``TextRefusal``."""
    leaves = list(_leaves(messages))
    return bool(leaves) and all(isinstance(leaf, TextRefusal) for leaf in leaves)


def _leaves(messages: Any) -> Iterator[Any]:
    if isinstance(messages, dict):
        for value in messages.values():
            yield from _leaves(value)
    elif isinstance(messages, list | tuple):
        for value in messages:
            yield from _leaves(value)
    else:
        yield messages


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
    at = next((at for at, char in enumerate(text) if "\ud800" <= char <= "\udfff"), None)
    if at is not None:
        raise ValidationError(TextRefusal(
            f"U+{ord(text[at]):04X} (a lone surrogate) is not allowed (character {at + 1})"))


PRINTABLE_TEXT = r"^[^\x00-\x1f\x7f-\x9f]*$"
"""Invite codes and the listing's filters: text without control characters (C0, DEL, C1).
A filter is not ``PLAIN_TEXT``: it must still find tags and ids stored before that rule."""


class _Printable(Pattern):
    def __call__(self, value: Any) -> Any:
        unicode_text(value)
        return super().__call__(value)


printable_text = _Printable(PRINTABLE_TEXT, error="must be printable text (no control "
                                                  "characters)")
"""Validates ``PRINTABLE_TEXT`` (stated in the spec), and Unicode text."""


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
