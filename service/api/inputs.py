"""How the API reads what clients send: text (whole-string patterns, which openapi.yaml
states, Unicode, and plain text for what others see), and JSON scalars of their own JSON
type."""

from __future__ import annotations

import re
import unicodedata
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
    at = next((at for at, char in enumerate(text) if _is_surrogate(char)), None)
    if at is not None:
        raise ValidationError(TextRefusal(_not_allowed(text[at], at)))


def _is_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udfff"


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


# --- plain text: names and free text that others see --------------------------------------
# A name ends up on other players' screens, in CSV exports and in logs: a control character
# breaks a log line or a CSV row, a bidi control reorders what is shown after it, and an
# invisible format character makes two names look alike. Plain text refuses every character
# of general category Cc (C0, DEL, C1), Cf (format: bidi controls, zero-width space, soft
# hyphen...), Zl and Zp (line and paragraph separators), Cs (lone surrogates) and the 66
# noncharacters, with two exceptions that emoji and whole scripts need:
# - the join controls ZWJ U+200D and ZWNJ U+200C between two characters allowed on their own
#   (emoji ZWJ sequences such as 👩‍💻, Indic conjuncts, Persian words): never first, last or
#   doubled;
# - tag characters in a subdivision flag (🏴 U+1F3F4, a CLDR subdivision id such as "gbsct"
#   in tag letters and digits, U+E007F CANCEL TAG: the flag of Scotland).
# Variation selectors, skin-tone modifiers and regional indicators (country flags) are marks
# and symbols, not format characters: accepted. Text is kept as sent (no normalisation).

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
JOINERS = "\u200c\u200d"
BLACK_FLAG = "\U0001F3F4"
SUBDIVISION_TAGS = "[\U000E0030-\U000E0039\U000E0061-\U000E007A]{3,7}\U000E007F"
"""What follows ``BLACK_FLAG`` in a subdivision flag (a UTS #51 emoji tag sequence): a CLDR
subdivision id in tag digits and small letters, then CANCEL TAG."""
_SUBDIVISION_TAGS = re.compile(SUBDIVISION_TAGS)

REFUSED_ALONE: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F), (0x007F, 0x009F),  # Cc: C0 (NUL, TAB, LF, CR...), DEL, C1
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),  # Cf
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
    (0x2028, 0x2029),  # Zl, Zp
    (0xFDD0, 0xFDEF), *((plane | 0xFFFE, plane | 0xFFFF) for plane in range(0, 0x110000, 0x10000)),
)
"""Every code point refused on its own, as ranges: what ``REFUSED_CATEGORIES`` and the
noncharacters are in this Python's Unicode (tests/service/test_plain_text.py holds them
to each other; a newer Unicode adds to them). Lone surrogates are left out: the spec cannot
name them (see ``unicode_text``)."""


def _escape(code_point: int) -> str:
    """A class member every engine reads: ``\\uXXXX`` in the BMP (ECMAScript, Python, Rust),
    the character itself beyond (``\\U`` is not ECMAScript, ``\\u{...}`` not Python)."""
    return f"\\u{code_point:04x}" if code_point <= 0xFFFF else chr(code_point)


ALLOWED_ALONE = "[^{}]".format("".join(
    _escape(first) if first == last else f"{_escape(first)}-{_escape(last)}"
    for first, last in sorted(REFUSED_ALONE)))
"""A character allowed wherever it stands, as a pattern's class."""
_JOINER = f"[{_escape(0x200C)}{_escape(0x200D)}]"
PLAIN_TEXT = (f"^(?:{ALLOWED_ALONE}(?:{_JOINER}(?={ALLOWED_ALONE})|(?<={BLACK_FLAG})"
              f"{SUBDIVISION_TAGS})?)*(?<!{_JOINER})$")
"""``plain_text`` as a pattern, which openapi.yaml states: characters allowed on their own,
each maybe followed by a join control (before another of them) or, after a black flag, by
a subdivision's tags (a join control after a subdivision flag is refused: no emoji has one).

Shaped for generators as well as validators. One repeat of one unit keeps drawn strings
short, and the lookahead makes a drawn join control valid. The closing ``(?<!joiner)``
repeats what the lookahead says, but it also keeps schemathesis from folding the field's
length into the pattern, which rewrites its characters beyond the BMP as ``\\U`` escapes
that no ECMAScript reader (its own schema check included) accepts."""

