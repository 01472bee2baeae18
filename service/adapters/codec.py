"""Between the store's events and the domain's: the one place they are converted and folded."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.clocks import Clock, track
from domain.events import Event
from domain.fairness import CLOCK_SET, UNFOLDED_EVENTS
from domain.family import Family
from domain.upcasting import upcast
from service.adapters.store import NewEvent, StoredEvent


def to_domain(stored: StoredEvent) -> Event:
    """The stored event as the domain knows it today (old schemas upcast on read)."""
    return upcast(Event(stored.type, stored.data, stored.schema))


def to_store(events: Sequence[Event]) -> list[NewEvent]:
    return [NewEvent(e.type, e.data, e.schema) for e in events]


def fold(family: Family, state: Any, stored: Iterable[StoredEvent]) -> Any:
    """``state`` after the stored events (the fold of the family's ``evolve``)."""
    for event in stored:
        if event.type not in UNFOLDED_EVENTS:
            state = family.evolve(state, to_domain(event))
    return state


def fold_clock(family: Family, state: Any, clock: Clock | None,
               stored: Iterable[StoredEvent]) -> tuple[Any, Clock | None]:
    """``fold``, also tracking the match's clock (``domain.clocks``) from the events' times."""
    for event in stored:
        domain_event = to_domain(event)
        if event.type not in UNFOLDED_EVENTS:
            state = family.evolve(state, domain_event)
        if clock is not None or event.type == CLOCK_SET:
            clock = track(clock, domain_event, event.ts, event.version, state.turn,
                          len(state.players))
    return state, clock
