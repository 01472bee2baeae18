"""Stream tickets: how a browser's ``EventSource``, which cannot send an Authorization
header, opens a stream as the seat (or organiser) it plays for.

A page holding a token asks for a ticket (``POST .../stream-tickets``) and opens
``.../stream?ticket=...``. A ticket is random, lives ``TICKET_TTL_S`` seconds, lets in one
request, and is bound to the match, the viewer and the very token it was issued to; only
its hash is stored. Long-lived tokens therefore never go into URLs (and so not into server
logs or browser history). To reconnect, a page asks for a new ticket and resumes with
``after``.

A ticket stops letting anybody in when its token does: a rotated seat token, a revoked
organiser key. It also stops when the match is over (finished, forfeited or aborted):
every card is public then, and the public stream needs no ticket.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from domain.viewer import Viewer
from service.credentials import token_hash
from service.ports import Tickets
from service.usecases.access import ORGANISER_CALLER, Access
from service.usecases.errors import Rejected, Unauthenticated

TICKET_TTL_S = 60
FULL = "full"
SEAT = "seat"


def _refused(why: str = "the stream ticket is unknown, expired or was used already; ask "
                        "for a new one") -> Unauthenticated:
    return Unauthenticated("invalid_ticket", why)


class StreamTickets:
    def __init__(self, store: Tickets, access: Access,
                 is_over: Callable[[str], bool]) -> None:
        self._store = store
        self._access = access
        self._is_over = is_over

    def for_match(self, match_id: str, token: str | None) -> dict[str, Any]:
        """A ticket for the caller's own view of the match's stream (a seat's or the
        organiser's); the public needs none, and nobody once the match is over."""
        viewer = self._access.viewer(match_id, token)
        if viewer.is_public or not token:
            raise Unauthenticated("missing_token", "a stream ticket is for a seat or the "
                                                   "organiser: send its bearer token")
        if self._is_over(match_id):
            raise Rejected("match_over", "the match is over: everything about it is public, "
                                         "so follow its stream without a ticket")
        ticket = secrets.token_urlsafe(24)
        kind = FULL if viewer.is_full else f"{SEAT}:{viewer.seat}"
        self._store.put_match(match_id, ticket, f"{kind}:{token_hash(token)}", TICKET_TTL_S)
        return {"ticket": ticket, "expires_in": TICKET_TTL_S}

    def viewer_of(self, match_id: str, ticket: str) -> tuple[Viewer, str]:
        """Who the ticket lets in, and the hash of the token it was issued to (the ticket
        is used up); ``Unauthenticated`` when it lets nobody in any more."""
        holder = self._store.take_match(match_id, ticket)
        if holder is None:
            raise _refused()
        kind, _, rest = holder.partition(":")
        if kind == FULL:
            viewer, digest = Viewer.full(), rest
            if not self._access.owns_by_hash(match_id, digest):
                raise _refused("the key this ticket was issued to was revoked")
        else:
            seat, _, digest = rest.partition(":")
            if kind != SEAT or not seat.isdigit() or not digest:
                raise _refused()
            viewer = Viewer.for_seat(int(seat))
            if not self._access.holds_seat(match_id, int(seat), digest):
                raise _refused("the seat's token was replaced after this ticket was issued")
        if self._is_over(match_id):
            raise _refused("the match is over: follow its stream without a ticket (it is "
                           "all public now)")
        return viewer, digest

    def for_feed(self, token: str | None) -> dict[str, Any]:
        """A ticket for the caller's lifecycle feed (an organiser key's, or the admin
        token's), bound to the very key that asked."""
        self._access.require_caller(token, ORGANISER_CALLER)
        assert token is not None  # require_caller refused every other caller
        organiser = self._access.organiser(token)
        ticket = secrets.token_urlsafe(24)
        self._store.put_feed(ticket, f"{organiser}:{token_hash(token)}", TICKET_TTL_S)
        return {"ticket": ticket, "expires_in": TICKET_TTL_S}

    def organiser_of(self, ticket: str) -> tuple[str, str]:
        """Whose feed the ticket opens, and the hash of the key it was issued to (the
        ticket is used up); ``Unauthenticated`` when it lets nobody in any more."""
        holder = self._store.take_feed(ticket)
        if holder is None:
            raise _refused()
        organiser, _, digest = holder.partition(":")
        if not digest:
            raise _refused()
        if self._access.organiser_by_hash(digest) != organiser:
            raise _refused("the key this ticket was issued to was revoked")
        return organiser, digest
