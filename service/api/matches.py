"""Matches: create, view, act, read the log, follow it live (Server-Sent Events)."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request, url_for
from flask.views import MethodView

from service.api.action_schemas import ActionSchema
from service.api.base import (
    ANYONE,
    BEARER,
    ApiBlueprint,
    bearer_token,
    reads_ahead,
    sse_response,
    use_cases,
)
from service.api.schemas import (
    MAX_VERSION,
    ActionCheckSchema,
    ActionHeadersSchema,
    EventListSchema,
    EventQuerySchema,
    MatchCreatedSchema,
    MatchCreateSchema,
    MatchViewSchema,
    StreamQuerySchema,
    TicketSchema,
)
from service.api.tournament_schemas import MatchListQuerySchema, MatchListSchema
from service.usecases.access import ORGANISER_CALLER
from service.usecases.errors import Invalid

blp = ApiBlueprint("matches", __name__, url_prefix="/v1/matches",
                   description="Create matches, play them move by move, follow them live")


@blp.route("")
class Matches(MethodView):
    @blp.arguments(MatchCreateSchema)
    @blp.response(201, MatchCreatedSchema, headers={"Location": {
        "description": "The new match's view (GET)", "schema": {"type": "string"}}})
    @blp.doc(security=ANYONE)
    @blp.errors(400, 401, 403, 429)
    def post(self, body: dict[str, Any]) -> Any:
        """Create a match and deal its first hand.

        Returns each seat's bearer token once. ``seed`` and ``deck`` need the organiser
        (admin) token.
        """
        created = use_cases().creation.create(body, bearer_token())
        return created, 201, {"Location": url_for("matches.Match", match_id=created["id"])}

    @blp.arguments(MatchListQuerySchema, location="query")
    @blp.response(200, MatchListSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403)
    def get(self, query: dict[str, Any]) -> Any:
        """List matches, newest first: an organiser key's own, or every match for the admin.

        Filters: ``tag`` (repeatable; every one must match), ``status`` (live, complete,
        aborted), ``external_id``. Pages of at most ``limit``; follow ``next_cursor`` until
        it is null (a page may be short when filters skip many matches). Seat tokens and
        anonymous callers get 403/401 ``organiser_only``.
        """
        return use_cases().tournaments.find(bearer_token(), query["tag"], query.get("status"),
                                           query.get("external_id"), query["limit"],
                                           query.get("cursor"))


@blp.route("/<match_id>")
class Match(MethodView):
    @blp.conditional
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(401, 404)
    @reads_ahead
    def get(self, match_id: str) -> Any:
        """The match: public without a token, a seat's view with its token, full for the admin."""
        return use_cases().queries.view(match_id, bearer_token())


def _version_header(header: str, text: str, what: str) -> int:
    """A version sent in a header: ASCII digits, at most ``MAX_VERSION``, else a 400.

    ``str.isdigit`` alone also passes ``"²"`` and 5000-digit numbers, which ``int`` refuses,
    and a version past ``MAX_VERSION`` is no Redis stream id: each of those was a 500.
    """
    if (not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_VERSION))
            or int(text) > MAX_VERSION):
        raise Invalid("invalid_request", f"{header} must be {what} (an integer)",
                       {header: ["must be an integer version"]})
    return int(text)


def _if_match(headers: dict[str, Any]) -> int | None:
    raw = headers.get("if_match")
    if raw is None:
        return None
    text = raw.strip().removeprefix("W/").strip('"')
    return _version_header("If-Match", text, "a match version")


