"""Open seats and the lobby: list waiting matches, claim a seat, replace a seat's token."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import ANYONE, BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.schemas import (
    ClaimedSeatSchema,
    ClaimSchema,
    ControlHeadersSchema,
    LeftSeatSchema,
    LobbyQuerySchema,
    LobbySchema,
    RotatedTokenSchema,
)

blp = ApiBlueprint("seats", __name__, url_prefix="/v1",
                   description="Open seats, the lobby, and seat tokens")


@blp.route("/lobby")
class Lobby(MethodView):
    @blp.arguments(LobbyQuerySchema, location="query")
    @blp.response(200, LobbySchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400)
    def get(self, query: dict[str, Any]) -> Any:
        """Matches waiting for players, newest first, each as its public view (phase
        ``waiting``; ``open_seats``, ``invite_only``). Follow ``next_cursor`` until null.

        Each says whether its creator is at the table now (``creator_present``) and when
        they were last seen (``creator_seen_at``). A waiting match leaves the lobby when
        its last seat is taken, when nobody has claimed a seat for a day (it then no
        longer exists), or when its creator has been gone for ``RUMMY_LOBBY_ABANDON_S``
        (default 120 s): no page of a seat they named open, no read with its token. It is
        then called off (phase ``aborted``, reason ``creator left``), and claims answer
        422 ``match_over``.
        """
        return use_cases().seats.listing(query.get("variant"), query["limit"],
                                       query.get("cursor"))


@blp.route("/matches/<match_id>/seats/<int:seat>/claim")
class Claim(MethodView):
    @blp.arguments(ClaimSchema)
    @blp.response(201, ClaimedSeatSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400, 403, 404, 409, 422, 429)
    def post(self, body: dict[str, Any], match_id: str, seat: int) -> Any:
        """Take an open seat of a waiting match; returns the seat's bearer token, once.

        Needs no token; with the ``invite_code`` when the creator set one (else 403
        ``invalid_invite``). A seat somebody holds is a 409 ``seat_taken``; a seat number
        the match does not have is a 404 ``seat_not_found``. The claim that takes the last
        open seat deals the first hand (``started``: true); until then the match's phase is
        ``waiting`` and actions answer 409 ``match_not_started``. Seat views, ``/events``
        and ``/stream`` already work with the token while the match waits. A match its
        creator called off is a 422 ``match_over``. A name another seat has is a 409
        ``name_taken``; one that shows nothing a 400 ``invalid_name``.
        """
        return use_cases().seats.claim(match_id, seat, body)


@blp.route("/matches/<match_id>/seats/<int:seat>/leave")
class Leave(MethodView):
    @blp.arguments(ControlHeadersSchema, location="headers")
    @blp.response(200, LeftSeatSchema)
    @blp.doc(security=BEARER, retried_after_forgotten=True)
    @blp.errors(401, 403, 404, 409, 422)
    def post(self, headers: dict[str, Any], match_id: str, seat: int) -> Any:
        """Give back an open seat you claimed, before the match starts (the seat's token).

        The seat is open again and listed in the lobby; the token is refused (401) from
        now on, and a stream it opened ends with ``event: end`` ``{"reason":
        "seat_left"}``. Another seat's token is a 403 ``not_your_seat``; a seat the
        creator named a 409 ``seat_named``; a match that has started a 409
        ``match_started`` (resign instead); one its creator called off a 422
        ``match_over``.

        While the match waits, a retry with the same ``Idempotency-Key`` and token gets the
        first answer, though the token is refused everywhere else by then; the same key
        for another seat is a 422 ``idempotency_key_reused``.
        """
        return use_cases().seats.leave(match_id, seat, bearer_token(),
                                       headers.get("idempotency_key"))


@blp.route("/matches/<match_id>/seats/<int:seat>/token")
class SeatToken(MethodView):
    @blp.response(200, RotatedTokenSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404, 409)
    def post(self, match_id: str, seat: int) -> Any:
        """Replace a seat's token (a lost or leaked one): the old token is refused (401)
        from now on, in every API process.

        For the match's organiser (or the admin) or the holder of its ``creator_token``
        (returned at creation); anybody else gets 403 ``creator_only``. An open seat has no
        token to replace: 409 ``seat_open``.
        """
        return use_cases().seats.rotate(match_id, seat, bearer_token())
