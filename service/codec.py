"""Between the store's events and the domain's: the one place they are converted and folded."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.events import Event
from domain.family import Family
from service.store import NewEvent, StoredEvent


def to_domain(stored: StoredEvent) -> Event:
    return Event(stored.type, stored.data, stored.schema)


def to_store(events: Sequence[Event]) -> list[NewEvent]:
    return [NewEvent(e.type, e.data, e.schema) for e in events]


def fold(family: Family, state: Any, stored: Iterable[StoredEvent]) -> Any:
    """``state`` after the stored events (the fold of the family's ``evolve``)."""
    for event in stored:
        state = family.evolve(state, to_domain(event))
    return state
