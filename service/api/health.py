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
    @blp.alt_response(503, schema=HealthSchema,
                      description="Redis does not answer (on a Redis Cluster: a master does "
                                  "not, or the cluster's state is not ok)")
    def get(self) -> Any:
        """Is the service up, and does its Redis answer (a cluster: every master, state ok)?"""
        settings = current_app.config["SETTINGS"]
        mode = ("embedded" if settings.embedded
                else "redis-cluster" if settings.redis_cluster else "redis")
        reason = use_cases().store.unready()
        if reason is not None:
            return {"status": "degraded", "redis": "unreachable", "mode": mode,
                    "reason": reason}, 503
        return {"status": "ok", "redis": "ok", "mode": mode}
