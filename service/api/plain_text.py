"""Plain text: what every name and free-text field others see accepts (issue 16).

A name ends up on other players' screens, in CSV exports and in logs: a control character
breaks a log line or a CSV row, a bidi control reorders what is shown after it, and an
invisible format character makes two names look alike. Plain text refuses every character
of general category Cc (C0, DEL, C1), Cf (format: bidi controls, zero-width space, soft
hyphen...), Zl and Zp (line and paragraph separators), Cs (lone surrogates) and the 66
noncharacters, with two exceptions that emoji and whole scripts need:

- the join controls ZWJ U+200D and ZWNJ U+200C between two characters allowed on their own
  (emoji ZWJ sequences such as 👩‍💻, Indic conjuncts, Persian words): never first, last or
  doubled;
- tag characters in a subdivision flag (🏴 U+1F3F4, a CLDR subdivision id such as "gbsct"
  in tag letters and digits, U+E007F CANCEL TAG: the flag of Scotland).

Variation selectors, skin-tone modifiers and regional indicators (country flags) are marks
and symbols, not format characters: accepted. Text is kept as sent (no normalisation).
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from marshmallow import ValidationError, fields, validate

from service.api.inputs import Pattern, TextRefusal

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
JOINERS = "\u200c\u200d"
BLACK_FLAG = "\U0001F3F4"
TAGS = range(0xE0020, 0xE0080)
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
"""Every code point refused on its own (join controls and tags included), as ranges: what
``REFUSED_CATEGORIES`` and the noncharacters are in this Python's Unicode
(tests/service/test_plain_text.py holds them to each other; a newer Unicode adds to them).
Lone surrogates are left out: the spec cannot name them (see ``inputs.unicode_text``)."""


# --- the rule ----------------------------------------------------------------------------


def refused_alone(char: str) -> bool:
    """Whether ``char`` is refused on its own (a join control or tag character is then
    accepted only in its place: ``plain_text_refusal``)."""
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
        elif ord(char) in TAGS:
            return (f"{_label(char)} is only allowed in a subdivision flag (U+1F3F4, 3 to 7 "
                    f"tag letters or digits, U+E007F CANCEL TAG) (character {at + 1})")
        elif refused_alone(char):
            return f"{_label(char)} is not allowed (character {at + 1})"
        at += 1
    return None


def _is_noncharacter(code_point: int) -> bool:
    return 0xFDD0 <= code_point <= 0xFDEF or code_point & 0xFFFE == 0xFFFE


_CONTROL_NAMES = {0x00: "NULL", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED",
                  0x0B: "LINE TABULATION", 0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN",
                  0x1B: "ESCAPE", 0x7F: "DELETE", 0x85: "NEXT LINE"}
"""Names of the control characters one meets (Unicode's name aliases): Cc has no names."""


def _label(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: the code point and its name, or what it is."""
    code_point = ord(char)
    category = unicodedata.category(char)
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(code_point) or (
        "(a lone surrogate)" if category == "Cs" else
        "(a control character)" if category == "Cc" else
        "(a noncharacter)" if _is_noncharacter(code_point) else "")
    return f"U+{code_point:04X} {name}".rstrip()


# --- the rule in openapi.yaml ------------------------------------------------------------
# Three parts, so that each reads well where it goes. `pattern` is one class of the BMP:
# schemathesis folds a field's minLength and maxLength into such a pattern and draws from
# it cheaply (boundary lengths included), but it rewrites characters beyond the BMP as \U
# escapes, which ECMAScript (and its own check of the spec) cannot read. So the rest sits
# in `not`, with no length to fold: the refused characters beyond the BMP, as the
# characters themselves (`\U` is not ECMAScript, `\u{...}` not Python), and the join
# controls and tag characters out of their place, a search for each way to misplace them.
# The three read the same in Python, Rust (fancy-regex) and ECMAScript with the `u` flag.

_REFUSED = frozenset(c for first, last in REFUSED_ALONE for c in range(first, last + 1))


def _members(code_points: Iterable[int]) -> str:
    """A class's members: ranges of ``\\uXXXX`` in the BMP, the characters beyond."""
    runs: list[list[int]] = []
    for code_point in sorted(code_points):
        if runs and runs[-1][1] == code_point - 1:
            runs[-1][1] = code_point
        else:
            runs.append([code_point, code_point])
    return "".join(_escape(first) if first == last else f"{_escape(first)}-{_escape(last)}"
                   for first, last in runs)


def _escape(code_point: int) -> str:
    return f"\\u{code_point:04x}" if code_point <= 0xFFFF else chr(code_point)


PLAIN_TEXT = "^[^{}]*$".format(_members(
    c for c in _REFUSED if c <= 0xFFFF and chr(c) not in JOINERS))
"""The spec's ``pattern``: no character of the BMP that is refused wherever it stands."""

BEYOND_BMP = f"[{_members(c for c in _REFUSED if c > 0xFFFF and c not in TAGS)}]"
"""The spec's ``not``: a character beyond the BMP refused wherever it stands."""

_J, _T = f"[{_members(map(ord, JOINERS))}]", f"[{_members(TAGS)}]"
_X = "[\U000E0030-\U000E0039\U000E0061-\U000E007A]"
MISPLACED = "|".join([
    f"^{_J}", f"{_J}$", f"{_J}{_J}", f"{_J}{_T}", f"{_T}{_J}",  # a join control not between
    f"(?:^|[^{BLACK_FLAG}{_members(TAGS)}]){_T}",  # tags after anything but the black flag
    f"[{_members(c for c in TAGS if not re.fullmatch(_X, chr(c)) and c != 0xE007F)}]",
    f"\U000E007F{_T}", f"{_X}(?:$|[^{_members(TAGS)}])",  # not ended by one CANCEL TAG
    f"{BLACK_FLAG}{_X}{{0,2}}\U000E007F", f"{_X}{{8}}",  # a subdivision id of 3 to 7
])
"""The spec's ``not``: a join control or tag character out of its place."""

SPEC = {"pattern": PLAIN_TEXT, "not": {"anyOf": [{"type": "string", "pattern": BEYOND_BMP},
                                                 {"type": "string", "pattern": MISPLACED}]}}
"""What openapi.yaml says of a plain text field (lone surrogates apart, see
``inputs.unicode_text``): what ``plain_text_refusal`` accepts. (Each ``not`` branch is a
string's, or a nullable field's null would match it and be refused.)"""


# --- the field ---------------------------------------------------------------------------


class _PlainText(Pattern):
    """Checks ``plain_text_refusal``; a ``Pattern``, so apispec states ``PLAIN_TEXT``."""

    def __call__(self, value: Any) -> Any:
        refusal = plain_text_refusal(value)
        if refusal is not None:
            raise ValidationError(TextRefusal(refusal))
        return value


plain_text = _PlainText(PLAIN_TEXT)

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
    plain text; openapi.yaml states the rule (``SPEC``) and ``PLAIN_TEXT_RULE``."""

    def __init__(self, *, max_length: int, min_length: int = 1, **kwargs: Any) -> None:
        metadata = dict(kwargs.pop("metadata", {}))
        description = metadata.get("description", "").rstrip(".")
        metadata["description"] = f"{description}. {PLAIN_TEXT_RULE}".lstrip(". ")
        metadata["not"] = copy.deepcopy(SPEC["not"])  # one each: no YAML aliases
        super().__init__(validate=[validate.Length(min=min_length, max=max_length),
                                   plain_text], metadata=metadata, **kwargs)
