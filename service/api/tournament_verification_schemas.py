"""Schemas of a tournament's verifications (``/v1/tournaments/{id}/verifications``): the
record and report a match's verification has, with the tournament's checks."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.api.schemas import CheckSchema, Verbatim, VerificationReportSchema


class TournamentCheckSchema(CheckSchema):
    name = fields.String(required=True, metadata={
        "description": "hash_chain (the tournament's log), pairings (every round from the "
                       "results before it), results (every recorded table from its match's "
                       "own log), duplicate_deals (with duplicate deals: every table of a "
                       "round dealt alike)"})
    notes = fields.List(fields.String(), required=True, metadata={
        "description": "What could not be checked and why (results past the point where "
                       "the pairings' replay stopped)"})


class TournamentVerificationReportSchema(VerificationReportSchema):
    events = fields.Integer(required=True, metadata={
        "description": "Events in the tournament's own log (its tables' logs not counted)"})
    final_phase = fields.String(allow_none=True, required=True, metadata={
        "description": "The tournament's status as far as the pairings replayed: running, "
                       "complete or aborted"})
    first_failing_version = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The version, in the tournament's log, of the first failure"})
    checks = fields.List(fields.Nested(TournamentCheckSchema), required=True)


class TournamentVerificationSchema(Schema):
    id = fields.String(required=True)
    tournament_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "queued, running or finished"})
    requested_at = fields.Float()
    version = fields.Integer(metadata={
        "description": "The tournament log's version when it was asked for: asking again "
                       "while this one is queued or running and the log is still at this "
                       "version answers this one. The job verifies the export as it stands "
                       "when it runs (the report's ``events``)."})
    report = Verbatim(TournamentVerificationReportSchema, metadata={
        "description": "Once finished: the verdict, per check, as `rummy verify --json` "
                       "prints it for the export (docs/tournaments.md, Verifying a "
                       "tournament)"})
