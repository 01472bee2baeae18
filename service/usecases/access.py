"""Who is asking, and what they may see or do: seats, the public, organisers, the admin.

Seat tokens are checked against the hashes in the match's meta; organiser keys against
the key registry (every time, so a revoked key stops at once); the admin token against
configuration. Another organiser's match does not exist for an organiser (404).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from contextvars import ContextVar

from domain.viewer import Viewer
from service.credentials import same_secret, token_hash
from service.ports import ADMIN, EventStore, Organisers, Tokens, Waiting
from service.usecases.errors import (
    AppError,
    Forbidden,
    NotFound,
    Unauthenticated,
    not_allowed,
    storable,
)

ORGANISER_CALLER = "organiser"
"""Who may call an operation (``Access.require_caller``): an organiser key or the admin."""
ADMIN_CALLER = "admin_token"
"""Who may call an operation: the admin token only."""
OWNER_CALLER = "owner"
"""Who may call an operation on a match: its owner (the organiser key that created it) or
the admin."""
OWNER_OR_CREATOR_CALLER = "owner_or_creator"
"""Who may call an operation on a match: its owner or the admin, and while the match waits
for players also its creator token (calling it off)."""
ORGANISER_KEY_PREFIX = "rk_"
"""How every organiser key begins (``service.adapters.organisers``)."""

_CHECKED: ContextVar[dict[str, Mapping[str, str]] | None] = ContextVar("checked_meta",
                                                                       default=None)
"""The meta a request's token check read, handed to the request's next read of a match's
meta (``Access.request_begins``); None outside a request."""


class Access:
    """Authorisation of callers against matches."""

    def __init__(self, store: EventStore, admin_token: str | None,
                 meta: Callable[[str], Mapping[str, str] | None],
                 waiting: Callable[[str], Waiting | None], tokens: Tokens,
                 organisers: Organisers) -> None:
        self.store = store
        self._meta = meta
        self._waiting = waiting
        self._admin_token = admin_token
        self._tokens = tokens
        self.organisers = organisers

    def register(self, match_id: str, seat_hashes: dict[str, int],
                 creator_hash: str | None = None) -> None:
        """Index a new match's seat tokens and its creator token (to tell another match's
        token from none, and a made-up token from a real one)."""
        self._tokens.register(match_id, seat_hashes, creator_hash)

    def names_anybody(self, token: str, match_id: str | None = None) -> bool:
        """Whether ``token`` belongs to somebody: the admin, a live organiser key, a seat or
        creator token of ``match_id`` (its meta), or of any match (the index). A token that
        names nobody is refused wherever it is sent, so inventing one never changes what a
        request may do or which limit counts it.

        The match's own meta is asked before the global index: a request names its match,
        the meta is the read the request makes next anyway, and the seat tokens live there,
        in the match's slot. The index (``{prefix}:tokens``, one hash for every match) is
        read only for a token the match does not know: another match's, or none at all."""
        if self.organiser(token) is not None:
            return True
        digest = token_hash(token)
        if match_id is not None and storable(match_id) and self._known_to(match_id, digest):
            return True
        return self._tokens.owner(digest) is not None

    def _known_to(self, match_id: str, digest: str) -> bool:
        """Whether ``digest`` is one of the match's seat tokens or its creator token, from
        one read of its meta (or of its lobby record while it waits), or the meta read
        ahead with the view's events (``hand_on``). A started match's meta is handed on to
        the request's next read of it (``request_begins``)."""
        meta = self._meta_now(match_id)
        if meta is not None:
            hashes, creator = _seat_hashes_in(meta), meta.get("creator", "")
            checked = _CHECKED.get()
            if checked is not None:
                checked[match_id] = meta
        else:
            waiting = self._waiting(match_id)
            if waiting is None:
                return False
            hashes, creator = waiting.token_hashes(), waiting.fields.get("creator", "")
        if self._seat_by_hash(hashes, digest) is not None:
            return True
        return bool(creator) and same_secret(digest, creator)

    @staticmethod
    def request_begins() -> None:
        """A request begins (the API calls this): the meta its token check reads is handed,
        once, to its next read of a match's meta, which is the use case's own check of the
        same token right after (a seat view's viewer, an action's seat). One meta read per
        request instead of two; the meta is still read on every request, so a rotated
        token is refused at once. Once handed on, or for another match, every later read
        goes to the store: a write in the request (a rotation) is never read past."""
        _CHECKED.set({})

    @staticmethod
    def request_ends() -> None:
        _CHECKED.set(None)

    @staticmethod
    def hand_on(match_id: str, meta: Mapping[str, str]) -> None:
        """Hand a match's meta, read this very request just before its token check, to
        that check (which hands it on once more, to the use case's own check); nothing
        outside a request."""
        checked = _CHECKED.get()
        if checked is not None:
            checked[match_id] = meta

    def _meta_now(self, match_id: str) -> Mapping[str, str] | None:
        """The match's meta: the one the request's token check just read, else the store's."""
        checked = _CHECKED.get()
        if checked:
            meta = checked.pop(match_id, None)
            checked.clear()
            if meta is not None:
                return meta
        return self.store.meta(match_id)

    def forget(self, digests: list[str]) -> None:
        """Tokens that no longer name anybody (a seat given back): 401 from now on."""
        self._tokens.forget(digests)

    def replace(self, match_id: str, seat: int, old_hash: str, new_hash: str) -> None:
        """Re-index a rotated seat token: the old one becomes no token at all (401)."""
        self._tokens.forget([old_hash])
        self._tokens.register(match_id, {new_hash: seat})

    def viewer(self, match_id: str, token: str | None) -> Viewer:
        """Who is asking: the public (no token), the organiser who owns the match (or the
        admin: the full view) or a seat."""
        if token is None:
            return Viewer.public()
        if self.organiser(token) is not None:
            self.require_owner(match_id, token)
            return Viewer.full()
        seat = self._seat_in(match_id, token)
        if seat is None:
            raise self.no_seat_here(match_id, token)
        return Viewer.for_seat(seat)

    def _seat_in(self, match_id: str, token: str) -> int | None:
        """The seat ``token`` holds in ``match_id``, from one read of its seat hashes; a
        404 when there is no such match."""
        hashes = self.seat_hashes(match_id)
        if not hashes:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        return self._seat_by_hash(hashes, token_hash(token))

    def no_seat_here(self, match_id: str, token: str) -> AppError:
        """The refusal of a token that holds no seat of ``match_id``: 403 ``forbidden``
        when it names somebody (a creator token, another match's seat), as everywhere a
        real token is sent where it may not go; 401 ``invalid_token`` only when it names
        nobody, the one answer the address's failed authentications count (guessing)."""
        digest = token_hash(token)
        holder = self._tokens.owner(digest)
        if holder is not None and holder[0] != match_id:
            return Forbidden("forbidden", "this token belongs to another match")
        if holder is not None or same_secret(digest, self.creator_hash(match_id)):
            return Forbidden("forbidden", "a creator token manages the match's seats; "
                                          "playing and seat views need a seat's own token")
        return Unauthenticated("invalid_token", "the bearer token is not valid for this match")

    def is_admin(self, token: str | None) -> bool:
        return token is not None and token != "" and same_secret(token, self._admin_token)

    def require_caller(self, token: str | None, caller: str,
                       match_id: str | None = None) -> None:
        """Refuse a caller who may not call an operation at all: ``ADMIN_CALLER`` needs the
        admin token (403/401 ``admin_only``), ``ORGANISER_CALLER`` an organiser key or the
        admin token (``organiser_only``), ``OWNER_CALLER`` the owner of ``match_id``
        (``owner_only``; another organiser's match is a 404), ``OWNER_OR_CREATOR_CALLER``
        that or the creator token of a match still waiting for players (``creator_only``).
        The API asks before it reads a request's body, with the codes and words the use
        cases themselves answer, so a caller who may not call it learns nothing about what
        a valid body looks like."""
        if caller == ADMIN_CALLER:
            if not self.is_admin(token):
                raise not_allowed(token is not None, "admin_only", "this needs the admin token")
        elif caller == OWNER_CALLER:
            self.require_owner(match_id or "", token)
        elif caller == OWNER_OR_CREATOR_CALLER:
            self.require_owner_or_creator(match_id or "", token)
        elif self.organiser(token) is None:
            raise not_allowed(token is not None, "organiser_only",
                              "this needs an organiser key (or the admin token)")

    def require_owner_or_creator(self, match_id: str, token: str | None) -> None:
        """The match's owner (or the admin), or its creator token: the one token besides
        the owner's that may call off a match still waiting for players. Once it has
        started, only the owner may end it, so anyone else is refused as by
        ``require_owner``."""
        if self.organiser(token) is not None or token is None:
            self.require_owner(match_id, token)
            return
        creator = self.creator_hash(match_id)
        if creator and same_secret(token_hash(token), creator):
            return
        if storable(match_id) and self._waiting(match_id) is not None:
            raise Forbidden("creator_only", "only the match's organiser or its creator "
                                            "(the creator token) may do this")
        self.require_owner(match_id, token)

    def organiser(self, token: str | None) -> str | None:
        """``ADMIN`` for the admin token, an organiser's id for its live key, else None."""
        if self.is_admin(token):
            return ADMIN
        if not token or not self.may_be_organiser_key(token):
            return None
        return self.organisers.lookup(token)

    def organiser_by_hash(self, digest: str) -> str | None:
        """``organiser`` by the token's hash (what a stream ticket or a stream remembers of
        its token): ``ADMIN``, a live organiser key's organiser, else None."""
        if self._admin_token and same_secret(digest, token_hash(self._admin_token)):
            return ADMIN
        return self.organisers.lookup_hash(digest)

    @staticmethod
    def may_be_organiser_key(token: str) -> bool:
        """Whether ``token`` has an organiser key's form (only those are looked up)."""
        return token.startswith(ORGANISER_KEY_PREFIX)

    def owns_by_hash(self, match_id: str, digest: str) -> bool:
        """Whether the admin token or a live organiser key with this hash may see the whole
        match (a stream ticket's key, checked again when the ticket is used)."""
        organiser = self.organiser_by_hash(digest)
        return organiser == ADMIN or (organiser is not None
                                      and self.owner_of(match_id) == organiser)

    def require_owner(self, match_id: str, token: str | None) -> str:
        """The calling organiser, who must own the match: another organiser's is a 404."""
        organiser = self.organiser(token)
        if organiser is None:
            raise not_allowed(token is not None, "owner_only",
                              "only the match's owner (the organiser key that created it, "
                              "or the admin token) may do this")
        if organiser != ADMIN and self.owner_of(match_id) != organiser:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        if organiser == ADMIN and not self.seat_hashes(match_id):
            raise NotFound("match_not_found", f"no match {match_id!r}")
        return organiser

    def owner_of(self, match_id: str) -> str | None:
        """The organiser id that created the match ("" for none; None when unknown)."""
        meta = self._meta(match_id)
        if meta is None:
            waiting = self._waiting(match_id) if storable(match_id) else None
            return None if waiting is None else waiting.fields.get("owner", "")
        return meta.get("owner", "")

    def creator_hash(self, match_id: str) -> str | None:
        """The hash of the match's creator token ("" for matches older than creator tokens;
        None when there is no such match)."""
        if not storable(match_id):
            return None
        meta = self._meta_now(match_id)
        if meta is not None:
            return meta.get("creator", "")
        waiting = self._waiting(match_id)
        return None if waiting is None else waiting.fields.get("creator", "")

    def seat_of(self, match_id: str, token: str) -> int | None:
        return self._seat_by_hash(self.seat_hashes(match_id), token_hash(token))

    @staticmethod
    def _seat_by_hash(hashes: list[str], digest: str) -> int | None:
        for seat, expected in enumerate(hashes):
            if secrets.compare_digest(expected, digest):
                return seat
        return None

    def holds_seat(self, match_id: str, seat: int, digest: str) -> bool:
        """Whether the token whose hash is ``digest`` is still ``seat``'s (not rotated)."""
        hashes = self.seat_hashes(match_id)
        return 0 <= seat < len(hashes) and secrets.compare_digest(hashes[seat], digest)

    def seat_hashes(self, match_id: str) -> list[str]:
        """Token hashes by seat ("" for an open seat of a waiting match); [] when there is
        no such match. Read on every request, never cached across requests: a rotated token
        must stop working at once in every API process (within a request, the token
        check's read is handed on once: ``request_begins``)."""
        if not storable(match_id):
            return []
        meta = self._meta_now(match_id)
        if meta is None:
            waiting = self._waiting(match_id)
            return [] if waiting is None else waiting.token_hashes()
        return _seat_hashes_in(meta)

    def acting_seat(self, match_id: str, token: str | None) -> int:
        """The seat ``token`` plays for in ``match_id`` (actions, checks, resigning)."""
        if not token:
            raise Unauthenticated("missing_token", "acting needs a seat's bearer token")
        if self.organiser(token) is not None:
            self.require_owner(match_id, token)
            raise Forbidden("forbidden", "an organiser key cannot act for a seat")
        seat = self._seat_in(match_id, token)
        if seat is None:
            raise self.no_seat_here(match_id, token)
        return seat


def _seat_hashes_in(meta: Mapping[str, str]) -> list[str]:
    """A started match's token hashes by seat, from its meta."""
    return [meta[f"token:{seat}"] for seat in range(len(meta)) if f"token:{seat}" in meta]
