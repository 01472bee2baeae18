"""Every event type a match's or a tournament's log can hold, collected from where each
is declared.

``REGISTRY`` maps each name of a match's events to its ``EventType`` and
``TOURNAMENT_REGISTRY`` each of a tournament's; the tests hold every event the families
produce to it, and docs/events.md is generated from it:

    python -m domain.event_registry --markdown > docs/events.md
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from domain import events, knocking
from domain.events import CARD_CODE, EventType, Field
from domain.rummy import events as rummy_events
from domain.tournaments import events as tournament_events
from domain.upcasting import UPCASTERS

GROUPS: tuple[tuple[str, tuple[EventType, ...]], ...] = (
    ("Every family's game", events.GAME_EVENTS),
    ("Gin and gem only", knocking.EVENT_TYPES),
    ("Rummy and rami only", rummy_events.EVENT_TYPES),
    ("Fair deals", events.FAIRNESS_EVENTS),
    ("Clocks", (events.CLOCK_SET,)),
    ("Computer players", (events.BOTS_SEATED,)),
    ("A rematch", events.REMATCH_EVENTS),
    ("Ending a match early", events.CONTROL_EVENTS),
)
"""A match's event types by where they belong, in the order docs/events.md lists them."""

TOURNAMENT_GROUPS: tuple[tuple[str, tuple[EventType, ...]], ...] = (
    ("A tournament's own log", tournament_events.EVENT_TYPES),
)
"""A tournament's event types (``domain.tournaments``), listed after a match's."""


def _registry(types: Iterable[EventType]) -> Mapping[str, EventType]:
    """Name -> type; a name declared twice is a mistake that must not load."""
    by_name: dict[str, EventType] = {}
    for event_type in types:
        if event_type.name in by_name:
            raise ValueError(f"event type {event_type.name!r} is declared twice")
        by_name[event_type.name] = event_type
    return MappingProxyType(by_name)


REGISTRY = _registry(t for _, group in GROUPS for t in group)
TOURNAMENT_REGISTRY = _registry(t for _, group in TOURNAMENT_GROUPS for t in group)
_registry(t for _, group in (*GROUPS, *TOURNAMENT_GROUPS) for t in group)  # no name twice


# --- docs/events.md ---------------------------------------------------------------------

INTRO = """\
# Events

Generated from `domain/event_registry.py` by `make docs`
(`python -m domain.event_registry --markdown`); do not edit by hand.

Every change to a match is one of these events, appended to the match's log and never
changed (`schema` is the shape written today; older shapes are upcast on read). A field
marked with variants appears only in those variants' events. What a viewer sees of an
event is redacted: a hand, a card drawn from the stock, a deal's deck and seed and a
rebuilt stock stay hidden until the hand's seed is revealed (docs/api.md, *Hidden
information*; docs/fairness.md). A tournament has its own log of the same kind, hash-chained
and exportable like a match's (docs/tournaments.md); its events are the last group below,
and nothing in them is hidden."""


def markdown() -> str:
    """docs/events.md: an overview, then one table per event type."""
    lines = [INTRO, "", *_overview(), ""]
    for title, group in (*GROUPS, *TOURNAMENT_GROUPS):
        lines += [f"## {title}", ""]
        for event_type in group:
            lines += [*_section(event_type), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _overview() -> list[str]:
    rows = ["| event | schema | appended by | what happened |", "|---|---|---|---|"]
    rows += [f"| [`{t.name}`](#{t.name.lower()}) | {t.schema} | {t.appended_by} | "
             f"{t.description} |" for _, group in (*GROUPS, *TOURNAMENT_GROUPS)
             for t in group]
    return rows


def _section(event_type: EventType) -> list[str]:
    return [f"### {event_type.name}", "", event_type.description, "",
            f"Schema {_schemas(event_type)}. Appended by: {event_type.appended_by}.", "",
            "| field | type | meaning |", "|---|---|---|",
            *(_field_row(f) for f in event_type.fields)]


def _schemas(event_type: EventType) -> str:
    older = sorted(schema for name, schema in UPCASTERS if name == event_type.name)
    if not older:
        return str(event_type.schema)
    return f"{event_type.schema} (older: {', '.join(map(str, older))}, upcast on read)"


def _field_row(field: Field) -> str:
    only = f" *({', '.join(field.only)} only)*" if field.only else ""
    return f"| `{field.name}`{only} | {type_text(field.schema)} | {field.meaning} |"


def type_text(schema: Mapping[str, Any]) -> str:
    """A field's JSON Schema in a few words, for the catalog (openapi.yaml has it whole)."""
    if schema.get("nullable"):
        return f"{type_text({k: v for k, v in schema.items() if k != 'nullable'})} or null"
    kind = schema.get("type")
    if "enum" in schema:
        return " or ".join(f"`{choice}`" for choice in schema["enum"])
    if kind == "string" and schema.get("pattern") == CARD_CODE:
        return "card"
    if kind == "string" and "pattern" in schema:
        return "hex string"
    if kind == "integer" and "minimum" in schema:
        return f"integer ≥ {schema['minimum']}"
    if kind == "array":
        return f"list of {_plural(type_text(schema['items']))}"
    if kind == "object" and "properties" in schema:
        return f"object {{{', '.join(schema['properties'])}}}"
    if kind == "object":
        return "object"
    return str(kind)


def _plural(text: str) -> str:
    head, _, rest = text.partition(" ")
    if head in ("card", "integer", "string", "object", "list", "boolean", "number"):
        return f"{head}s {rest}".rstrip()
    return text


def main(argv: Sequence[str]) -> int:
    if list(argv) != ["--markdown"]:
        print("usage: python -m domain.event_registry --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
