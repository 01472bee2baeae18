"""Organiser API keys, managed with the admin token."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.schemas import (
    OrganiserCreatedSchema,
    OrganiserCreateSchema,
    OrganiserListSchema,
    OrganiserSchema,
)
from service.usecases.access import ADMIN_CALLER

blp = ApiBlueprint("organisers", __name__, url_prefix="/v1/organisers",
                   description="Organiser API keys (admin token only)")


@blp.route("")
class Organisers(MethodView):
    @blp.arguments(OrganiserCreateSchema)
    @blp.response(201, OrganiserCreatedSchema)
    @blp.doc(security=BEARER, caller=ADMIN_CALLER)
    @blp.errors(400, 401, 403)
    def post(self, body: dict[str, Any]) -> Any:
        """Create an organiser and its API key (returned once; only its hash is kept)."""
        return use_cases().organisers.create(bearer_token(), body["name"])

    @blp.response(200, OrganiserListSchema)
    @blp.doc(security=BEARER, caller=ADMIN_CALLER)
    @blp.errors(401, 403)
    def get(self) -> Any:
        """Every organiser, revoked ones included (never their keys)."""
        return {"organisers": use_cases().organisers.listed(bearer_token())}


@blp.route("/<organiser_id>")
class Organiser(MethodView):
    @blp.response(200, OrganiserSchema)
    @blp.doc(security=BEARER, caller=ADMIN_CALLER)
    @blp.errors(401, 403, 404)
    def delete(self, organiser_id: str) -> Any:
        """Revoke the organiser's key at once; its matches keep playing."""
        return use_cases().organisers.revoke(bearer_token(), organiser_id)
