"""Schemas of organiser controls and match clocks (domain.controls, domain.clocks)."""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.clocks import MAX_SECONDS, MIN_SECONDS, ON_TIMEOUT
from domain.controls import REASON_MAX, RESIGNED
from service.api.inputs import JsonNumber
from service.api.plain_text import PlainText

SECONDS = validate.Range(min=MIN_SECONDS, max=MAX_SECONDS)


class ClockSchema(Schema):
    """A match clock: a per-turn limit and/or a per-seat time bank (docs/tournaments.md "Match
    controls and clocks")."""

    turn_seconds = JsonNumber(allow_none=True, validate=SECONDS, metadata={
        "description": "How long one turn may last (seconds); null: no per-turn limit",
        "example": 30})
    bank_seconds = JsonNumber(allow_none=True, validate=SECONDS, metadata={
        "description": "Each seat's time bank for the whole match (seconds): a turn's time "
                       "beyond turn_seconds (all of it without turn_seconds) is taken from "
                       "it; null: no bank", "example": 120})
    on_timeout = fields.String(load_default="forfeit", validate=validate.OneOf(ON_TIMEOUT),
                               metadata={"description": "What happens when a turn's deadline "
                                         "passes (turn_seconds plus the seat's bank left): "
                                         "forfeit: the seat forfeits, the match ends at once "
                                         "and the seat loses it (SeatForfeited, initiator "
                                         "clock); auto_play: the server plays a safe move for "
                                         "the seat (and forfeits it when no safe move exists)"})

    @validates_schema
    def _some_limit(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("turn_seconds") is None and data.get("bank_seconds") is None:
            raise ValidationError("a clock needs turn_seconds, bank_seconds or both",
                                  "turn_seconds")


def document_clock(spec: APISpec) -> None:
    """Register ``Clock`` with what ``_some_limit`` requires, a limit that is not null
    (``anyOf``), before the blueprints refer to it. Each branch only adds that condition
    (``additionalProperties: true``): the fields are ``Clock``'s own."""
    spec.components.schema("Clock", {"anyOf": [
        {"required": [limit], "properties": {limit: {"type": "number"}},
         "additionalProperties": True}
        for limit in ("turn_seconds", "bank_seconds")]}, schema=ClockSchema)


class ClockViewSchema(Schema):
    turn_seconds = fields.Float(allow_none=True, required=True)
    bank_seconds = fields.Float(allow_none=True, required=True)
    on_timeout = fields.String(required=True, metadata={
        "description": "What happens at the deadline: forfeit (the seat loses the match, "
                       "which ends at once) or auto_play (a safe move is played for it)"})
    turn_seat = fields.Integer(allow_none=True, metadata={
        "description": "The seat whose turn is running (null while a job is awaited or "
                       "the match is over)"}, required=True)
    turn_started_at = fields.Float(allow_none=True, required=True, metadata={
        "description": "Epoch seconds: the timestamp of the event that gave it the turn"})
    turn_started_version = fields.Integer(allow_none=True, metadata={
        "description": "The version of that event"}, required=True)
    deadline = fields.Float(allow_none=True, required=True, metadata={
        "description": "Epoch seconds: turn_started_at + turn_seconds + the seat's bank"})
    banks = fields.List(fields.Float(), allow_none=True, metadata={
        "description": "Each seat's bank left as of the running turn's start (null without "
                       "a bank)"}, required=True)


class EndedSchema(Schema):
    by = fields.String(metadata={"description": "forfeit or abort"}, required=True)
    seat = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The forfeited seat"})
    reason = fields.String(required=True)
    initiator = fields.String(required=True, metadata={
        "description": "organiser (the match's owner or the admin), clock (time ran out) "
                       "or seat (the player resigned)"})


def reason_field() -> PlainText:
    """Why a match ends (one field each: a shared one would be one YAML alias)."""
    return PlainText(max_length=REASON_MAX, required=True, metadata={
        "description": "Why (kept in the log)", "example": "no-show"})


class ForfeitSchema(Schema):
    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=63),
                          metadata={"description": "The seat that loses the match"})
    reason = reason_field()


class ResignSchema(Schema):
    reason = PlainText(max_length=REASON_MAX, load_default=RESIGNED, metadata={
        "description": "Why, in the player's words (kept in the log and shown to everyone)",
        "example": "had to go"})


class AbortSchema(Schema):
    reason = reason_field()
