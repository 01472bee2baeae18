"""Schemas of the webhook and feed endpoints (openapi.yaml comes from them)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.api.inputs import Pattern, unicode_text
from service.api.schemas import TICKET
from service.ports import MAX_DELIVERIES
from service.ports import WEBHOOK_KINDS as KINDS

KIND_FIELD = fields.String(validate=validate.OneOf(KINDS))

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
WEBHOOK_URL = (rf"^[Hh][Tt][Tt][Pp][Ss]?://(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])"
               rf"(?::{_PORT})?(?:[/?#][!-~]*)?$")
"""A webhook endpoint: http(s), a host name or an IP address (v6 in brackets), maybe a
port, then the path and query in printable ASCII (percent-encode the rest). No user
info: deliveries send no credentials of the URL's."""
WEBHOOK_URL_MAX = 2048


class WebhookCreateSchema(Schema):
    url = fields.String(required=True, validate=[validate.Length(max=WEBHOOK_URL_MAX), Pattern(
        WEBHOOK_URL, error="must be an http(s) URL (printable ASCII, no user info)")],
                        metadata={"description": "http(s) endpoint that receives the POSTs"})
    secret = fields.String(required=True, load_only=True,
                           validate=[validate.Length(min=16, max=256), unicode_text],
                           metadata={"description": "HMAC-SHA256 key of X-Rummy-Signature; "
                                                    "never returned"})
    events = fields.List(KIND_FIELD, required=True, validate=validate.Length(min=1, max=len(KINDS)),
                         metadata={"description": f"kinds to receive: {', '.join(KINDS)}"})


class WebhookSchema(Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    created_at = fields.Float(required=True, metadata={"description": "Epoch seconds"})


class WebhookListSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


class DeliverySchema(Schema):
    id = fields.String(required=True, metadata={
        "description": "Sent as X-Rummy-Delivery; the same on every attempt"})
    webhook_id = fields.String(required=True)
    kind = fields.String(required=True)
    match_id = fields.String(required=True)
    message_id = fields.String(required=True, metadata={
        "description": "The lifecycle message's id (also in the feed)"})
    status = fields.String(required=True, metadata={
        "description": "pending, succeeded or failed"})
    attempts = fields.Integer(required=True)
    last_status_code = fields.Integer(allow_none=True, metadata={
        "description": "The HTTP status of the last answer; null when none came"})
    last_error = fields.String(allow_none=True, metadata={
        "description": "Why the last attempt failed: HTTP <status> for an answer that is not "
                       "2xx; unreachable for no HTTP answer at all, however it failed "
                       "(refused, timed out, no such name, or an address this server does "
                       "not deliver to)"})
    next_attempt_at = fields.Float(allow_none=True, metadata={
        "description": "Epoch seconds: while pending, the next attempt comes no sooner"})
    created_at = fields.Float(required=True)
    delivered_at = fields.Float(allow_none=True)
    last_attempt_at = fields.Float(allow_none=True, metadata={
        "description": "Epoch seconds when the last attempt started"})
    request_id = fields.String(allow_none=True, metadata={
        "description": "The X-Request-Id of the request that caused the delivery, sent with "
                       "every attempt as X-Request-Id; null for a delivery caused by "
                       "background work (a hand scored by a worker, a clock) and for "
                       "deliveries logged before this field existed"})


class DeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema), required=True)


class DeliveryQuerySchema(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_DELIVERIES),
                            metadata={"description": "Skip this many of the newest"})


class FeedQuerySchema(Schema):
    after = fields.String(validate=validate.Length(max=50), metadata={
        "description": "Only messages after this feed entry id (Last-Event-ID wins)"})
    tag = fields.List(fields.String(validate=validate.Length(max=200)), metadata={
        "description": "Repeatable: only matches carrying every one of these tags"})
    kind = fields.List(KIND_FIELD, metadata={
        "description": "Repeatable: only these kinds"})
    ticket = TICKET
