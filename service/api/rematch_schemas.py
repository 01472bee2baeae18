"""Schemas of a rematch (domain.rematch, service.usecases.rematches)."""

from __future__ import annotations

from marshmallow import Schema, fields

from domain.rematch import DECLINED, NONE, OFFERED, STARTED
from service.api.schemas import bot_field


class RematchSeatSchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "The seat in the ended "
                                                                  "match"})
    name = fields.String(required=True)
    bot = bot_field()
    new_seat = fields.Integer(required=True, metadata={
        "description": "The seat this player holds in the rematch: one on, clockwise order "
                       "kept (seat 1 becomes seat 0; with two players the seats swap)"})


class RematchSchema(Schema):
    match_id = fields.String(required=True, metadata={"description": "The ended match"})
    status = fields.String(required=True, metadata={
        "enum": [NONE, OFFERED, DECLINED, STARTED],
        "description": "none: nobody has offered; offered: waiting for the seats in "
                       "`awaited`; declined: off for good; started: `new_match_id` is on"})
    offered_by = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The seat that offered the rematch"})
    accepted = fields.List(fields.Integer(), required=True, metadata={
        "description": "The seats that have accepted, in order: the offering seat first, "
                       "then the computer players (they accept with the offer)"})
    awaited = fields.List(fields.Integer(), required=True, metadata={
        "description": "The seats whose answer the rematch waits for (none once declined "
                       "or started)"})
    declined_by = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The seat that declined"})
    new_match_id = fields.String(allow_none=True, required=True, metadata={
        "description": "The rematch, once every seat has accepted"})
    seats = fields.List(fields.Nested(RematchSeatSchema), required=True, metadata={
        "description": "Every player, where they sit now and in the rematch"})
    seat = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The caller's seat in the ended match (null but for its holder)"})
    new_seat = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The caller's seat in the rematch (null but for a seat's holder)"})
    token = fields.String(allow_none=True, required=True, metadata={
        "description": "The caller's bearer token for `new_seat` of the rematch, once it "
                       "started: only for the holder of the seat's token in the ended "
                       "match, again at every ask; null for anybody else"})
