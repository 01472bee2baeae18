"""Reading matches: views, the log, the table at any version, exports; for whoever asks,
through the one redaction path (``Variant.view``, ``Variant.redact_event``).

Matches are loaded by the repository; a match that waits for its players is read from
the lobby and shown in phase ``waiting``. Nothing here changes anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from domain.bot_seats import show_bots
from domain.chain import canonical_json
from domain.events import HAND_DEALT, SEED_REVEALED
from domain.match import Match
from domain.variant import Variant
from domain.viewer import Viewer
from service.codec import to_domain
from service.ports import Lobby, MatchInfo, PresenceNow, StoredEvent
from service.usecases.access import Access
from service.usecases.errors import NotFound, storable
from service.usecases.live import LiveStreams
from service.usecases.repository import Repository
from service.usecases.seats import MatchCalledOff, MatchNotStarted, waiting_view

_AHEAD: ContextVar[dict[str, tuple[int, list[StoredEvent], PresenceNow]] | None] = \
    ContextVar("view_read_ahead", default=None)
"""A seat view's events and presence read with its token check's meta
(``MatchQueries.read_ahead``), by match: the version they follow, the events, the presence;
None outside a request."""

class HandIndex:
    """Which hand each event belongs to, and which hands' seeds have been revealed.

    A hand runs from its deal to its ``SeedRevealed``; once revealed, everything about it
    is public, so its events and states are shown in full to every caller.
    """

    def __init__(self, stored: Iterable[StoredEvent]) -> None:
        self._hand_at: list[int] = [0]
        self.revealed: set[int] = set()
        self.extend(stored)

    @property
    def version(self) -> int:
        """The next version the index expects."""
        return len(self._hand_at)

    def extend(self, stored: Iterable[StoredEvent]) -> None:
        """Index events appended since (in order, from ``version`` on)."""
        for event in stored:
            hand = self._hand_at[-1]
            if event.type == HAND_DEALT.name:
                hand = int(event.data.get("hand_number", hand + 1))
            elif event.type == SEED_REVEALED.name:
                self.revealed.add(int(event.data["hand_number"]))
            self._hand_at.append(hand)

    def viewer_of(self, version: int, viewer: Viewer) -> Viewer:
        """The full view for an event of a revealed hand, else ``viewer`` unchanged."""
        return Viewer.full() if self._hand_at[version] in self.revealed else viewer


class MatchQueries:
    """What anybody may read of a match, redacted for them."""

    def __init__(self, repository: Repository[Match], lobby: Lobby, access: Access,
                 live: LiveStreams) -> None:
        self.repository = repository
        self.lobby = lobby
        self.access = access
        self.live = live

    def info(self, match_id: str) -> MatchInfo | None:
        """A match's fixed metadata (the repository's cached meta); None when unknown."""
        meta = self.repository.meta(match_id)
        return None if meta is None else MatchInfo.from_meta(match_id, meta)

    # --- reading -----------------------------------------------------------------------

    def load(self, match_id: str) -> Match:
        """The match folded to its newest version (``NotFound`` when unknown,
        ``MatchNotStarted`` while it waits for players, ``MatchCalledOff`` once it was
        called off before it started)."""
        try:
            return self.repository.get(match_id)
        except NotFound:
            waiting = self.lobby.get(match_id) if storable(match_id) else None
            if waiting is not None and waiting.aborted is not None:
                raise MatchCalledOff(waiting) from None
            if waiting is not None:
                raise MatchNotStarted(waiting) from None
            raise

    def load_at(self, match_id: str, version: int) -> Match:
        """The match as it stood at ``version``."""
        return self.repository.at(match_id, version)

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The match now, with each seat's presence (not a game fact: not in the log). A
        seat's read of a match that waits for players counts as that seat being here
        (``service.usecases.creator_presence``: the lobby keeps its creator's table)."""
        viewer = self.access.viewer(match_id, token)
        now: PresenceNow | None = None
        try:
            loaded, now = self._load_with_presence(match_id)
            out = self.render(match_id, loaded, viewer)
        except (MatchNotStarted, MatchCalledOff) as waiting:
            out = waiting_view(waiting.lobby, viewer)
            if viewer.seat is not None and waiting.lobby.aborted is None:
                self.live.presence.saw(match_id, viewer.seat)
        seats = out.get("seats") or []
        presences = (now.of(len(seats)) if now is not None
                     else self.live.seats(match_id, len(seats)))
        for seat, presence in zip(seats, presences, strict=True):
            seat["presence"] = presence
        return out

    def _load_with_presence(self, match_id: str) -> tuple[Match, PresenceNow | None]:
        """``load``; a match already loaded here has its newer events and its presence read
        in one round trip, or taken from the request's read ahead (``read_ahead``); None
        beside one loaded from scratch: its presence is read apart."""
        along = self.repository.get_along(match_id, lambda after: self._tail(match_id, after))
        return along if along is not None else (self.load(match_id), None)

    @staticmethod
    def request_begins() -> None:
        """A request begins (the API calls this): ``read_ahead`` may keep a view's read
        for it, until it ends."""
        _AHEAD.set({})

    @staticmethod
    def request_ends() -> None:
        _AHEAD.set(None)

    def read_ahead(self, match_id: str) -> None:
        """Before a seat view's token check: the match's meta, for that check, and the
        events after the version this process holds with the presence, for the view, in
        one round trip instead of two. The meta is the check's own read, made a moment
        earlier (``Access.hand_on``): a rotated token is refused as before. Nothing is read
        for a match this process does not hold (the view loads it whole)."""
        ahead = _AHEAD.get()
        held = self.repository.cached(match_id) if storable(match_id) else None
        if ahead is None or held is None:
            return
        meta, events, now = self.live.presence.with_meta_and_events(match_id, held.version)
        if meta is None:
            return
        self.access.hand_on(match_id, meta)
        ahead[match_id] = (held.version, events, now)

    def _tail(self, match_id: str, after: int) -> tuple[list[StoredEvent], PresenceNow]:
        """The events after ``after`` and the presence: read ahead for this request when
        it read them from that very version, else read now."""
        ahead = _AHEAD.get()
        found = ahead.pop(match_id, None) if ahead else None
        if found is not None and found[0] == after:
            return found[1], found[2]
        return self.live.presence.with_events(match_id, after)

    def render(self, match_id: str, loaded: Match, viewer: Viewer) -> dict[str, Any]:
        out = show_bots(loaded.variant.view(loaded.state, viewer), loaded.bots)
        out.update(id=match_id, version=loaded.version)
        if loaded.clock is not None:
            out["clock"] = loaded.clock.to_view()
        info = self.info(match_id)
        return info.decorate(out, viewer.is_full) if info is not None else out

    def events(self, match_id: str, token: str | None,
               after: int = 0) -> list[dict[str, Any]]:
        """The log, each event redacted for the caller exactly like the views; the events
        of a hand whose seed has been revealed are shown in full to everyone. A match
        waiting for players has none yet."""
        viewer = self.access.viewer(match_id, token)
        try:
            return self.log_for(match_id, viewer, after)
        except (MatchNotStarted, MatchCalledOff):
            return []

    def log_for(self, match_id: str, viewer: Viewer, after: int = 0) -> list[dict[str, Any]]:
        loaded = self.load(match_id)
        stored = self.repository.stored(match_id)
        hands = HandIndex(stored)
        return [self.render_event(loaded.variant, e, hands.viewer_of(e.version, viewer))
                for e in stored[after:]]

    def state_at(self, match_id: str, token: str | None, at: int) -> dict[str, Any]:
        """The view after event ``at``: the caller's redaction, in full once that hand's
        seed has been revealed."""
        return self.state_for(match_id, self.access.viewer(match_id, token), at)

    def state_for(self, match_id: str, viewer: Viewer, at: int) -> dict[str, Any]:
        loaded = self.load(match_id)
        if at > loaded.version:
            raise NotFound("version_not_found",
                           f"the match has {loaded.version} events, not {at}")
        stored = self.repository.stored(match_id)
        past = self.repository.fold(Match.new(loaded.variant), stored[:at])
        return self.render(match_id, past, HandIndex(stored).viewer_of(at, viewer))

    @staticmethod
    def render_event(variant: Variant, stored: StoredEvent, viewer: Viewer) -> dict[str, Any]:
        """One event for ``viewer``: ``redacted`` says whether anything was left out (the
        hash covers the full event, so only unredacted events can be re-hashed)."""
        data = variant.redact_event(to_domain(stored), viewer)
        command = stored.command
        if command is not None and not viewer.can_see(command.get("seat")):
            command = None
        return {"version": stored.version, "type": stored.type, "schema": stored.schema,
                "ts": stored.ts, "command_id": stored.command_id,
                "prev_hash": stored.prev_hash, "hash": stored.hash, "data": data,
                "command": command,
                "redacted": command != stored.command or data != stored.data}

    def export(self, match_id: str, token: str | None) -> Iterator[str]:
        """The whole log as NDJSON lines, redacted for the caller like ``events``.

        Authorises and reads before returning, so errors come before the response starts.
        """
        records = self.events(match_id, token)
        return (canonical_json(record) + "\n" for record in records)

    def is_over(self, match_id: str) -> bool:
        """Whether the match has ended for good (finished, forfeited or aborted)."""
        try:
            return self.load(match_id).is_over
        except MatchNotStarted:
            return False
        except MatchCalledOff:
            return True

    def is_over_for(self, match_id: str, after: int) -> bool:
        """Whether the match is over and a client that has every event up to ``after``
        has its last one of play (nothing secret: a finished match's state is public).
        A rematch's events after the end are not the stream's (``Match.played_version``)."""
        try:
            loaded = self.load(match_id)
        except MatchNotStarted:
            return False
        except MatchCalledOff:
            return True
        return loaded.is_over and after >= loaded.played_version

