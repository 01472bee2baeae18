"""Live streams of matches for one process: the backlog by a normal read, then the hub.

``MatchStreams._follow`` (service/usecases/streams.py) renders what this yields through
the one redaction path (``render_event`` with ``HandIndex.viewer_of``); this module only
decides *which* stored events and presence messages a stream gets, and keeps this
process's presence entries alive.

A stream follows the match's events key with the one gap-free follower
(``service.usecases.following``: the backlog, then the process's stream hub), and the
match's live key beside it for presence.

A seat's stream holds the hash of the token that opened it (``SeatHolder``). Rotating that
token ends the stream (``Ended``), in whichever process holds it: the rotation is announced
on the match's live key, which the hub reads together with the events and never later than
an event appended after it; and the token is checked once more after the second read, for
a rotation that came before the subscription. Nothing appended after the rotation reaches
the old token. A stream opened with an organiser key holds the key's hash the same way
(``KeyHolder``, ``service.usecases.revocation``) and ends when the key is revoked.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from domain.match import Match
from domain.viewer import Viewer
from service.ports import (
    EventStore,
    FanOut,
    PresenceStore,
    StoredEvent,
    StoreUnavailable,
    entry_order,
)
from service.usecases.following import Followed, Follower
from service.usecases.revocation import KEY_REVOKED, KeyHolder
from service.usecases.subscribers import Appended

log = logging.getLogger("rummy.live")

TOKEN_ROTATED = "token_rotated"
SEAT_LEFT = "seat_left"
"""Why a seat's stream ends: its token was replaced, or its player left the seat (before
the match started)."""
MATCH_OVER = "match_over"
"""Why every stream of a match ends after its last event, or when a match waiting for
players is called off."""


@dataclass(frozen=True)
class SeatHolder:
    """Who a seat's stream was opened for: the seat, the hash of the token (or of the
    ticket's token) that opened it, and how to ask whether that token still holds it."""

    seat: int
    token_hash: str
    still_holds: Callable[[], bool]


@dataclass(frozen=True)
class Ended:
    """The stream is over for good (``reason``); the client should not reconnect with the
    same credentials."""

    reason: str


LiveItem = list[StoredEvent] | dict[str, Any] | Ended | None
"""New events (in order), a presence message ``{"seat", "online"}``, the stream's ``Ended``,
or None: a keep-alive tick (nothing came for the keep-alive interval)."""

_REFRESH_CHUNK = 100
"""Matches per pipelined refresh: small enough that Redis and this process's other greenlets
never wait long for one."""
_RENDERED = 4096
"""Rendered events kept per process: a few per viewer of the latest moves of the matches
followed here, so a thousand streams of one match render each move once per viewer."""


