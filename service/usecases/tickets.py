"""Stream tickets: how a browser's ``EventSource``, which cannot send an Authorization
header, opens a stream as the seat (or organiser) it plays for.

A page holding a token asks for a ticket (``POST .../stream-tickets``) and opens
``.../stream?ticket=...``. A ticket is random, lives ``TICKET_TTL_S`` seconds, lets in one
request, and is bound to the match and the viewer it was issued to; only its hash is
stored. Long-lived tokens therefore never go into URLs (and so not into server logs or
browser history). To reconnect, a page asks for a new ticket and resumes with ``after``.
"""

from __future__ import annotations

import secrets
from typing import Any

from domain.viewer import Viewer
from service.adapters.tickets import TicketStore
from service.usecases.access import Access
from service.usecases.errors import Unauthenticated

TICKET_TTL_S = 60
FULL = "full"


def _refused() -> Unauthenticated:
    return Unauthenticated("invalid_ticket", "the stream ticket is unknown, expired or was "
                                             "used already; ask for a new one")


class StreamTickets:
    def __init__(self, store: TicketStore, access: Access) -> None:
        self._store = store
        self._access = access

    def for_match(self, match_id: str, token: str | None) -> dict[str, Any]:
        """A ticket for the caller's own view of the match's stream (a seat's or the
        organiser's); the public needs none."""
        viewer = self._access.viewer(match_id, token)
        if viewer.is_public:
            raise Unauthenticated("missing_token", "a stream ticket is for a seat or the "
                                                   "organiser: send its bearer token")
        ticket = secrets.token_urlsafe(24)
        holder = FULL if viewer.is_full else f"seat:{viewer.seat}"
        self._store.put_match(match_id, ticket, holder, TICKET_TTL_S)
        return {"ticket": ticket, "expires_in": TICKET_TTL_S}

    def viewer_of(self, match_id: str, ticket: str) -> Viewer:
        """Who the ticket lets in (and it is used up); ``Unauthenticated`` otherwise."""
        holder = self._store.take_match(match_id, ticket)
        if holder is None:
            raise _refused()
        if holder == FULL:
            return Viewer.full()
        return Viewer.for_seat(int(holder.removeprefix("seat:")))

    def for_feed(self, organiser: str) -> dict[str, Any]:
        """A ticket for the organiser's lifecycle feed."""
        ticket = secrets.token_urlsafe(24)
        self._store.put_feed(ticket, organiser, TICKET_TTL_S)
        return {"ticket": ticket, "expires_in": TICKET_TTL_S}

    def organiser_of(self, ticket: str) -> str:
        organiser = self._store.take_feed(ticket)
        if organiser is None:
            raise _refused()
        return organiser