@blp.route("/<match_id>/actions")
class Actions(MethodView):
    @blp.arguments(ActionHeadersSchema, location="headers")
    @blp.arguments(ActionSchema)
    @blp.response(200, MatchViewSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403, 404, 409, 422, 429)
    def post(self, headers: dict[str, Any], action: dict[str, Any], match_id: str) -> Any:
        """Play one action for the seat whose token is sent; returns that seat's new view.

        The view is as of the version the action created (background jobs may add more).
        Action shapes by variant: gin ``pass``, ``draw`` (``source``), ``discard``
        (``card``), ``knock`` (``discard``, optional ``melds``), ``big_gin``; gem the same,
        with a deep draw ``{"type": "draw", "source": "discard", "depth": N}`` (3 players);
        rummy/rami ``draw``, ``lay_down`` (``melds`` of ``{cards, represents}``),
        ``lay_off`` (``meld``, ``card``, ``represents`` for a joker), ``exchange_joker``
        (``meld``, ``card``), ``discard``. The seat's ``legal_actions`` lists them ready
        to send. A malformed action for the variant is a 400 ``invalid_action``.

        An illegal move is a 422 whose ``code`` is one of: ``not_your_turn``,
        ``wrong_phase``, ``must_take_or_pass_upcard``, ``must_draw_from_stock``,
        ``discard_pile_empty``, ``card_not_in_hand``, ``must_not_discard_taken_card``,
        ``deadwood_over_limit``, ``invalid_melds``, ``melds_not_minimal``, ``not_big_gin``,
        ``big_gin_disabled``, ``idempotency_key_reused``; gem adds ``invalid_depth``,
        ``deep_draw_not_allowed``, ``discard_pile_too_short``, ``deep_card_cannot_meld``,
        ``deep_card_must_meld``; rummy/rami add ``stock_empty``, ``last_card_rule``,
        ``joker_must_be_placed``, ``joker_discard``, ``not_opened``, ``must_keep_a_card``,
        ``joker_cannot_be_placed``, ``too_early_to_open``, ``opening_too_low``,
        ``unknown_meld``, ``joker_not_declared``, ``invalid_lay_off``, ``invalid_exchange``,
        ``invalid_meld``, ``meld_too_short``, ``too_many_jokers``, ``adjacent_jokers``. A
        stale ``If-Match`` is a 409 ``version_conflict``.

        Every retry with the same ``Idempotency-Key`` (per seat) gets the first request's
        answer, status and body, a refusal included, and appends nothing; a retry sent while
        the first is still in flight waits for its answer (up to 10 s, then 409
        ``request_in_flight``). The same key with another action is a 422
        ``idempotency_key_reused``.
        """
        return use_cases().play.act(match_id, bearer_token(), action, _if_match(headers),
                             headers.get("idempotency_key"))


@blp.route("/<match_id>/actions/check")
class ActionCheck(MethodView):
    @blp.arguments(ActionSchema)
    @blp.response(200, ActionCheckSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403, 404, 409, 422, 429)
    def post(self, action: dict[str, Any], match_id: str) -> Any:
        """What an action would do now, without doing it (nothing is appended).

        For a front end that lets a player compose a move (rummy's melds, lay-offs, joker
        exchanges) and wants the server's word before sending it: ``legal`` with the
        ``events`` it would append (a lay-down's ``MeldsLaidDown`` carries its ``value``
        and whether it is the ``opening``), or ``legal: false`` with the ``code`` and
        ``message`` ``/actions`` would refuse it with. A check shows nothing the seat
        cannot see: the events are shown as the public would see them (never the next
        stock card), and a knock's ``melds`` are picked from the knocker's own cards
        (the knock itself picks among equal arrangements by what the defenders could lay
        off, docs/rules.md 1.5, so its melds may differ, never its deadwood). ``version`` is the
        version the check was made at: send it as ``If-Match`` with the action. A
        malformed action is a 400 ``invalid_action``, as for ``/actions``.
        """
        return use_cases().play.check(match_id, bearer_token(), action)


