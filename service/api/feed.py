"""The lifecycle feed: Server-Sent Events of an organiser's match lifecycle messages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import current_app, request
from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, sse_response, use_cases
from service.api.schemas import ErrorSchema, TicketSchema
from service.api.webhook_schemas import FeedQuerySchema
from service.usecases.access import ORGANISER_CALLER
from service.usecases.errors import Invalid
from service.usecases.lifecycle import FeedItem, parse_entry_id
from service.usecases.live import Ended

blp = ApiBlueprint("feed", __name__, url_prefix="/v1/feed",
                   description="Lifecycle events of the caller's matches, live")


def _position(query: dict[str, Any]) -> str:
    """Where to resume: ``Last-Event-ID``, else ``?after=``, else the oldest message kept."""
    header = request.headers.get("Last-Event-ID", "").strip()
    source, text = ("Last-Event-ID", header) if header else ("after", query.get("after", ""))
    if not text:
        return "0-0"
    position = parse_entry_id(text)
    if position is None:
        raise Invalid("invalid_request", f"{source} must be a feed entry id "
                       "(as sent in `id:`)", {source: ["must be a feed entry id"]})
    return position


def _sse(items: Iterator[FeedItem]) -> Iterator[bytes]:
    yield b"retry: 2000\n\n"
    for item in items:
        if item is None:
            yield b": keep-alive\n\n"
            continue
        if isinstance(item, Ended):
            yield f"event: end\ndata: {json.dumps({'reason': item.reason})}\n\n".encode()
            return
        entry_id, message = item
        yield (f"id: {entry_id}\nevent: {message.get('kind')}\n"
               f"data: {json.dumps(message)}\n\n").encode()


@blp.route("")
class Feed(MethodView):
    @blp.arguments(FeedQuerySchema, location="query")
    @blp.doc(security=BEARER, ticket=True, responses={"200": {
        "description": "Server-Sent Events: `event: <kind>` (a match's hand_scored, "
                       "match_completed, match_forfeited, match_aborted; a tournament's "
                       "entrant_joined, tournament_started, round_paired, round_repaired, "
                       "tournament_match_recorded, round_completed, entrant_withdrawn, "
                       "tournament_completed, tournament_aborted), `id` "
                       "= the feed entry id, `data` = the message (as webhooks receive it; "
                       "docs/tournaments.md, Notices). Resume with "
                       "`Last-Event-ID` (or `?after=`); keep-alive comments when idle. "
                       "When the organiser key that opened the feed (or asked for its "
                       "ticket) is revoked: `event: end`, `data: {\"reason\": "
                       "\"key_revoked\"}`, no `id`, then the server closes the "
                       "connection (in every API process, within a second or two); the "
                       "key gets 401 from then on.",
        "content": {"text/event-stream": {"schema": {"type": "string"}}}}})
    @blp.alt_response(400, schema=ErrorSchema)
    @blp.alt_response(401, schema=ErrorSchema)
    @blp.alt_response(403, schema=ErrorSchema)
    @blp.alt_response(429, schema=ErrorSchema)
    def get(self, query: dict[str, Any]) -> Any:
        """Follow the lifecycle events of the caller's matches.

        An organiser key follows its own matches; the admin token follows the matches it
        created itself (owner ``admin``), not every organiser's. Each message is
        ``{id, kind, match_id, version, ts, owner, tags, external_id, data}`` as webhooks
        receive it. Filter with ``?tag=`` (repeatable; every one must match) and ``?kind=``
        (repeatable). The feed keeps about the last 5000 messages per organiser.
        """
        cases = use_cases()
        if query.get("ticket"):
            owner, credential = cases.tickets.organiser_of(query["ticket"])
        else:
            owner, credential = cases.streams.feed_caller(bearer_token())
        after = _position(query)
        keepalive = current_app.config["SETTINGS"].sse_keepalive_ms
        items = cases.streams.follow_feed(owner, credential, after, query.get("tag", []),
                                          query.get("kind", []), keepalive)
        return sse_response(_sse(items))


@blp.route("/tickets")
class FeedTickets(MethodView):
    @blp.response(201, TicketSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.alt_response(401, schema=ErrorSchema)
    @blp.alt_response(403, schema=ErrorSchema)
    @blp.alt_response(429, schema=ErrorSchema)
    def post(self) -> Any:
        """A ticket for ``GET /v1/feed?ticket=...`` (browsers): the caller's feed, once,
        within 60 seconds.

        Bound to the key that asked: once that key is revoked the ticket lets nobody in
        (401 ``invalid_ticket``).
        """
        return use_cases().tickets.for_feed(bearer_token())
