"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView

from service.api.base import ApiBlueprint, use_cases
from service.api.schemas import HealthSchema

blp = ApiBlueprint("health", __name__, description="Service health")


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema, description="Redis does not answer")
    def get(self) -> Any:
        """Is the service up, and does its Redis answer?"""
        mode = "embedded" if current_app.config["SETTINGS"].embedded else "redis"
        if not use_cases().store.answers():
            return {"status": "degraded", "redis": "unreachable", "mode": mode}, 503
        return {"status": "ok", "redis": "ok", "mode": mode}