@blp.route("/<match_id>/events")
class Events(MethodView):
    @blp.conditional
    @blp.arguments(EventQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400, 401, 404)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The event log, redacted for the caller like the views (full with the admin token)."""
        return {"events": use_cases().queries.events(match_id, bearer_token(), query["after"])}


_ENCODED: OrderedDict[int, tuple[dict[str, Any], bytes]] = OrderedDict()
"""SSE bytes of the last events sent, by the rendered dict's identity (the dict is kept with
its bytes, so the id cannot be reused while cached): streams of one match shown the same
rendering (service/usecases/live.py) encode it once."""
_ENCODED_MAX = 1024


def _event_text(item: dict[str, Any]) -> bytes:
    found = _ENCODED.get(id(item))
    if found is not None and found[0] is item:
        return found[1]
    text = f"id: {item['version']}\nevent: {item['type']}\ndata: {json.dumps(item)}\n\n".encode()
    _ENCODED[id(item)] = (item, text)
    if len(_ENCODED) > _ENCODED_MAX:
        _ENCODED.popitem(last=False)
    return text


def _sse(items: Iterator[dict[str, Any] | None]) -> Iterator[bytes]:
    yield b"retry: 2000\n\n"
    for item in items:
        if item is None:
            yield b": keep-alive\n\n"
        elif "presence" in item:  # no id: presence must not move a client's Last-Event-ID
            yield f"event: presence\ndata: {json.dumps(item['presence'])}\n\n".encode()
        elif "end" in item:
            yield f"event: end\ndata: {json.dumps(item['end'])}\n\n".encode()
        else:
            yield _event_text(item)


@blp.route("/<match_id>/stream-tickets")
class StreamTickets(MethodView):
    @blp.response(201, TicketSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404, 422, 429)
    def post(self, match_id: str) -> Any:
        """A stream ticket, for browsers: ``GET .../stream?ticket=...`` then streams what
        the token's holder (a seat, or the organiser) may see.

        Single use, for 60 seconds, bound to this match, this viewer and the very token
        that asked; only its hash is kept. It lets nobody in once that token is rotated
        (or the organiser key revoked), or once the match is over (401 ``invalid_ticket``);
        a finished match issues none (422 ``match_over``: its stream is public). To
        reconnect, ask for a new ticket and resume with ``after`` (the last event id
        received). The public needs no ticket.
        """
        return use_cases().tickets.for_match(match_id, bearer_token())


@blp.route("/<match_id>/stream")
class Stream(MethodView):
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.doc(security=ANYONE, responses={"200": {
        "description": "Server-Sent Events: one `event: <type>` per stored event, `id` = its "
                       "version, `data` = the redacted event as in /events. Resume with "
                       "`Last-Event-ID` (or `?after=`). Ends after the match's last event "
                       "(MatchCompleted, SeatForfeited or MatchAborted). The event names "
                       "are the event types of docs/events.md: a browser subscribes to "
                       "each with `addEventListener(type, ...)`. Presence, which is not a "
                       "game fact: `event: presence`, `data: {\"seat\": n, \"online\": "
                       "bool}` when a seat's first stream opens or its last one closes, "
                       "with no `id` (it does not move `Last-Event-ID`); every stream, the "
                       "public's too, gets it. The stream's own end: `event: end`, `data: "
                       "{\"reason\": ...}`, no `id`, then the server closes the connection: "
                       "`match_over` after the match's last event, `token_rotated` when the "
                       "seat token (or the ticket's token) that opened the stream was "
                       "rotated, `key_revoked` when the organiser key (or the ticket's "
                       "key) that opened it was revoked, within a second or two in every "
                       "API process (nothing appended after reaches it); do not reconnect "
                       "with the same credentials.",
        "content": {"text/event-stream": {"schema": {
            "type": "string", "description": "Server-Sent Events; each stored event's "
                                             "`data:` is one Event (JSON), the same as an "
                                             "item of /events",
            "x-sse-data": {"$ref": "#/components/schemas/Event"}}}}},
        "204": {"description": "The match is over and every event up to its last was "
                               "sent (`Last-Event-ID`/`after`): nothing more will come, "
                               "so `EventSource` stops reconnecting. Answered before a "
                               "ticket is checked, so the reconnect of an `EventSource` "
                               "whose ticket was used up stops too."}})
    @blp.errors(400, 401, 404, 429)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """Follow the match live: new events for the caller, redacted.

        The caller is the bearer token's holder, or a stream ticket's (``?ticket=``), or
        the public.
        """
        after = query["after"]
        last = request.headers.get("Last-Event-ID", "").strip()
        if last:
            after = _version_header("Last-Event-ID", last, "an event version")
        keepalive = current_app.config["SETTINGS"].sse_keepalive_ms
        cases = use_cases()
        if query.get("ticket"):
            if cases.queries.is_over_for(match_id, after):
                return Response(status=204)
            viewer, credential = cases.tickets.viewer_of(match_id, query["ticket"])
            items = cases.streams.follow_as(match_id, viewer, after, keepalive, credential)
        else:
            items = cases.streams.follow(match_id, bearer_token(), after, keepalive)
        if items is None:
            return Response(status=204)
        return sse_response(_sse(items))

