"""RQ job: one webhook delivery attempt (``service.adapters.webhooks.attempt``).

A failed attempt raises, so RQ's ``Retry`` schedules the next one after ``BACKOFF`` (the
worker runs with ``--with-scheduler``) and the last failure lands in the failed-job
registry. The delivery log counts the attempts itself, so a job run again after its
delivery is done changes nothing. The address policy is the worker's own settings'
(``RUMMY_WEBHOOK_PRIVATE``, through ``workers.context``).
"""

from __future__ import annotations

from rq import get_current_job

from service.adapters.webhooks import DeliveryRef, Webhooks, attempt
from workers.context import wiring_for


class DeliveryFailed(Exception):
    """The endpoint did not take the delivery (this attempt)."""


def run_delivery(owner: str, webhook_id: str, delivery_id: str, prefix: str = "rummy") -> bool:
    """Attempt the delivery; True once delivered, raises ``DeliveryFailed`` otherwise."""
    if get_current_job() is None:
        raise RuntimeError("workers.webhooks functions run inside an RQ job")
    wiring = wiring_for(prefix)
    hooks = Webhooks(wiring.client, prefix)  # the events' Redis, never the jobs' apart
    private = wiring.settings.private_webhooks
    outcome = attempt(hooks, DeliveryRef(owner, webhook_id, delivery_id), private=private)
    if not outcome.ok:
        record = hooks.delivery(webhook_id, delivery_id) or {}
        raise DeliveryFailed(f"delivery {delivery_id}: attempt {record.get('attempts')} "
                             f"failed ({record.get('last_error')})")
    return True
