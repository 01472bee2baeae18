"""Organiser controls: forfeit a seat, abort a match (domain.controls)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.control_schemas import AbortSchema, ForfeitSchema
from service.api.schemas import MatchViewSchema

blp = ApiBlueprint("controls", __name__, url_prefix="/v1/matches",
                   description="Organiser controls: end a match early, as logged events")


@blp.route("/<match_id>/forfeit")
class Forfeit(MethodView):
    @blp.arguments(ForfeitSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Forfeit a seat: it loses and the match ends (the match's owner or the admin).

        Appends ``SeatForfeited`` (after revealing the current hand's seed and the match
        seed); returns the full view. With three or more players the forfeiting seat is
        ranked last and the others by their scores. An unknown seat is a 400
        ``unknown_seat``; a match already over a 422 ``match_over``; another organiser's
        match a 404; a seat token a 403.
        """
        return use_cases().play.forfeit(match_id, bearer_token(), body)


@blp.route("/<match_id>/abort")
class Abort(MethodView):
    @blp.arguments(AbortSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Abort (void) a match: no winner, phase ``aborted`` (the owner or the admin).

        Appends ``MatchAborted`` after the seed reveals; returns the full view. A match
        already over is a 422 ``match_over``.
        """
        return use_cases().play.abort(match_id, bearer_token(), body)
