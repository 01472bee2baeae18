"""Organiser API keys, managed with the admin token."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, service
from service.api.schemas import (
    OrganiserCreatedSchema,
    OrganiserCreateSchema,
    OrganiserListSchema,
    OrganiserSchema,
)
from service.usecases.errors import NotFound, not_allowed

blp = ApiBlueprint("organisers", __name__, url_prefix="/v1/organisers",
                   description="Organiser API keys (admin token only)")



def _require_admin() -> None:
    if not service().is_admin(bearer_token()):
        auth = bearer_token()
        raise not_allowed(auth is not None, "admin_only", "this needs the admin token")


@blp.route("")
class Organisers(MethodView):
    @blp.arguments(OrganiserCreateSchema)
    @blp.response(201, OrganiserCreatedSchema)
    @blp.doc(security=BEARER)
    @blp.errors(400, 401, 403)
    def post(self, body: dict[str, Any]) -> Any:
        """Create an organiser and its API key (returned once; only its hash is kept)."""
        _require_admin()
        organiser, key = service().organisers.create(body["name"])
        return {**organiser.to_dict(), "key": key}

    @blp.response(200, OrganiserListSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403)
    def get(self) -> Any:
        """Every organiser, revoked ones included (never their keys)."""
        _require_admin()
        return {"organisers": [o.to_dict() for o in service().organisers.all()]}


@blp.route("/<organiser_id>")
class Organiser(MethodView):
    @blp.response(200, OrganiserSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404)
    def delete(self, organiser_id: str) -> Any:
        """Revoke the organiser's key at once; its matches keep playing."""
        _require_admin()
        organiser = service().organisers.revoke(organiser_id)
        if organiser is None:
            raise NotFound("organiser_not_found", f"no organiser {organiser_id!r}")
        return organiser.to_dict()
