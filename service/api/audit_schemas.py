"""Schemas of auditing a log brought to the server (``POST /v1/audits``)."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.api.schemas import Verbatim, VerificationReportSchema
from service.usecases.uploaded_logs import MAX_STATES_BYTES


class AuditQuerySchema(Schema):
    states = fields.Boolean(load_default=False, metadata={
        "description": "Also return the table after each event (for a replay viewer)"})


class AuditSchema(Schema):
    """What ``rummy verify`` says of the log and, if asked, the table at each step."""

    report = Verbatim(VerificationReportSchema, required=True, metadata={
        "description": "The verdict, per check (docs/fairness.md), as `rummy verify --json` "
                       "prints it"})
    states = fields.List(fields.Dict(), metadata={
        "description": "With `states=true`: `states[i]` is the match right after event "
                       "`i + 1`, shaped like `GET /v1/matches/{id}/state` without the match's "
                       "id and metadata: public, and in full for hands whose seed the log "
                       "reveals. It stops at the first event that cannot be replayed "
                       "(redacted in the export, or refused by the rules), or where the "
                       f"tables would pass {MAX_STATES_BYTES} bytes of JSON"})
    states_note = fields.String(allow_none=True, metadata={
        "description": "Why `states` stops short of the log's end; null when it does not"})
