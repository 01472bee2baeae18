"""Organiser controls: forfeit a seat, abort a match (domain.controls)."""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from flask.views import MethodView

from service.api.base import ApiBlueprint
from service.api.control_schemas import AbortSchema, ForfeitSchema
from service.api.schemas import ErrorSchema, MatchViewSchema
from service.matches import MatchService

blp = ApiBlueprint("controls", __name__, url_prefix="/v1/matches",
                   description="Organiser controls: end a match early, as logged events")

AUTH: list[dict[str, list[str]]] = [{"bearerAuth": []}]


def _service() -> MatchService:
    return current_app.extensions["rummy"]


def _errors(*statuses: int) -> Any:
    def decorate(func: Any) -> Any:
        for status in statuses:
            func = blp.alt_response(status, schema=ErrorSchema)(func)
        return func
    return decorate


@blp.route("/<match_id>/forfeit")
class Forfeit(MethodView):
    @blp.arguments(ForfeitSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=AUTH)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Forfeit a seat: it loses and the match ends (the match's owner or the admin).

        Appends ``SeatForfeited`` (after revealing the current hand's seed and the match
        seed); returns the full view. With three or more players the forfeiting seat is
        ranked last and the others by their scores. An unknown seat is a 400
        ``unknown_seat``; a match already over a 422 ``match_over``; another organiser's
        match a 404; a seat token a 403.
        """
        return _service().forfeit(match_id, request.headers.get("Authorization"), body)


@blp.route("/<match_id>/abort")
class Abort(MethodView):
    @blp.arguments(AbortSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=AUTH)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Abort (void) a match: no winner, phase ``aborted`` (the owner or the admin).

        Appends ``MatchAborted`` after the seed reveals; returns the full view. A match
        already over is a 422 ``match_over``.
        """
        return _service().abort(match_id, request.headers.get("Authorization"), body)
