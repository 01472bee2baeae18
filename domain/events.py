"""The domain's events: immutable facts, past tense, with a schema version."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One fact about a match. ``data`` holds only JSON values; it is never mutated."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    schema: int = 1
