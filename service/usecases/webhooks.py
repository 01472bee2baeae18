"""WebhookStore: an organiser's endpoints for the lifecycle events of its matches, and their
delivery log (the deliveries themselves: ``service.usecases.lifecycle`` and the delivery
workers).

Registration applies the address policy (``RUMMY_WEBHOOK_PRIVATE``): unless the server lets
organisers reach private addresses, a URL whose host is, or resolves to, an address that
is not public is refused here, and every delivery checks again.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any

from service.ports import MAX_WEBHOOKS, Webhook, WebhookStore
from service.usecases.access import Access
from service.usecases.errors import NotFound, Rejected, not_allowed


class WebhookRegistration:
    """What an organiser does with its webhooks."""

    def __init__(self, webhooks: WebhookStore, access: Access, private_allowed: bool,
                 refused_host: Callable[[str], bool]) -> None:
        self._webhooks = webhooks
        self._access = access
        self._private_allowed = private_allowed
        self._refused_host = refused_host

    def organiser(self, token: str | None) -> str:
        """The organiser id of the key sent (``admin`` for the admin token); 401/403
        ``organiser_only`` otherwise."""
        owner = self._access.organiser(token)
        if owner is None:
            raise not_allowed(token is not None, "organiser_only",
                              "this needs an organiser key (or the admin token)")
        return owner

    def register(self, token: str | None, url: str, secret: str,
                 events: Sequence[str]) -> dict[str, Any]:
        owner = self.organiser(token)
        self._refuse_private(url)
        webhook = self._webhooks.create(owner, url, secret, list(events))
        if webhook is None:
            raise Rejected("too_many_webhooks",
                           f"an organiser has at most {MAX_WEBHOOKS} webhooks")
        return webhook.public()

    def listed(self, token: str | None) -> list[dict[str, Any]]:
        """The caller's endpoints (never their secrets)."""
        return [webhook.public() for webhook in self._webhooks.all(self.organiser(token))]

    def remove(self, token: str | None, webhook_id: str) -> None:
        webhook = self._own(token, webhook_id)
        self._webhooks.delete(webhook.owner, webhook.id)

    def deliveries(self, token: str | None, webhook_id: str, limit: int,
                   offset: int) -> list[dict[str, Any]]:
        webhook = self._own(token, webhook_id)
        return self._webhooks.deliveries(webhook.id, limit, offset)

    def _own(self, token: str | None, webhook_id: str) -> Webhook:
        webhook = self._webhooks.get(self.organiser(token), webhook_id)
        if webhook is None:
            raise NotFound("webhook_not_found", f"no webhook {webhook_id!r}")
        return webhook

    def _refuse_private(self, url: str) -> None:
        """The address policy at registration, unless this server lets organisers reach
        private addresses."""
        if self._private_allowed:
            return
        try:
            host = urllib.parse.urlsplit(url).hostname or ""
        except ValueError:  # "[::::]": no address at all; every delivery of it fails
            return
        if self._refused_host(host):
            raise Rejected("private_address_refused",
                           "the URL's host is, or resolves to, an address that is not public; "
                           "this server delivers to public addresses only")
