"""Player names: what makes one a name, and when two are the same.

Names are plain text (``service.api.plain_text``: no control, bidi or format characters),
kept exactly as sent. On top of that a name must show something: at least one letter,
digit or pictograph (an emoji) that is not blank. The Hangul fillers (U+115F, U+1160,
U+3164, U+FFA0) are letters by their category and the Braille blank U+2800 a symbol, yet
all show as nothing, so they do not count; spaces never did. And the seats of one match
have distinct names: two names are the same when they read the same, whatever their case,
their spaces (around or doubled), their compatibility forms (a full-width ``Ａ``) or the
invisible characters inside (joiners, variation selectors, fillers).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from service.usecases.errors import Invalid, invalid

BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that show as nothing: the Hangul fillers and the Braille blank."""
INVISIBLE = BLANK | {"\u034f"} | {chr(c) for c in (*range(0xFE00, 0xFE10),
                                                     *range(0xE0100, 0xE01F0))}
"""Besides format characters (Cf): what a reader cannot see inside a name (the blanks, the
combining grapheme joiner and the variation selectors)."""
INVALID_NAME = "invalid_name"
NAME_TAKEN = "name_taken"


def shows_something(name: str) -> bool:
    """Whether ``name`` has a letter, a digit or a pictograph that is not blank."""
    return any(char not in BLANK and (unicodedata.category(char)[0] in "LN"
                                      or unicodedata.category(char) == "So")
               for char in name)


def name_key(name: str) -> str:
    """What two names that read the same share: invisible characters dropped, compatibility
    forms folded, case folded, runs of spaces made one and the ends trimmed."""
    seen = "".join(char for char in name
                   if char not in INVISIBLE and unicodedata.category(char) != "Cf")
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", seen).casefold())
    return " ".join(folded.split())


def require_name(field: str, name: str) -> None:
    """400 ``invalid_name`` for a name that shows nothing."""
    if not shows_something(name):
        raise invalid(field, "a name needs a visible letter, digit or pictograph (it must "
                             "not be only spaces or blank characters)", INVALID_NAME)


def require_names(players: Iterable[Mapping[str, Any]], field: str = "players") -> None:
    """Each named player's name shows something, and no two are the same (``name_key``);
    open seats (no name yet) are skipped. 400 ``invalid_name`` or ``name_taken``, naming
    ``<field>.<n>.name``."""
    seen: dict[str, int] = {}
    for seat, player in enumerate(players):
        if player.get("open") or player.get("stand_in"):
            continue
        require_name(f"{field}.{seat}.name", player["name"])
        key = name_key(player["name"])
        if key in seen:
            raise Invalid(NAME_TAKEN, f"{field}.{seat}.name: seat {seen[key]} has this name",
                          {f"{field}.{seat}.name": [f"seat {seen[key]} has this name"]})
        seen[key] = seat
