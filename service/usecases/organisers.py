"""Organiser API keys, managed with the admin token: create, list, revoke."""

from __future__ import annotations

from typing import Any

from service.ports import Organisers
from service.usecases.access import Access
from service.usecases.errors import NotFound, not_allowed


class OrganiserAdmin:
    """The admin's management of organisers and their keys."""

    def __init__(self, keys: Organisers, access: Access) -> None:
        self._keys = keys
        self._access = access

    def create(self, token: str | None, name: str) -> dict[str, Any]:
        """A new organiser and its API key (returned once; only its hash is kept)."""
        self._require_admin(token)
        organiser, key = self._keys.create(name)
        return {**organiser.to_dict(), "key": key}

    def listed(self, token: str | None) -> list[dict[str, Any]]:
        """Every organiser, revoked ones included (never their keys)."""
        self._require_admin(token)
        return [organiser.to_dict() for organiser in self._keys.all()]

    def revoke(self, token: str | None, organiser_id: str) -> dict[str, Any]:
        """Revoke the organiser's key at once; its matches keep playing."""
        self._require_admin(token)
        organiser = self._keys.revoke(organiser_id)
        if organiser is None:
            raise NotFound("organiser_not_found", f"no organiser {organiser_id!r}")
        return organiser.to_dict()

    def _require_admin(self, token: str | None) -> None:
        if not self._access.is_admin(token):
            raise not_allowed(token is not None, "admin_only", "this needs the admin token")
