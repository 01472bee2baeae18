"""Auditing a match: replay to any step, export the log, verify it with a replay job."""

from __future__ import annotations

from typing import Any

from flask import Response, request, stream_with_context
from flask.views import MethodView

from service.api.base import ANYONE, ApiBlueprint, bearer_token, use_cases
from service.api.schemas import MatchViewSchema, StateQuerySchema, VerificationSchema

blp = ApiBlueprint("audit", __name__, url_prefix="/v1/matches",
                   description="Replay a match to any step, export its log, verify it")


@blp.route("/<match_id>/state")
class State(MethodView):
    @blp.conditional
    @blp.arguments(StateQuerySchema, location="query")
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400, 401, 404)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The match as it stood right after event ``at``.

        Redacted for the caller like the live view (seat, public, or full for the
        organiser); once a hand's seed has been revealed, its states are shown in full to
        everyone. A version past the log's end is a 404 ``version_not_found``.
        """
        return use_cases().queries.state_at(match_id, bearer_token(), query["at"])


EXPORT_TYPES = ("application/x-ndjson", "application/octet-stream")
"""What an export is sent as: NDJSON, or plain bytes for clients (and generated clients)
that know no NDJSON type."""


@blp.route("/<match_id>/export")
class Export(MethodView):
    @blp.doc(security=ANYONE, responses={"200": {
        "description": "NDJSON: one event per line, as in /events (version, hashes, command, "
                       "redacted), keys sorted. Check it offline with `rummy verify FILE`. "
                       "`application/x-ndjson` unless the request's Accept prefers "
                       "`application/octet-stream` (the same bytes).",
        "content": {ndjson: {"schema": {"type": "string", "format": "binary"}}
                    for ndjson in EXPORT_TYPES}}})
    @blp.errors(401, 404)
    def get(self, match_id: str) -> Any:
        """The whole log for archiving, redacted for the caller like /events."""
        lines = use_cases().queries.export(match_id, bearer_token())
        kind = request.accept_mimetypes.best_match(EXPORT_TYPES) or EXPORT_TYPES[0]
        return Response(stream_with_context(lines), mimetype=kind,
                        headers={"Content-Disposition":
                                 f'attachment; filename="{match_id}.ndjson"'})


@blp.route("/<match_id>/verifications")
class Verifications(MethodView):
    @blp.response(202, VerificationSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(401, 404, 409, 422, 429)
    def post(self, match_id: str) -> Any:
        """Verify the match from its full log with a ``replays`` job.

        Checks the hash chain, every deal against its seed commitment and revealed seed,
        every seat's events against the rules, and every score against a fresh
        recomputation. Poll the returned resource (``Location``) until ``finished``.

        Anybody who may see the match may ask, no token needed. While a verification of
        the log's present version is queued or running, asking again answers that one
        (same ``id`` and ``Location``, 202) instead of queueing another; once it has
        finished, asking again verifies the log afresh. Requests are limited per client
        address and per match (429 ``rate_limited``). A record is kept for a day after
        its last change, then its ``Location`` is a 404 ``verification_not_found``.
        """
        created = use_cases().audits.request_verification(match_id, bearer_token())
        location = f"/v1/matches/{match_id}/verifications/{created['id']}"
        return created, 202, {"Location": location}


@blp.route("/<match_id>/verifications/<verification_id>")
class Verification(MethodView):
    @blp.response(200, VerificationSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(401, 404)
    def get(self, match_id: str, verification_id: str) -> Any:
        """A verification: its status and, once finished, the report (kept a day)."""
        return use_cases().audits.verification(match_id, verification_id, bearer_token())
