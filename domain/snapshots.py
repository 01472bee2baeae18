"""What a stored snapshot of a match's fold must agree with: the code's state version.

A snapshot (``service.usecases.snapshots``) keeps a match's folded state so that a cold
read folds only the events after it. It is only as good as the ``evolve`` that made it:
a snapshot written by code that folded differently, or into another shape, must never be
read back. ``STATE_VERSION`` names the fold of today's code; every snapshot carries it and
one that differs is thrown away and rebuilt from the events.

``STATE_VERSION`` must change whenever an ``evolve`` (or ``Match.apply``) changes what it
makes of an event, or the state's shape changes. The shape is checked for you:
``state_fingerprint`` hashes the fields of every state dataclass a match holds, and a test
compares it with ``STATE_FINGERPRINT``, recorded with the version; a change of shape
without a new version fails that test. A change of behaviour with the same shape cannot be
detected so: bump the version by hand (the fold-both-ways test catches the rest on the
matches it plays).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from collections.abc import Iterable

from domain.match import Match
from domain.variants import VARIANTS

STATE_VERSION = 1
"""The fold's version: change it with every change of an ``evolve`` or a state's shape."""

STATE_FINGERPRINT = "0e5864ab468b4916"
"""``state_fingerprint()`` when ``STATE_VERSION`` was last changed."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def state_fingerprint(roots: Iterable[type]) -> str:
    """A hash of the fields (names and annotations) of ``roots`` and of every dataclass
    their annotations name, followed through the modules that define them."""
    seen: dict[str, str] = {}
    pending = list(roots)
    while pending:
        cls = pending.pop()
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in seen or not dataclasses.is_dataclass(cls):
            continue
        fields = dataclasses.fields(cls)
        seen[name] = ";".join(f"{field.name}:{field.type}" for field in fields)
        namespace = vars(sys.modules[cls.__module__])
        for field in fields:
            for word in _NAME.findall(str(field.type)):
                named = namespace.get(word)
                if isinstance(named, type):
                    pending.append(named)
    text = "\n".join(f"{name} {fields}" for name, fields in sorted(seen.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def match_fingerprint() -> str:
    """``state_fingerprint`` of a match (``Match``) and of every family's state."""
    roots: list[type] = [Match, *(type(variant.initial_state()) for variant in VARIANTS.values())]
    return state_fingerprint(roots)
