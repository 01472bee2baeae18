"""Whether the creator of a waiting match is still at its table.

A table somebody opened from the lobby and then walked away from would deal, once its
seats fill, to a player who never moves: the claimants would wait on the absent
creator's turn for good. So the lobby lists a waiting match only while its creator is
here, and calls it off once they have been gone ``abandon_s`` (``RUMMY_LOBBY_ABANDON_S``).

The creator is known by the seats they named for people when they created the match
(each got its token then): here while one of those seats has a stream open, or its
token read the match within the presence window; last here when presence last saw one
of them (``service.ports.Sightings``), or when the match was created. Presence is kept
beside the match (one Cluster slot), so no timer is needed: the lobby decides when it
looks (its listing, a claim).

A match an organiser created (an organiser key or the admin token) is the organiser's to
call off, and one whose every named seat is a computer player's has no creator at the
table: both keep waiting until their lobby record expires, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.ports import PresenceStore, Sightings, Waiting

CREATOR_LEFT = "creator left"
"""The reason a match called off for its creator's absence gives (``ended.reason``)."""


@dataclass(frozen=True)
class CreatorPresence:
    """What the lobby says of a waiting match's creator: ``present`` (None when nobody's
    presence can tell), ``seen_at`` (epoch seconds, None when never seen), and whether
    they have been gone long enough to call the match off (``lapsed``)."""

    present: bool | None
    seen_at: float | None
    lapsed: bool


UNKNOWN = CreatorPresence(None, None, False)


def creator_seats(waiting: Waiting) -> list[int]:
    """The seats the creator named for people, on a match no organiser created."""
    if waiting.fields.get("owner"):
        return []
    return [seat for seat in range(waiting.seats)
            if waiting.fields.get(f"seat:{seat}") == "named"
            and waiting.seat_field(seat, "token")]


class CreatorWatch:
    """Reads a waiting match's creator's presence against the abandon time."""

    def __init__(self, presence: PresenceStore, abandon_s: float,
                 clock: Callable[[], float]) -> None:
        self._presence = presence
        self._abandon_s = abandon_s
        self._clock = clock

    def of(self, waiting: Waiting) -> CreatorPresence:
        return self.of_all([waiting])[0]

    def of_all(self, waiting: Sequence[Waiting]) -> list[CreatorPresence]:
        """Each match's creator, presence read for all of them in one round trip."""
        known = []
        for match in waiting:
            seats = creator_seats(match) if match.aborted is None else []
            if seats:
                known.append((match, seats))
        read = iter(self._presence.sightings([w.match_id for w, _ in known]))
        now = self._clock()
        found = {w.match_id: self._judged(w, seats, next(read), now) for w, seats in known}
        return [found.get(w.match_id, UNKNOWN) for w in waiting]

    def _judged(self, waiting: Waiting, seats: list[int], sightings: Sightings,
                now: float) -> CreatorPresence:
        seen = max((sightings.seen[s] for s in seats if s in sightings.seen), default=None)
        present = (any(s in sightings.online for s in seats)
                   or (seen is not None and now - seen <= self._presence.ttl_ms / 1000))
        gone_since = max(waiting.created_at, seen or 0.0)
        lapsed = self._abandon_s > 0 and not present and now - gone_since > self._abandon_s
        return CreatorPresence(present, seen, lapsed)
