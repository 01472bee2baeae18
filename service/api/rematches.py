"""A rematch of an ended match: offered, accepted, declined and followed with the seats'
tokens (service.usecases.rematches)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import ANYONE, BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.rematch_schemas import RematchSchema

blp = ApiBlueprint("rematches", __name__, url_prefix="/v1/matches",
                   description="A rematch of an ended match: the same table, seats moved on")


@blp.route("/<match_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, RematchSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(401, 403, 404, 409, 422)
    def get(self, match_id: str) -> Any:
        """Where the rematch stands: who offered, who accepted, who is awaited, and once
        every seat has accepted, the new match.

        With a seat token of the ended match the answer adds the caller's ``seat``,
        ``new_seat`` and, once started, ``token``: the caller's bearer token in the new
        match, given again at every ask and to that holder only. The public, the match's
        organiser and its creator token get the same answer without a token. A match still
        being played is a 409 ``match_not_finished``; one aborted, or called off before it
        started, a 422 ``no_rematch``; one waiting for players a 409 ``match_not_started``.
        """
        return use_cases().rematches.state(match_id, bearer_token())

    @blp.response(200, RematchSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404, 409, 422, 429)
    def post(self, match_id: str) -> Any:
        """Offer a rematch (nobody has yet) or accept the one on offer, with a seat token.

        Computer players accept with the offer. The acceptance that completes the table
        creates the new match: same variant, options, clock, tags and players, each player
        one seat on (seat 1 becomes seat 0, clockwise order kept: with two players the
        seats swap), a fresh shuffle; the answer then carries the caller's ``token`` for
        ``new_seat``. Accepting again changes nothing and answers the same. Only a seat
        token of this match may: an organiser key, a creator token or another match's
        seat token is a 403 ``forbidden``. A match still being played is a 409
        ``match_not_finished``; a declined rematch a 409 ``rematch_declined``; a match
        aborted, or called off before it started, a 422 ``no_rematch``.
        """
        return use_cases().rematches.accept(match_id, bearer_token())

    @blp.response(200, RematchSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404, 409, 422, 429)
    def delete(self, match_id: str) -> Any:
        """Decline the rematch, with a seat token: it is off for everyone, for good (a
        later offer is a 409 ``rematch_declined``; start a new match instead). Declining
        again changes nothing; a rematch that has started is a 409 ``rematch_started``.
        Who may, and the other refusals, as for offering.
        """
        return use_cases().rematches.decline(match_id, bearer_token())
