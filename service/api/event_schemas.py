"""Every event type in openapi.yaml, generated from ``domain.event_registry``.

Each event type gets two components: ``<Type>Data``, its payload (every field the registry
declares, with its meaning; fields a viewer may not see are left out of its copy, so none
is required), and ``<Type>Event``, the event as ``/events``, ``/export`` and ``/stream`` carry
it (``type`` fixed to its name). ``Event`` is the ``oneOf`` of them keyed on ``type``. The
registry is the one source: an event type added there is in the spec at the next
``make openapi``, and the contract test fails until it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apispec import APISpec

from domain.bots import LEVELS
from domain.controls import BY
from domain.event_registry import REGISTRY
from domain.events import (
    HAND_DEALT,
    MATCH_CREATED,
    EventType,
    Field,
    card,
    cards,
    integer,
    nullable,
)
from domain.rematch import ACCEPT, DECLINE

REDACTED_FIELDS: dict[str, tuple[Field, ...]] = {HAND_DEALT.name: (
    Field("upcard", "Seen by all but the organiser (whose copy has the whole deck): the first "
                    "card of the discard pile, null when none is turned",
          schema=nullable(card())),
    Field("stock_count", "Seen by all but the organiser: cards left in the stock after the "
                         "deal", schema=integer(0)),
    Field("hand", "A seat's own copy: its cards, sorted", schema=cards()),
)}
"""Fields only the redacted copy of an event carries, in place of the secret ones
(``domain.redaction``: a deal shows its upcard and stock size, and a seat its own hand)."""

REF = "#/components/schemas/{}"

ENVELOPE: dict[str, Any] = {
    "version": {"type": "integer", "minimum": 1,
                "description": "The event's position in the log, from 1 (the SSE `id`)"},
    "schema": {"type": "integer", "minimum": 1, "description": "The payload's shape version"},
    "ts": {"type": "number", "description": "Server time, epoch seconds"},
    "command_id": {"type": "string", "nullable": True,
                   "description": "The command that appended it (seat moves, steps, controls)"},
    "prev_hash": {"type": "string", "description": "The previous event's hash (hash chain)"},
    "hash": {"type": "string", "description": "SHA-256 over this event and prev_hash"},
    "command": {"anyOf": [{"$ref": "#/components/schemas/Command"},
                          {"type": "object", "nullable": True, "enum": [None]}],
                "description": "The command that caused the event, on the first event it "
                               "caused (null on the others, and for steps): a seat's action as "
                               "sent, or a control; a seat's is shown to that seat, the "
                               "organiser, and everyone once the hand is revealed"},
    "redacted": {"type": "boolean",
                 "description": "Whether anything was left out for the caller (only unredacted "
                                "events can be re-hashed)"},
}
"""What every event carries besides ``type`` and ``data``."""


TYPED_FIELDS: dict[tuple[str, str], dict[str, Any]] = {
    (MATCH_CREATED.name, "options"): {"allOf": [{"$ref": REF.format("MatchOptions")}]},
}
"""Fields the registry declares as a plain mapping whose keys the spec knows elsewhere."""


def payload_schema(event_type: EventType) -> dict[str, Any]:
    """``<Type>Data``: the payload's fields with their JSON type and meaning (and
    variants), the redacted copy's own fields included."""
    properties: dict[str, Any] = {}
    for field in (*event_type.fields, *REDACTED_FIELDS.get(event_type.name, ())):
        only = f" ({', '.join(field.only)} only)" if field.only else ""
        schema = TYPED_FIELDS.get((event_type.name, field.name)) or _plain(field.schema)
        properties[field.name] = {**schema, "description": field.meaning + only}
    return {"type": "object", "description": event_type.description,
            "properties": properties, "additionalProperties": False}


def _plain(schema: Any) -> Any:
    """A field's schema as plain dicts and lists (the domain's may be read-only mappings)."""
    if isinstance(schema, Mapping):
        return {key: _plain(value) for key, value in schema.items()}
    if isinstance(schema, (list, tuple)):
        return [_plain(value) for value in schema]
    return schema


def envelope_schema(event_type: EventType) -> dict[str, Any]:
    """``<Type>Event``: one stored event of this type as the API shows it."""
    properties = {"type": {"type": "string", "enum": [event_type.name]},
                  **ENVELOPE, "data": {"$ref": REF.format(f"{event_type.name}Data")}}
    return {"type": "object", "description": f"{event_type.description} Appended by: "
                                             f"{event_type.appended_by}.",
            "properties": properties, "required": list(properties),
            "additionalProperties": False}


