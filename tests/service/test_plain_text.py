"""The plain text rule (service/api/plain_text.py) on its own: the characters it refuses are
exactly its Unicode categories, what openapi.yaml says of it and its check agree on every
text, and its messages name the character."""

from __future__ import annotations

import re
import sys
import unicodedata

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from service.api.inputs import TextRefusal, text_refusals_only, unicode_text
from service.api.plain_text import (
    BEYOND_BMP,
    MISPLACED,
    PLAIN_TEXT,
    PLAIN_TEXT_RULE,
    REFUSED_ALONE,
    SPEC,
    PlainText,
    plain_text_refusal,
    refused_alone,
)

FLAG_OF_SCOTLAND = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
SURROGATES = range(0xD800, 0xE000)


def every_character() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if c not in SURROGATES)


def in_spec(text: str) -> bool:
    """Whether openapi.yaml's plain text (``SPEC``) takes ``text``, as a validator reads it:
    ``pattern`` whole (ECMAScript's ``$`` is the end), the ``not`` patterns anywhere."""
    return (re.fullmatch(PLAIN_TEXT, text) is not None
            and not any(re.search(p["pattern"], text) for p in SPEC["not"]["anyOf"]))


def test_the_ranges_are_the_categories_and_noncharacters_of_this_unicode():
    """``REFUSED_ALONE`` (what the spec states) is what the check reads from the Unicode
    database. A failure after a Python upgrade means its Unicode has new format
    characters: add them to ``REFUSED_ALONE`` and run ``make openapi``."""
    by_category = {c for c in range(sys.maxunicode + 1)
                   if c not in SURROGATES and refused_alone(chr(c))}
    by_ranges = {c for first, last in REFUSED_ALONE for c in range(first, last + 1)}
    assert by_category == by_ranges, unicodedata.unidata_version


def test_the_spec_refuses_exactly_those_characters_on_their_own():
    text = every_character()
    bmp = set(re.findall(PLAIN_TEXT[1:-2], text))  # the pattern's class
    refused = {ord(c) for c in set(text) - bmp} | {ord(c) for c in re.findall(BEYOND_BMP, text)}
    refused |= {ord(c) for c in set(text) & bmp if re.search(MISPLACED, c)}
    assert refused == {c for first, last in REFUSED_ALONE for c in range(first, last + 1)}
    assert SPEC["pattern"] == PLAIN_TEXT and all(ord(c) <= 0xFFFF for c in PLAIN_TEXT)


@pytest.mark.parametrize("text", [
    "", "Ann", "Zoë Ørsted-Núñez", "李小龍", "Ann 🃏", "👩\u200d👩\u200d👧\u200d👦", "👋🏽",
    "🇳🇴", FLAG_OF_SCOTLAND, FLAG_OF_SCOTLAND * 2, "🏴", "🏴🏴", "x\u200d" + FLAG_OF_SCOTLAND,
    "می\u200cخواهم", "क्\u200dष", "葛\U000E0100", "\u00a0", "\ufffd", "\ue000",
])
def test_accepted(text):
    assert plain_text_refusal(text) is None
    assert in_spec(text)


