"""The actions a seat sends, one schema per kind, read by ``type``.

openapi.yaml documents ``Action`` as a ``oneOf`` of these kinds with a ``type``
discriminator, so a generated client cannot build ``{"type": "knock"}`` without its
discard. The server reads a body the same way: ``ActionSchema`` picks the kind's schema by
``type`` and loads with it, so an unknown field, a missing field or an unknown ``type`` is a
400 ``invalid_action`` (``error_code``), the same code the variant gives an action it does
not play (docs/api.md, errors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import make_schema_key
from marshmallow import Schema, ValidationError, fields, validate

from service.api.schemas import CardField

INVALID_ACTION = "invalid_action"
"""The one code of an action the server or the variant cannot read (400)."""


def _card(description: str, **kwargs: Any) -> CardField:
    return CardField(metadata={"description": description}, **kwargs)


def _kind(name: str) -> fields.String:
    """The ``type`` field of one kind: exactly its name."""
    return fields.String(required=True, validate=validate.OneOf((name,)))


def _cards(description: str) -> fields.List:
    return fields.List(_card("a card"), required=True, validate=validate.Length(min=1, max=40),
                       metadata={"description": description})


class PassActionSchema(Schema):
    """gin, gem: pass the upcard offer."""

    type = _kind("pass")


class DrawActionSchema(Schema):
    """Draw from the stock or take from the discard pile."""

    type = _kind("draw")
    source = fields.String(required=True, validate=validate.OneOf(("stock", "discard")))
    depth = fields.Integer(strict=True, validate=validate.Range(min=1, max=104), metadata={
        "description": "gem, 3 players: take the depth-th card from the top of the discard "
                       "pile and every card above it; 1, the top card, by default"})


class DiscardActionSchema(Schema):
    """Discard a card face up, ending the turn."""

    type = _kind("discard")
    card = _card("The card to discard", required=True)


class KnockActionSchema(Schema):
    """gin, gem: knock (or go gin), discarding face down."""

    type = _kind("knock")
    discard = _card("The card discarded face down", required=True)
    melds = fields.List(fields.List(_card("a card"), validate=validate.Length(min=1, max=11)),
                        allow_none=True, validate=validate.Length(max=11), metadata={
        "description": "Optional arrangement to show, as lists of cards (it must reach the "
                       "minimum deadwood)"})


class BigGinActionSchema(Schema):
    """gin, gem: declare big gin with the eleven cards held."""

    type = _kind("big_gin")


class NewMeldSchema(Schema):
    """rummy, rami: one meld to lay down."""

    cards = _cards("The physical cards; JK for a joker")
    represents = fields.List(_card("a card"), allow_none=True, validate=validate.Length(
        min=1, max=40), metadata={"description": "What each card stands for, in the same "
                                                "order; needed only when the meld holds a joker"})


class LayDownActionSchema(Schema):
    """rummy, rami: lay new melds on the table (the opening, or more melds once opened)."""

    type = _kind("lay_down")
    melds = fields.List(fields.Nested(NewMeldSchema), required=True,
                        validate=validate.Length(min=1, max=20))


class LayOffActionSchema(Schema):
    """rummy, rami: lay one card off onto a table meld."""

    type = _kind("lay_off")
    meld = fields.Integer(required=True, strict=True, validate=validate.Range(min=0), metadata={
        "description": "The table meld's id"})
    card = _card("The card laid off", required=True)
    represents = _card("A joker laid off: the card it stands for", allow_none=True)


class ExchangeJokerActionSchema(Schema):
    """rummy, rami: put the card a table joker stands for in its place and take the joker."""

    type = _kind("exchange_joker")
    meld = fields.Integer(required=True, strict=True, validate=validate.Range(min=0), metadata={
        "description": "The table meld's id"})
    card = _card("The card that replaces the joker", required=True)


KINDS: Mapping[str, type[Schema]] = {
    "pass": PassActionSchema, "draw": DrawActionSchema, "discard": DiscardActionSchema,
    "knock": KnockActionSchema, "big_gin": BigGinActionSchema,
    "lay_down": LayDownActionSchema, "lay_off": LayOffActionSchema,
    "exchange_joker": ExchangeJokerActionSchema,
}
"""Every action kind and its schema, in the order the spec lists them."""
_LOADERS = {schema: schema() for schema in KINDS.values()}
"""One instance of each action schema, made once (loading keeps no state on it)."""


class ActionSchema(Schema):
    """One action, read by the schema of its ``type`` (documented as the ``Action`` union).

    Its own fields are none: openapi.yaml's ``Action`` is registered by ``document_actions``.
    """

    error_code = INVALID_ACTION

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,  # type: ignore[override]
             unknown: str | None = None) -> Any:
        if not isinstance(data, Mapping):
            raise ValidationError({"_schema": ["an action is a JSON object"]})
        kind = data.get("type")
        schema = KINDS.get(kind) if isinstance(kind, str) else None
        if schema is None:
            raise ValidationError({"type": [f"must be one of: {', '.join(KINDS)}"]})
        return _LOADERS[schema].load(data)


def document_actions(spec: APISpec) -> None:
    """Register every kind and the ``Action`` union; ``ActionSchema`` then refers to it.

    Runs before the blueprints are documented, so ``@blp.arguments(ActionSchema)`` and the
    views' ``legal_actions`` items become ``$ref: Action``.
    """
    plugin = next(p for p in spec.plugins if isinstance(p, MarshmallowPlugin))
    mapping = {}
    for kind, schema in KINDS.items():
        name = schema.__name__.removesuffix("Schema")
        spec.components.schema(name, schema=schema)
        mapping[kind] = f"#/components/schemas/{name}"
    spec.components.schema("Action", {
        "description": "One move; `type` decides its shape. gin, gem: pass, draw, discard, "
                       "knock, big_gin; rummy, rami: draw, lay_down, lay_off, exchange_joker, "
                       "discard. An action the variant does not play is a 400 invalid_action",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping}})
    assert plugin.converter is not None  # set once the plugin is initialised with the spec
    plugin.converter.refs[make_schema_key(ActionSchema())] = "Action"
