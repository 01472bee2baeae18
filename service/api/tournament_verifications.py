"""Verifying a tournament on the server: its export checked in a ``replays`` job, as
``rummy verify`` checks it offline (docs/tournaments.md, Verifying a tournament)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import ApiBlueprint, use_cases
from service.api.tournament_verification_schemas import TournamentVerificationSchema

blp = ApiBlueprint("tournament_verifications", __name__, url_prefix="/v1/tournaments",
                   description="Verify a tournament on the server: its chain, every pairing, "
                               "every result")


@blp.route("/<tournament_id>/verifications")
class Verifications(MethodView):
    @blp.response(202, TournamentVerificationSchema)
    @blp.errors(404, 429)
    def post(self, tournament_id: str) -> Any:
        """Verify the tournament from its export with a ``replays`` job.

        Checks what ``rummy verify`` checks of ``GET /v1/tournaments/{id}/export``: the
        tournament's hash chain, every pairing against what the format makes of the
        results before it, and every recorded result against its table's own verified
        match log. Poll the returned resource (``Location``) until ``finished``.

        Anybody may ask, no token needed (a tournament is public). While a verification
        of the tournament log's present version is queued or running, asking again
        answers that one (same ``id`` and ``Location``, 202) instead of queueing another;
        once it has finished, asking again verifies afresh. Requests are limited per
        client address and per tournament (429 ``rate_limited``). A record is kept for a
        day after its last change, then its ``Location`` is a 404
        ``verification_not_found``.
        """
        created = use_cases().tournament_audits.request_verification(tournament_id)
        location = f"/v1/tournaments/{tournament_id}/verifications/{created['id']}"
        return created, 202, {"Location": location}


@blp.route("/<tournament_id>/verifications/<verification_id>")
class Verification(MethodView):
    @blp.response(200, TournamentVerificationSchema)
    @blp.errors(404)
    def get(self, tournament_id: str, verification_id: str) -> Any:
        """A verification: its status and, once finished, the report (kept a day)."""
        return use_cases().tournament_audits.verification(tournament_id, verification_id)