@pytest.mark.parametrize("text, message", [
    ("\x00", "U+0000 NULL is not allowed (character 1)"),
    ("Ann\r\n", "U+000D CARRIAGE RETURN is not allowed (character 4)"),
    ("a\nb", "U+000A LINE FEED is not allowed (character 2)"),
    ("a\tb", "U+0009 CHARACTER TABULATION is not allowed (character 2)"),
    ("\x7f", "U+007F DELETE is not allowed (character 1)"),
    ("\x85", "U+0085 NEXT LINE is not allowed (character 1)"),
    ("\x9b", "U+009B (a control character) is not allowed (character 1)"),
    ("Ann\u202etxt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE is not allowed (character 4)"),
    ("\u202aA", "U+202A LEFT-TO-RIGHT EMBEDDING is not allowed (character 1)"),
    ("\u2066A", "U+2066 LEFT-TO-RIGHT ISOLATE is not allowed (character 1)"),
    ("A\u2069", "U+2069 POP DIRECTIONAL ISOLATE is not allowed (character 2)"),
    ("A\u200e", "U+200E LEFT-TO-RIGHT MARK is not allowed (character 2)"),
    ("A\u200f", "U+200F RIGHT-TO-LEFT MARK is not allowed (character 2)"),
    ("A\u061c", "U+061C ARABIC LETTER MARK is not allowed (character 2)"),
    ("An\u200bn", "U+200B ZERO WIDTH SPACE is not allowed (character 3)"),
    ("\ufeffAnn", "U+FEFF ZERO WIDTH NO-BREAK SPACE is not allowed (character 1)"),
    ("An\u00adn", "U+00AD SOFT HYPHEN is not allowed (character 3)"),
    ("A\u2060", "U+2060 WORD JOINER is not allowed (character 2)"),
    ("A\u2028B", "U+2028 LINE SEPARATOR is not allowed (character 2)"),
    ("A\u2029B", "U+2029 PARAGRAPH SEPARATOR is not allowed (character 2)"),
    ("A\ufdd0", "U+FDD0 (a noncharacter) is not allowed (character 2)"),
    ("A\U0010ffff", "U+10FFFF (a noncharacter) is not allowed (character 2)"),
    ("A\U0001d173", "U+1D173 MUSICAL SYMBOL BEGIN BEAM is not allowed (character 2)"),
    ("A\U000e0001", "U+E0001 LANGUAGE TAG is not allowed (character 2)"),
    ("A\ud800", "U+D800 (a lone surrogate) is not allowed (character 2)"),
    ("\u200dAnn", "U+200D ZERO WIDTH JOINER is only allowed between two other characters "
                  "(character 1)"),
    ("Ann\u200c", "U+200C ZERO WIDTH NON-JOINER is only allowed between two other "
                  "characters (character 4)"),
    ("A\u200d\u200dn", "U+200D ZERO WIDTH JOINER is only allowed between two other "
                       "characters (character 2)"),
    (FLAG_OF_SCOTLAND + "\u200dx", "U+200D ZERO WIDTH JOINER is only allowed between two "
                                   "other characters (character 8)"),
    ("A\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A is only allowed in a subdivision "
                    "flag (U+1F3F4, 3 to 7 tag letters or digits, U+E007F CANCEL TAG) "
                    "(character 2)"),
    (FLAG_OF_SCOTLAND[:-1], "U+E0067 TAG LATIN SMALL LETTER G is only allowed in a "
                            "subdivision flag (U+1F3F4, 3 to 7 tag letters or digits, U+E007F "
                            "CANCEL TAG) (character 2)"),
    ("\U0001F3F4\U000E0067\U000E0062\U000E007F", "U+E0067 TAG LATIN SMALL LETTER G is only "
     "allowed in a subdivision flag (U+1F3F4, 3 to 7 tag letters or digits, U+E007F CANCEL "
     "TAG) (character 2)"),
])
def test_refused_naming_the_first_refused_character(text, message):
    assert plain_text_refusal(text) == message
    if not any(0xD800 <= ord(c) < 0xE000 for c in text):  # the spec leaves those out
        assert not in_spec(text)


PIECES = ["a", "é", "中", " ", "🏴", "👩", "\U0001F3FD", "\ufe0f", "\u200d", "\u200c",
          "\U000E0067", "\U000E0062", "\U000E0031", "\U000E0041", "\U000E007F", "\u202e",
          "\n", "\u200b", "\ufffe", "\U0010fffe", "\U0001d173", "gbsct", "\U000E0020"]
"""Characters whose places matter (joiners, tags, the flag), and some refused anywhere."""


@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_the_spec_and_the_check_agree(text):
    assert (plain_text_refusal(text) is None) == in_spec(text)


@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_the_spec_s_other_readers_agree(text):
    """schemathesis validates with jsonschema_rs (Rust, fancy-regex): the pattern means
    the same there. (ECMAScript with the ``u`` flag reads it the same way too; without it,
    no engine can read characters beyond the BMP in a class.)"""
    validator = jsonschema_rs.Draft4Validator(SPEC,
                                              pattern_options=jsonschema_rs.FancyRegexOptions())
    assert validator.is_valid(text) == (plain_text_refusal(text) is None)


def test_a_refusal_is_a_text_refusal_and_only_refusals_make_invalid_text():
    class Named(Schema):
        name = PlainText(max_length=4)
    with pytest.raises(ValidationError) as refused:
        Named().load({"name": "A\u202e"})
    assert text_refusals_only(refused.value.messages)
    with pytest.raises(ValidationError) as too_long:
        Named().load({"name": "Annabel\u202e"})
    assert not text_refusals_only(too_long.value.messages)
    assert not text_refusals_only({"a": {"0": ["x", TextRefusal("y")]}})
    assert text_refusals_only({"a": {"0": [TextRefusal("y")]}, "b": [TextRefusal("z")]})
    assert not text_refusals_only({})


def test_lone_surrogates_anywhere_are_a_text_refusal():
    with pytest.raises(ValidationError) as refused:
        unicode_text("seed\udc00")
    assert text_refusals_only(refused.value.messages)
    assert refused.value.messages == ["U+DC00 (a lone surrogate) is not allowed (character 5)"]


def test_a_plain_text_field_documents_the_rule():
    field = PlainText(max_length=8, metadata={"description": "Why"})
    assert field.metadata["description"] == f"Why. {PLAIN_TEXT_RULE}"
    assert PlainText(max_length=8).metadata["description"] == PLAIN_TEXT_RULE
    assert field.metadata["not"] == SPEC["not"]
