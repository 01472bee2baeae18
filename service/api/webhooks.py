"""Webhooks: an organiser's endpoints for lifecycle events, and their delivery log."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.webhook_schemas import (
    DeliveryListSchema,
    DeliveryQuerySchema,
    WebhookCreateSchema,
    WebhookListSchema,
    WebhookSchema,
)
from service.usecases.access import ORGANISER_CALLER

blp = ApiBlueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                   description="Webhooks: signed POSTs of an organiser's match lifecycle events")


def calling_organiser() -> str:
    """The organiser id of the key sent (``admin`` for the admin token); 401/403 otherwise."""
    return use_cases().webhooks.organiser(bearer_token())


@blp.route("")
class WebhookCollection(MethodView):
    @blp.arguments(WebhookCreateSchema)
    @blp.response(201, WebhookSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403, 422)
    def post(self, body: dict[str, Any]) -> Any:
        """Register an endpoint for the lifecycle events of the caller's matches.

        The admin token's endpoints hear of the matches it created itself. Each delivery
        is a POST of the lifecycle message (as in ``GET /v1/feed``) as JSON with headers
        ``X-Rummy-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>``,
        ``X-Rummy-Delivery`` (the same on every retry) and ``X-Rummy-Event`` (the kind).
        A non-2xx answer, a redirect or no answer within 5 s is retried after 1 s, 5 s,
        30 s and 2 min (5 attempts). More than 20 endpoints is a 422
        ``too_many_webhooks``. Unless the server runs with ``RUMMY_WEBHOOK_PRIVATE=allow``, a
        URL whose host is, or resolves to, an address that is not global (loopback, private,
        shared, link-local, reserved, multicast; in any spelling) is a 422
        ``private_address_refused``; a name that does not resolve yet is accepted, and each
        delivery resolves it and checks again.
        """
        return use_cases().webhooks.register(bearer_token(), body["url"], body["secret"],
                                             body["events"])

    @blp.response(200, WebhookListSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(401, 403)
    def get(self) -> Any:
        """The caller's endpoints (never their secrets)."""
        return {"webhooks": use_cases().webhooks.listed(bearer_token())}


@blp.route("/<webhook_id>")
class WebhookItem(MethodView):
    @blp.response(204)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(401, 403, 404)
    def delete(self, webhook_id: str) -> Any:
        """Remove an endpoint and its delivery log; pending retries stop."""
        use_cases().webhooks.remove(bearer_token(), webhook_id)
        return current_app.response_class(status=204)


@blp.route("/<webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.arguments(DeliveryQuerySchema, location="query")
    @blp.response(200, DeliveryListSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403, 404)
    def get(self, query: dict[str, Any], webhook_id: str) -> Any:
        """The delivery log, newest first (the last 500 deliveries are kept)."""
        return {"deliveries": use_cases().webhooks.deliveries(
            bearer_token(), webhook_id, query["limit"], query["offset"])}