class LiveStreams:
    """One stream hub and this process's presence entries."""

    def __init__(self, store: EventStore, presence: PresenceStore, hub: FanOut) -> None:
        self.store = store
        self.presence = presence
        self.hub = hub
        self._held: dict[str, set[str]] = {}
        self._keeper: threading.Thread | None = None
        self._closed = False
        self._rendered: OrderedDict[tuple[str, Viewer], dict[str, Any]] = OrderedDict()
        self._decoded_events: OrderedDict[tuple[str, str], StoredEvent] = OrderedDict()
        self._lock = threading.Lock()
        self._refresh_every_s = presence.ttl_ms / 3000

    def follow(self, match_id: str, after: int, keepalive_ms: int,
               holder: SeatHolder | KeyHolder | None = None) -> Iterator[LiveItem]:
        """The match's events after ``after``, then new ones and presence messages as they
        come (``service.usecases.following``). A seat's stream (``SeatHolder``) counts as
        that seat's presence while open, and ends with ``Ended`` once its token is
        rotated; a stream opened with an organiser key (``KeyHolder``) once the key is
        revoked. Ends otherwise only when closed (the caller stops after the match's
        terminal event)."""
        seat = holder if isinstance(holder, SeatHolder) else None
        key = holder if isinstance(holder, KeyHolder) else None
        member = f"{seat.seat}:{uuid.uuid4().hex[:12]}" if seat is not None else None
        events_key = self.store.events_key(match_id)
        followed = Followed(
            events_key, f"{after}-0",
            read=lambda position: [(f"{event.version}-0", event) for event in
                                   self.store.read(match_id, entry_order(position)[0])],
            decode=lambda entry, fields: self._decoded(match_id, events_key, entry, fields))
        follower: Follower[StoredEvent] | None = None
        try:
            if member is not None:
                self._hold(match_id, member)
            follower = Follower(self.hub, followed, keepalive_ms / 1000,
                                {self.presence.live_key(match_id):
                                 self.presence.last_live_id(match_id),
                                 **(key.watched() if key is not None else {})})
            backlog = follower.start()
            if (ended := _gone(seat, key)) is not None:
                yield ended
                return
            if backlog:
                yield backlog
            while True:
                delivery = follower.next()
                if delivery is None:
                    if follower.closed:  # this process's hub is closing
                        return
                    yield None
                    continue
                fresh, companions = delivery
                if seat is not None and companions and (
                        ended := self._revoked(companions, seat.token_hash)):
                    yield ended
                    return
                if key is not None and companions and key.revoked_in(companions):
                    yield Ended(KEY_REVOKED)
                    return
                if companions and self._called_off(companions):
                    yield Ended(MATCH_OVER)
                    return
                if fresh:
                    yield fresh
                if companions:
                    yield from self._presence_messages(companions)
        finally:
            if follower is not None:
                follower.close()
            if member is not None:
                self._release(match_id, member)

    def _presence_messages(self, companions: list[Any]) -> Iterator[dict[str, Any]]:
        for _, entries in companions:
            for _, fields in entries:
                message = self.presence.message(fields)
                if message is not None:
                    yield message

    def _decoded(self, match_id: str, key: str, entry_id: str, fields: Any) -> StoredEvent:
        """An entry the hub delivered, decoded once in this process for all its streams."""
        found = self._decoded_events.get((key, entry_id))
        if found is None:
            found = self.store.decode(match_id, entry_id, fields)
            self._decoded_events[(key, entry_id)] = found
            if len(self._decoded_events) > _RENDERED:
                self._decoded_events.popitem(last=False)
        return found

    def rendered(self, stored: StoredEvent, viewer: Viewer,
                 render: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``render()`` once per event and viewer in this process, shared by every stream
        that shows it to that viewer (the event's hash names it; the result is read-only)."""
        key = (stored.hash, viewer)
        found = self._rendered.get(key)
        if found is None:
            found = render()
            self._rendered[key] = found
            if len(self._rendered) > _RENDERED:
                self._rendered.popitem(last=False)
        return found

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.hub.close()

    # --- presence --------------------------------------------------------------------

    def _hold(self, match_id: str, member: str) -> None:
        with self._lock:
            self._held.setdefault(match_id, set()).add(member)
            if self._keeper is None and not self._closed:
                self._keeper = threading.Thread(target=self._keep_alive,
                                                name="rummy-presence", daemon=True)
                self._keeper.start()
        try:
            self.presence.open(match_id, member)
        except StoreUnavailable:  # presence is a courtesy: the stream goes on without it
            log.warning("presence of %s on match %s not recorded", member, match_id)

    def _release(self, match_id: str, member: str) -> None:
        with self._lock:
            members = self._held.get(match_id)
            if members is not None:
                members.discard(member)
                if not members:
                    del self._held[match_id]
        try:
            self.presence.close(match_id, member)
        except StoreUnavailable:
            log.warning("presence of %s on match %s not removed; it expires", member, match_id)

    def held(self) -> dict[str, set[str]]:
        """The presence members this process keeps alive, by match."""
        with self._lock:
            return {match_id: set(members) for match_id, members in self._held.items()}

    def _keep_alive(self) -> None:
        """Extend this process's members every third of their lifetime, so they outlive a
        refresh that comes late but not a dead process. A thread (a greenlet under gevent)
        of its own, which ends when nothing is held: refreshing thousands of members takes
        a while, and the stream hub, which used to do it between reads, held every
        match's fan-out meanwhile (100-190 ms late every ten seconds at 10,000 streams)."""
        while True:
            time.sleep(self._refresh_every_s)
            with self._lock:
                if self._closed or not self._held:
                    self._keeper = None
                    return
            try:
                self.refresh()
            except Exception:  # noqa: BLE001 - the keeper must outlive a Redis outage
                log.warning("presence refresh failed; retrying", exc_info=True)

    def refresh(self) -> None:
        held = list(self.held().items())
        for start in range(0, len(held), _REFRESH_CHUNK):
            self.presence.refresh(dict(held[start:start + _REFRESH_CHUNK]))

    def acted(self, appended: Appended[Match]) -> None:
        """The subscriber that notes a seat's own action (presence's ``last_action_at``,
        the time of the first event it appended); the clock's automatic moves are not the
        seat's. Never fails the action, which has happened already."""
        command = appended.command or {}
        seat = command.get("seat")
        if not isinstance(seat, int) or "action" not in command or command.get("auto"):
            return
        try:
            self.presence.acted(appended.aggregate_id, seat, appended.events[0].ts)
        except StoreUnavailable:
            log.warning("last action of seat %s on match %s not recorded", seat,
                        appended.aggregate_id)

    def seats(self, match_id: str, count: int) -> list[dict[str, Any]]:
        return self.presence.of(match_id, count)

    def _called_off(self, companions: list[Any]) -> bool:
        """Whether the live key announces the match called off before it started."""
        return any(self.presence.ends(fields) for _, entries in companions
                   for _, fields in entries)

    def _revoked(self, companions: list[Any], token_hash: str) -> Ended | None:
        """The end of the stream when the live key's entries of one take announce
        ``token_hash`` revoked. A take is checked whole before any of its events is sent:
        the hub delivers a rotation no later than the events appended after it, possibly
        in the same take."""
        for _, entries in companions:
            for _, fields in entries:
                revocation = self.presence.revocation(fields)
                if revocation is not None and revocation[0] == token_hash:
                    return Ended(SEAT_LEFT if revocation[1] == "left" else TOKEN_ROTATED)
        return None


def _gone(seat: SeatHolder | None, key: KeyHolder | None) -> Ended | None:
    """The end of a stream whose token was rotated, or whose organiser key was revoked,
    before it subscribed."""
    if seat is not None and not seat.still_holds():
        return Ended(TOKEN_ROTATED)
    if key is not None and not key.stands():
        return Ended(KEY_REVOKED)
    return None
