"""Upcasting: old event shapes are lifted to the current one on read, never rewritten.

Stored events are immutable and hashed, so a shape change cannot touch the log. Each
upcaster takes one (type, schema) to the next schema; ``upcast`` chains them, so a log
written years ago replays through today's ``evolve``.

History:
- ``HandDealt`` 1 -> 2: schema 2 adds the fairness fields of ``Deal.record()``
  (``seed``, ``commitment``, ``prepared``, ``fixed``). Schema-1 deals had none: their
  seed was never published, so they carry ``None`` and verifiers report them unchecked.
- ``MatchCreated`` 1 -> 2: schema 2 records ``rules_edition``. Every schema-1 match was
  played under edition 1 (docs/rules.md, "Editions").
- ``BotsSeated`` 1 -> 2: schema 2 records each expert seat's ``budget_ms``. Every
  schema-1 expert searched within the default budget (``domain.bots.expert.budget``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.bot_seats import SEARCHING_LEVELS
from domain.bots.expert.budget import DEFAULT_MS
from domain.events import BOTS_SEATED, HAND_DEALT, MATCH_CREATED, Event

Upcaster = Callable[[Mapping[str, Any]], dict[str, Any]]


def _deal_without_commitment(data: Mapping[str, Any]) -> dict[str, Any]:
    return {"seed": None, "commitment": None, "prepared": None, "fixed": {}, **data}


def _created_under_edition_1(data: Mapping[str, Any]) -> dict[str, Any]:
    return {**data, "rules_edition": 1}


def _experts_at_the_default_budget(data: Mapping[str, Any]) -> dict[str, Any]:
    return {**data, "seats": [{**entry, "budget_ms": DEFAULT_MS}
                              if entry["level"] in SEARCHING_LEVELS else dict(entry)
                              for entry in data["seats"]]}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    (HAND_DEALT.name, 1): _deal_without_commitment,
    (MATCH_CREATED.name, 1): _created_under_edition_1,
    (BOTS_SEATED.name, 1): _experts_at_the_default_budget,
}


def upcast(event: Event) -> Event:
    """``event`` in its current shape (the same object when it already is)."""
    while (step := UPCASTERS.get((event.type, event.schema))) is not None:
        event = Event(event.type, step(event.data), event.schema + 1)
    return event
