"""Following a match live: its events for a viewer as they are appended (Server-Sent
Events in the API), and the organisers' lifecycle feed.

Each event is rendered through the queries' one redaction path, once per event and viewer
in a process (``LiveStreams.rendered``). A seat's stream ends when its token is rotated,
a stream opened with an organiser key (the full view, the feed) when the key is revoked,
and every stream after the match's last event (``{"end": {"reason"}}``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from domain.controls import TERMINAL_EVENTS
from domain.variant import Variant
from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.credentials import token_hash
from service.ports import ADMIN
from service.usecases.access import ORGANISER_CALLER
from service.usecases.errors import Unauthenticated
from service.usecases.lifecycle import Feed, FeedItem, follow_feed
from service.usecases.live import MATCH_OVER, Ended, LiveStreams, SeatHolder
from service.usecases.queries import HandIndex, MatchQueries
from service.usecases.revocation import KeyHolder
from service.usecases.seats import MatchCalledOff, MatchNotStarted


class MatchStreams:
    """Live streams of matches and of the organisers' feeds, for this process."""

    def __init__(self, queries: MatchQueries, live: LiveStreams, feed: Feed) -> None:
        self.queries = queries
        self.live = live
        self.feed = feed

    def feed_caller(self, token: str | None) -> tuple[str, str]:
        """Whose feed ``token`` follows (an organiser key's organiser, or the admin's own
        matches) and the token's hash; 401/403 ``organiser_only`` for anybody else."""
        self.queries.access.require_caller(token, ORGANISER_CALLER)
        owner = self.queries.access.organiser(token)
        if token is None or owner is None:  # revoked since require_caller looked it up
            raise Unauthenticated("invalid_token", "the organiser key was revoked")
        return owner, token_hash(token)

    def follow_feed(self, owner: str, credential: str, after: str, tags: Sequence[str],
                    kinds: Sequence[str], keepalive_ms: int) -> Iterator[FeedItem]:
        """The organiser's lifecycle feed after ``after`` (``lifecycle.follow_feed``);
        ``credential`` is the hash of the key that opened it (or of the ticket's key),
        whose revocation ends it."""
        holder = None if owner == ADMIN else self._key_holder(owner, credential)
        return follow_feed(self.live.hub, self.feed, owner, after, tags, kinds, keepalive_ms,
                           holder)

    def follow(self, match_id: str, token: str | None, after: int,
               keepalive_ms: int) -> Iterator[dict[str, Any] | None] | None:
        """New events for the caller as they are appended; None marks a keep-alive tick.

        Authorises now (so errors come before the stream starts); the stream ends after
        the match's final event has been sent. None when the match is over and the caller
        has every event: nothing will ever come (HTTP 204, so a browser stops reconnecting).
        """
        viewer = self.queries.access.viewer(match_id, token)
        credential = token_hash(token) if token and not viewer.is_public else None
        return self.follow_as(match_id, viewer, after, keepalive_ms, credential)

    def follow_as(self, match_id: str, viewer: Viewer, after: int, keepalive_ms: int,
                  credential: str | None = None) -> Iterator[dict[str, Any] | None] | None:
        """``follow`` for a viewer already known (a stream ticket's); ``credential`` is the
        hash of the token that opened the stream: a seat token, whose rotation ends it, or
        an organiser key, whose revocation ends it. A match waiting for players is
        followed from its start: the first events come when the last seat is claimed."""
        holder = self._holder(match_id, viewer, credential)
        try:
            loaded = self.queries.load(match_id)
        except MatchCalledOff:
            return None  # called off before it started: nothing will ever come
        except MatchNotStarted as waiting:
            return self._follow(match_id, VARIANTS[waiting.lobby.variant], viewer, after,
                                keepalive_ms, holder)
        if loaded.is_over and after >= loaded.played_version:
            return None  # a rematch's events after the end are not the stream's
        return self._follow(match_id, loaded.variant, viewer, after, keepalive_ms, holder)

    def _holder(self, match_id: str, viewer: Viewer,
                credential: str | None) -> SeatHolder | KeyHolder | None:
        """Whose credential a stream holds: a seat's token, an organiser's key, or nothing
        that can be taken back (the public, the admin token)."""
        if credential is None or viewer.is_public:
            return None
        access = self.queries.access
        if viewer.seat is not None:
            return SeatHolder(viewer.seat, credential,
                              partial(access.holds_seat, match_id, viewer.seat, credential))
        organiser = access.organiser_by_hash(credential)
        return None if organiser == ADMIN else self._key_holder(organiser, credential)

    def _key_holder(self, organiser: str | None, credential: str) -> KeyHolder:
        if organiser is None:  # revoked since the request was authorised
            raise Unauthenticated("invalid_token", "the organiser key was revoked")
        return KeyHolder(organiser, credential, self.queries.access.organisers)

    def _follow(self, match_id: str, variant: Variant, viewer: Viewer, after: int,
                keepalive_ms: int,
                holder: SeatHolder | KeyHolder | None) -> Iterator[dict[str, Any] | None]:
        """Events rendered for ``viewer`` as the process's live hub delivers them; presence
        messages come as ``{"presence": {...}}``, and the stream's end as ``{"end":
        {"reason"}}``: ``match_over`` after the match's last event, ``token_rotated`` when
        the seat's token was replaced, ``key_revoked`` when the organiser key that opened
        it was revoked. Closing the generator (the client went away) unsubscribes it and
        ends the seat's presence."""
        hands = HandIndex(self.queries.repository.stored(match_id))
        for batch in self.live.follow(match_id, after, keepalive_ms, holder):
            if isinstance(batch, Ended):
                yield {"end": {"reason": batch.reason}}
                return
            if not isinstance(batch, list):
                yield None if batch is None else {"presence": batch}
                continue
            hands.extend(e for e in batch if e.version >= hands.version)
            for stored in batch:
                shown_to = hands.viewer_of(stored.version, viewer)
                yield self.live.rendered(stored, shown_to,
                                         partial(self.queries.render_event, variant, stored,
                                                 shown_to))
                if stored.type in TERMINAL_EVENTS:
                    yield {"end": {"reason": MATCH_OVER}}
                    return

