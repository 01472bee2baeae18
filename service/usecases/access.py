"""Who is asking, and what they may see or do: seats, the public, organisers, the admin.

Seat tokens are checked against the hashes in the match's meta; organiser keys against
the key registry (every time, so a revoked key stops at once); the admin token against
configuration. Another organiser's match does not exist for an organiser (404).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping

from domain.viewer import Viewer
from service.adapters.auth import TokenIndex, same_secret, token_hash
from service.adapters.organisers import ADMIN, OrganiserKeys
from service.adapters.store import RedisEventStore
from service.usecases.errors import Forbidden, NotFound, Unauthenticated, not_allowed, storable

CACHE_SIZE = 512


class Access:
    """Authorisation of callers against matches; caches what never changes (token
    hashes and owners of a match)."""

    def __init__(self, store: RedisEventStore, admin_token: str | None,
                 meta: Callable[[str], Mapping[str, str] | None]) -> None:
        self.store = store
        self._meta = meta
        self._admin_token = admin_token
        self._tokens = TokenIndex(store.client, store.prefix)
        self.organisers = OrganiserKeys(store.client, store.prefix)
        self._token_cache: dict[str, list[str]] = {}

    def register(self, match_id: str, seat_hashes: dict[str, int]) -> None:
        """Index a new match's seat tokens (to tell another match's token from none)."""
        self._tokens.register(match_id, seat_hashes)

    def viewer(self, match_id: str, token: str | None) -> Viewer:
        """Who is asking: the public (no token), the organiser who owns the match (or the
        admin: the full view) or a seat."""
        if token is None:
            return Viewer.public()
        if self.organiser(token) is not None:
            self.require_owner(match_id, token)
            return Viewer.full()
        if not self.seat_hashes(match_id):
            raise NotFound("match_not_found", f"no match {match_id!r}")
        seat = self.seat_of(match_id, token)
        if seat is None:
            raise Unauthenticated("invalid_token", "the bearer token is not valid for this match")
        return Viewer.for_seat(seat)

    def is_admin(self, token: str | None) -> bool:
        return token is not None and token != "" and same_secret(token, self._admin_token)

    def organiser(self, token: str | None) -> str | None:
        """``ADMIN`` for the admin token, an organiser's id for its live key, else None."""
        if self.is_admin(token):
            return ADMIN
        if not token or not token.startswith("rk_"):
            return None
        return self.organisers.lookup(token)

    def require_owner(self, match_id: str, token: str | None) -> str:
        """The calling organiser, who must own the match: another organiser's is a 404."""
        organiser = self.organiser(token)
        if organiser is None:
            raise not_allowed(token is not None, "organiser_only",
                           "this needs an organiser key (or the admin token)")
        if organiser != ADMIN and self.owner_of(match_id) != organiser:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        if organiser == ADMIN and not self.seat_hashes(match_id):
            raise NotFound("match_not_found", f"no match {match_id!r}")
        return organiser

    def owner_of(self, match_id: str) -> str | None:
        """The organiser id that created the match ("" for none; None when unknown)."""
        meta = self._meta(match_id)
        return None if meta is None else meta.get("owner", "")

    def seat_of(self, match_id: str, token: str) -> int | None:
        digest = token_hash(token)
        for seat, expected in enumerate(self.seat_hashes(match_id)):
            if secrets.compare_digest(expected, digest):
                return seat
        return None

    def seat_hashes(self, match_id: str) -> list[str]:
        """Token hashes by seat; they never change once a match exists, so cache them."""
        if not storable(match_id):
            return []
        hashes = self._token_cache.get(match_id)
        if hashes is None:
            meta = self.store.meta(match_id) or {}
            hashes = [meta[f"token:{seat}"] for seat in range(len(meta))
                      if f"token:{seat}" in meta]
            if hashes:
                if len(self._token_cache) > 16 * CACHE_SIZE:
                    self._token_cache.clear()
                self._token_cache[match_id] = hashes
        return hashes

    def forget(self, match_id: str) -> None:
        """Drop a deleted match's cached token hashes (embedded retention)."""
        self._token_cache.pop(match_id, None)

    def acting_seat(self, match_id: str, token: str | None) -> int:
        if not token:
            raise Unauthenticated("missing_token", "acting needs a seat's bearer token")
        if self.organiser(token) is not None:
            self.require_owner(match_id, token)
            raise Forbidden("forbidden", "an organiser key cannot act for a seat")
        if not self.seat_hashes(match_id):
            raise NotFound("match_not_found", f"no match {match_id!r}")
        seat = self.seat_of(match_id, token)
        if seat is not None:
            return seat
        if self._tokens.owner(token_hash(token)) is not None:
            raise Forbidden("forbidden", "this token belongs to another match")
        raise Unauthenticated("invalid_token", "the bearer token is not valid")