def document_events(spec: APISpec) -> None:
    """Register every event type's payload and envelope, and the ``Event`` union."""
    mapping = {}
    for name, event_type in REGISTRY.items():
        spec.components.schema(f"{name}Data", payload_schema(event_type))
        spec.components.schema(f"{name}Event", envelope_schema(event_type))
        mapping[name] = REF.format(f"{name}Event")
    spec.components.schema("Event", {
        "description": "One event of a match's log, redacted for the caller; `type` names "
                       "its kind (docs/events.md)",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping}})


def document_commands(spec: APISpec) -> None:
    """``Command``: what the log records as the cause of a group of events. A seat's
    action as it sent it (``SeatCommand``; ``auto`` when the clock played it for the
    seat, ``bot`` when a computer player holds the seat), or a control
    (``ControlCommand``: an organiser's forfeit or abort, the clock's forfeit, a seat's
    resignation), or a seat's answer to a rematch (``RematchCommand``)."""
    spec.components.schema("SeatCommand", {
        "type": "object", "additionalProperties": False, "required": ["seat", "action"],
        "description": "A seat's move, as sent (an Action)",
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "action": {"$ref": REF.format("Action")},
            "auto": {"type": "boolean", "description": "The clock played it for the seat "
                                                       "(on_timeout auto_play)"},
            "bot": {"type": "string", "enum": list(LEVELS),
                    "description": "A computer player of this level played it (the seat is "
                                   "a bot's: BotsSeated)"}}})
    spec.components.schema("ControlCommand", {
        "type": "object", "additionalProperties": False,
        "required": ["control", "reason", "by"],
        "description": "A match ended early (domain.controls)",
        "properties": {
            "control": {"type": "string", "enum": ["forfeit", "abort"]},
            "seat": {"type": "integer", "minimum": 0,
                     "description": "The seat that forfeits (forfeit only)"},
            "reason": {"type": "string"},
            "by": {"type": "string", "enum": list(BY),
                   "description": "organiser, clock, or seat (it resigned)"}}})
    spec.components.schema("RematchCommand", {
        "type": "object", "additionalProperties": False, "required": ["rematch", "seat"],
        "description": "A seat's answer to a rematch of the ended match (domain.rematch)",
        "properties": {
            "rematch": {"type": "string", "enum": [ACCEPT, DECLINE],
                        "description": "accept (an offer when nobody had offered) or "
                                       "decline"},
            "seat": {"type": "integer", "minimum": 0}}})
    spec.components.schema("Command", {
        "description": "A seat's action, a control or a rematch answer, as the log records it",
        "oneOf": [{"$ref": REF.format("SeatCommand")}, {"$ref": REF.format("ControlCommand")},
                  {"$ref": REF.format("RematchCommand")}]})


def variant_options_schemas() -> dict[str, dict[str, Any]]:
    """``<Variant>Options`` by component name: exactly the options of one variant, each
    with its type, default and range (``GET /v1/variants`` says the same at run time)."""
    from domain.variants import VARIANTS

    return {f"{name.capitalize()}Options": {
        "type": "object", "additionalProperties": False,
        "description": f"The options of a {name} match: a view and MatchCreated carry every "
                       "one, defaults filled in; a creation names only those it changes",
        "properties": {option["name"]: _option_property(option)
                       for option in variant.describe()["options"]}}
        for name, variant in VARIANTS.items()}


def options_schema(names: list[str]) -> dict[str, Any]:
    """``MatchOptions``: the options of the match's variant (its ``variant`` says which)."""
    return {"anyOf": [{"$ref": REF.format(name)} for name in names],
            "description": "Match options: those of the match's variant, one of "
                           + ", ".join(names)}


def _option_property(option: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": option["type"], "description": option["description"],
                           "default": option["default"]}
    if option["nullable"]:
        out["nullable"] = True
    if "choices" in option:
        out["enum"] = list(option["choices"])
    for bound in ("minimum", "maximum"):
        if bound in option:
            out[bound] = option[bound]
    return out


def document_options(spec: APISpec) -> None:
    by_variant = variant_options_schemas()
    for name, schema in by_variant.items():
        spec.components.schema(name, schema)
    spec.components.schema("MatchOptions", options_schema(list(by_variant)))
