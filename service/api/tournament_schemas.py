"""Schemas of the tournament endpoints: listing, batches, results."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.api.inputs import JsonBoolean, Pattern, printable_text
from service.api.schemas import (
    TAGS_MAX,
    BonusSchema,
    MatchCreatedSchema,
    MatchCreateSchema,
    MatchMetadata,
    Verbatim,
    bot_field,
    tags_field,
)
from service.usecases.tournaments import CURSOR, STATUSES

BATCH_MAX = 64


def tag_filter() -> fields.String:
    return fields.String(validate=[validate.Length(min=1, max=64), printable_text])


# --- listing -----------------------------------------------------------------------------


class MatchListQuerySchema(Schema):
    tag = fields.List(tag_filter(), load_default=list, validate=validate.Length(max=TAGS_MAX),
                      metadata={"description": "Repeatable: only matches carrying every tag"})
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={
        "description": "live (being played), complete or aborted"})
    external_id = fields.String(validate=[validate.Length(min=1, max=128), printable_text])
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(validate=Pattern(CURSOR, error="not a cursor this API gave"),
                           metadata={"description": "next_cursor of the previous page"})


class ListedPlayerSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    external_id = fields.String(allow_none=True, required=True)
    bot = bot_field()


class MatchSummarySchema(MatchMetadata):
    id = fields.String(required=True)
    variant = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "live, complete or aborted"})
    phase = fields.String(required=True)
    version = fields.Integer(required=True)
    created_at = fields.Float(required=True, metadata={"description": "Epoch seconds"})
    players = fields.List(fields.Nested(ListedPlayerSchema), required=True)
    winner = fields.Integer(allow_none=True, metadata={"description": "Complete matches"})
    winners = fields.List(fields.Integer())
    final_scores = fields.List(fields.Integer())
    bonuses = Verbatim(BonusSchema, many=True)


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True, metadata={
        "description": "Send as cursor for the next page; null on the last page. A page "
                       "may hold fewer than limit matches even when more follow"})


# --- batches -----------------------------------------------------------------------------


class BatchCreateSchema(Schema):
    matches = fields.List(fields.Nested(MatchCreateSchema), required=True,
                          validate=validate.Length(min=1, max=BATCH_MAX), metadata={
        "description": "Each as the body of POST /v1/matches"})
    duplicate = JsonBoolean(load_default=False, metadata={
        "description": "Pair the matches (0, 1), (2, 3), ... for duplicate deals: the second "
                       "table of a pair has the first's variant, options and players (in "
                       "the same order; the server rotates them one seat) and deals every "
                       "hand from the first table's secrets"})
    tags = tags_field("Tags added to every match of the batch (batch:<id> is added too)")


class BatchCreatedSchema(Schema):
    id = fields.String(required=True)
    created_at = fields.Float(required=True)
    duplicate = fields.Boolean(required=True)
    tags = fields.List(fields.String(), required=True)
    matches = fields.List(fields.Nested(MatchCreatedSchema), required=True, metadata={
        "description": "Each match with its seat tokens (shown only once), in request order"})


class BatchSchema(Schema):
    id = fields.String(required=True)
    created_at = fields.Float(required=True)
    duplicate = fields.Boolean(required=True)
    tags = fields.List(fields.String(), required=True)
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)


# --- results -----------------------------------------------------------------------------


class ResultsQuerySchema(Schema):
    tag = fields.List(tag_filter(), required=True,
                      validate=validate.Length(min=1, max=TAGS_MAX), metadata={
        "description": "Repeatable: completed matches carrying every tag"})
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class ResultPlayerSchema(ListedPlayerSchema):
    final_score = fields.Integer(allow_none=True, required=True)
    winner = fields.Boolean(required=True)
    bonus = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The seat's end-of-match bonus total (gin, gem); null without bonuses"})


class MatchResultSchema(MatchMetadata):
    id = fields.String(required=True)
    variant = fields.String(required=True)
    created_at = fields.Float(required=True)
    players = fields.List(fields.Nested(ResultPlayerSchema), required=True)
    winner = fields.Integer(allow_none=True, required=True)
    winners = fields.List(fields.Integer(), required=True)
    final_scores = fields.List(fields.Integer(), required=True)
    bonuses = Verbatim(BonusSchema, many=True)


class ResultsSchema(Schema):
    matches = fields.List(fields.Nested(MatchResultSchema), required=True)
