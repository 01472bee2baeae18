"""Between the store's events and the domain's: the one place they are converted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.aggregate import Recorded
from domain.events import Event
from domain.upcasting import upcast
from service.ports import NewEvent, StoredEvent


def to_domain(stored: StoredEvent) -> Event:
    """The stored event as the domain knows it today (old schemas upcast on read)."""
    return upcast(Event(stored.type, stored.data, stored.schema))


def from_record(record: Mapping[str, Any]) -> Event:
    """An event as exports and ``StoredEvent.to_dict`` give it (``type``, ``data``,
    ``schema``), as the domain knows it today."""
    return upcast(Event(record["type"], record["data"], record["schema"]))


def to_recorded(stored: Sequence[StoredEvent]) -> list[Recorded]:
    """Stored events as ``Match.apply`` folds them."""
    return [Recorded(to_domain(event), event.version, event.ts, event.hash) for event in stored]


def to_store(events: Sequence[Event]) -> list[NewEvent]:
    return [NewEvent(e.type, e.data, e.schema) for e in events]
