"""Ending a match early (domain.controls): an organiser forfeits a seat or aborts the match;
a player resigns their own seat."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.control_schemas import AbortSchema, ForfeitSchema, ResignSchema
from service.api.schemas import ControlHeadersSchema, MatchViewSchema
from service.usecases.access import OWNER_CALLER, OWNER_OR_CREATOR_CALLER

blp = ApiBlueprint("controls", __name__, url_prefix="/v1/matches",
                   description="End a match early, as logged events: organiser controls, "
                               "and a player's resignation")


@blp.route("/<match_id>/forfeit")
class Forfeit(MethodView):
    @blp.arguments(ControlHeadersSchema, location="headers")
    @blp.arguments(ForfeitSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER, caller=OWNER_CALLER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, headers: dict[str, Any], body: dict[str, Any], match_id: str) -> Any:
        """Forfeit a seat: it loses and the match ends (the match's owner or the admin).

        Appends ``SeatForfeited`` (after revealing the current hand's seed and the match
        seed); returns the full view. With three or more players the forfeiting seat is
        ranked last and the others by their scores. An unknown seat is a 400
        ``unknown_seat``; a match already over a 422 ``match_over``; another organiser's
        match a 404; any other token a 403 ``owner_only``, before the body is read.

        A retry with the same ``Idempotency-Key`` gets the first answer, status and body,
        and changes nothing; the same key with another body is a 422
        ``idempotency_key_reused``.
        """
        return use_cases().play.forfeit(match_id, bearer_token(), body,
                                        headers.get("idempotency_key"))


@blp.route("/<match_id>/abort")
class Abort(MethodView):
    @blp.arguments(ControlHeadersSchema, location="headers")
    @blp.arguments(AbortSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER, caller=OWNER_OR_CREATOR_CALLER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, headers: dict[str, Any], body: dict[str, Any], match_id: str) -> Any:
        """Abort (void) a match: no winner, phase ``aborted`` (the owner or the admin).

        Appends ``MatchAborted`` after the seed reveals; returns the full view. A match
        already over is a 422 ``match_over``. A match still waiting for players may also
        be aborted with its ``creator_token``: it is called off (nothing was dealt, so
        nothing is logged), its views show phase ``aborted`` with ``ended.initiator``
        ``creator`` (or ``organiser``), claims and leaves answer 422 ``match_over``, its
        streams end, and it leaves the lobby. Any other token gets 403 ``creator_only``
        (``owner_only`` once the match has started), before the body is read.

        A retry with the same ``Idempotency-Key`` gets the first answer, status and body,
        and changes nothing; the same key with another body is a 422
        ``idempotency_key_reused``.
        """
        return use_cases().play.abort(match_id, bearer_token(), body,
                                      headers.get("idempotency_key"))


@blp.route("/<match_id>/resign")
class Resign(MethodView):
    @blp.arguments(ControlHeadersSchema, location="headers")
    @blp.arguments(ResignSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, headers: dict[str, Any], body: dict[str, Any], match_id: str) -> Any:
        """Resign: the caller's seat (its token) forfeits, and the match ends at once.

        Appends the seed reveals and ``SeatForfeited`` with ``by`` ``seat``, as a forfeit
        by the organiser does (with three or more players the resigning seat is ranked
        last and the others by their scores); returns the seat's view. ``reason`` is
        optional (``resigned``). Only a seat token of this match may: an organiser key is a
        403 ``seat_only``, a creator token or another match's seat token a 403 ``forbidden``
        (as for actions); a match already over is a 422 ``match_over``; one still waiting
        for players a 409 ``match_not_started``. A key is the seat's, shared with its
        actions.

        A retry with the same ``Idempotency-Key`` gets the first answer, status and body,
        and changes nothing; the same key with another body is a 422
        ``idempotency_key_reused``.
        """
        return use_cases().play.resign(match_id, bearer_token(), body["reason"],
                                       headers.get("idempotency_key"))