_CONTROL_NAMES = {0x00: "NULL", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED",
                  0x0B: "LINE TABULATION", 0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN",
                  0x1B: "ESCAPE", 0x7F: "DELETE", 0x85: "NEXT LINE"}
"""Names of the control characters one meets (Unicode's name aliases): Cc has no names."""


def _label(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: the code point and its name, or what it is."""
    code_point = ord(char)
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(code_point) or (
        "(a lone surrogate)" if _is_surrogate(char) else
        "(a control character)" if unicodedata.category(char) == "Cc" else
        "(a noncharacter)" if _is_noncharacter(code_point) else "")
    return f"U+{code_point:04X} {name}".rstrip()


def _not_allowed(char: str, at: int) -> str:
    return f"{_label(char)} is not allowed (character {at + 1})"


def _is_noncharacter(code_point: int) -> bool:
    return 0xFDD0 <= code_point <= 0xFDEF or code_point & 0xFFFE == 0xFFFE


def refused_alone(char: str) -> bool:
    """Whether the rule refuses ``char`` wherever it stands (a join control or tag
    character is accepted only in its place: ``plain_text_refusal``)."""
    return (unicodedata.category(char) in REFUSED_CATEGORIES
            or _is_noncharacter(ord(char)))


def plain_text_refusal(text: str) -> str | None:
    """Why ``text`` is not plain text, naming its first refused character; None if it is."""
    at = 0
    while at < len(text):
        char = text[at]
        tags = _SUBDIVISION_TAGS.match(text, at + 1) if char == BLACK_FLAG else None
        if tags is not None:
            at = tags.end()
            continue
        if char in JOINERS:
            if not (0 < at < len(text) - 1 and not refused_alone(text[at - 1])
                    and not refused_alone(text[at + 1])):
                return (f"{_label(char)} is only allowed between two other characters "
                        f"(character {at + 1})")
        elif "\U000E0020" <= char <= "\U000E007F":
            return (f"{_label(char)} is only allowed in a subdivision flag (U+1F3F4, 3 to 7 "
                    f"tag letters or digits, U+E007F CANCEL TAG) (character {at + 1})")
        elif refused_alone(char):
            return _not_allowed(char, at)
        at += 1
    return None


class _PlainText(Pattern):
    def __call__(self, value: Any) -> Any:
        refusal = plain_text_refusal(value)
        if refusal is not None:
            raise ValidationError(TextRefusal(refusal))
        return value


plain_text = _PlainText(PLAIN_TEXT)
"""Validates plain text: the rule above, by the characters' Unicode categories; the spec
states it as ``PLAIN_TEXT`` (lone surrogates apart, see ``unicode_text``)."""

PLAIN_TEXT_RULE = (
    "Plain text, kept as sent: no control characters (NUL, tab, CR, LF...), bidi controls "
    "(U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), zero-width or other invisible "
    "format characters (category Cf), line or paragraph separators, noncharacters or lone "
    "surrogates (400 invalid_text, naming the character). Joiners U+200D and U+200C only "
    "between two other characters (emoji sequences, Indic and Persian text); tag "
    "characters only in a subdivision flag. Accents, any script and emoji are fine.")
"""What every ``PlainText`` field's description says (openapi.yaml, docs/front-ends.md)."""


class PlainText(fields.String):
    """A name or free text that others see: ``min_length``-``max_length`` characters of
    plain text (``plain_text``), its description ending with ``PLAIN_TEXT_RULE``."""

    def __init__(self, *, max_length: int, min_length: int = 1, **kwargs: Any) -> None:
        metadata = dict(kwargs.pop("metadata", {}))
        metadata["description"] = " ".join(
            part for part in (metadata.get("description"), PLAIN_TEXT_RULE) if part)
        super().__init__(validate=[validate.Length(min=min_length, max=max_length),
                                   plain_text], metadata=metadata, **kwargs)


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
