"""Webhooks: organisers' endpoints, their delivery log, and one signed delivery attempt.

Keys (every one under the key prefix):

- ``{prefix}:webhooks:<owner>`` hash: webhook id -> JSON record (id, url, secret, events,
  created_at). The secret is kept in clear because every delivery is signed with it; the
  API never returns it.
- ``{prefix}:{<webhook_id>}:deliveries`` hash: delivery id -> JSON record (the delivery
  log entry plus the exact body sent on every attempt).
- ``{prefix}:{<webhook_id>}:delivery_order`` sorted set: delivery id by creation time;
  the newest ``MAX_DELIVERIES`` are kept. Both hash-tagged by webhook id, so one
  transaction touches one Redis Cluster slot.

A delivery is a POST of the lifecycle message as JSON with ``X-Rummy-Signature:
sha256=<hex HMAC-SHA256(secret, raw body)>``, ``X-Rummy-Delivery`` (stable across
retries) and ``X-Rummy-Event``, and ``X-Request-Id``: the id of the request that caused
the delivery (kept in its record as ``request_id``; none for a delivery a background
step caused, ``service.correlation``). Attempts follow ``BACKOFF``: RQ jobs in real mode
(``workers.webhooks``), the in-process runner in embedded mode (``service.adapters.deliveries``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from service import correlation
from service.adapters import outbound
from service.adapters.addresses import Unreachable
from service.ports import MAX_DELIVERIES, MAX_WEBHOOKS, DeliveryRef, Webhook

log = logging.getLogger("rummy.webhooks")

ATTEMPTS = 5
BACKOFF = (1, 5, 30, 120)
"""Seconds before attempts 2..5."""
TIMEOUT_S = 5.0
"""Connect and read timeout of one attempt."""
USER_AGENT = "rummy-server-webhooks/1"

PENDING, SUCCEEDED, FAILED = "pending", "succeeded", "failed"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def sign(secret: str, body: bytes) -> str:
    """The ``X-Rummy-Signature`` value of ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Webhooks:
    """The webhook registry and delivery log (an adapter over Redis)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def _hooks_key(self, owner: str) -> str:
        return f"{self._prefix}:webhooks:{owner}"

    def _deliveries_key(self, webhook_id: str) -> str:
        return f"{self._prefix}:{{{webhook_id}}}:deliveries"

    def _order_key(self, webhook_id: str) -> str:
        return f"{self._prefix}:{{{webhook_id}}}:delivery_order"

    # --- endpoints ---------------------------------------------------------------------

    def create(self, owner: str, url: str, secret: str, events: Sequence[str]) -> Webhook | None:
        """Register an endpoint; None when the owner already has ``MAX_WEBHOOKS``."""
        if self._client.hlen(self._hooks_key(owner)) >= MAX_WEBHOOKS:
            return None
        webhook = Webhook(f"wh_{uuid.uuid4().hex[:20]}", owner, url, secret,
                          tuple(dict.fromkeys(events)), round(time.time(), 3))
        record = {**webhook.public(), "secret": secret}
        self._client.hset(self._hooks_key(owner), webhook.id, json.dumps(record))
        return webhook

    def all(self, owner: str) -> list[Webhook]:
        raw = self._client.hvals(self._hooks_key(owner)) if owner else []
        hooks = [self._decode(owner, value) for value in raw]
        return sorted(hooks, key=lambda w: (w.created_at, w.id))

    def get(self, owner: str, webhook_id: str) -> Webhook | None:
        raw = self._client.hget(self._hooks_key(owner), webhook_id)
        return None if raw is None else self._decode(owner, raw)

    def delete(self, owner: str, webhook_id: str) -> bool:
        """Remove the endpoint and its log; deliveries in flight then stop."""
        if not self._client.hdel(self._hooks_key(owner), webhook_id):
            return False
        self._client.delete(self._deliveries_key(webhook_id), self._order_key(webhook_id))
        return True

    @staticmethod
    def _decode(owner: str, raw: Any) -> Webhook:
        record = json.loads(_text(raw))
        return Webhook(record["id"], owner, record["url"], record["secret"],
                       tuple(record["events"]), record["created_at"])

    # --- the delivery log --------------------------------------------------------------

    def add_delivery(self, webhook: Webhook, message: Mapping[str, Any],
                     body: str) -> DeliveryRef | None:
        """Log a pending delivery of ``message``; None if it was logged before.

        The delivery id is derived from the webhook and the message, so a message notified
        twice is delivered once.
        """
        digest = hashlib.sha256(f"{webhook.id}|{message['id']}".encode()).hexdigest()
        delivery_id = f"dl_{digest[:24]}"
        now = round(time.time(), 3)
        record = {"id": delivery_id, "webhook_id": webhook.id, "kind": message["kind"],
                  "match_id": message["match_id"], "message_id": message["id"],
                  "status": PENDING, "attempts": 0, "last_status_code": None,
                  "last_error": None, "next_attempt_at": now, "created_at": now,
                  "delivered_at": None, "request_id": correlation.current(), "body": body}
        if not self._client.hsetnx(self._deliveries_key(webhook.id), delivery_id,
                                   json.dumps(record)):
            return None
        self._trim(webhook.id, delivery_id, now)
        return DeliveryRef(webhook.owner, webhook.id, delivery_id)

    def _trim(self, webhook_id: str, delivery_id: str, now: float) -> None:
        order = self._order_key(webhook_id)
        pipe = self._client.pipeline(transaction=True)
        pipe.zadd(order, {delivery_id: now})
        pipe.zrange(order, 0, -(MAX_DELIVERIES + 1))
        old = pipe.execute()[1]
        if old:
            pipe = self._client.pipeline(transaction=True)
            pipe.hdel(self._deliveries_key(webhook_id), *old)
            pipe.zrem(order, *old)
            pipe.execute()

    def delivery(self, webhook_id: str, delivery_id: str) -> dict[str, Any] | None:
        raw = self._client.hget(self._deliveries_key(webhook_id), delivery_id)
        return None if raw is None else dict(json.loads(_text(raw)))

    def save_delivery(self, record: Mapping[str, Any]) -> None:
        """Update a logged delivery (unless its webhook was deleted meanwhile)."""
        key = self._deliveries_key(record["webhook_id"])
        if self._client.hexists(key, record["id"]):
            self._client.hset(key, record["id"], json.dumps(dict(record)))

    def deliveries(self, webhook_id: str, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """The log, newest first, without the bodies."""
        ids = [_text(delivery_id) for delivery_id in self._client.zrevrange(
            self._order_key(webhook_id), offset, offset + limit - 1)]
        if not ids:
            return []
        raws = self._client.hmget(self._deliveries_key(webhook_id), ids)
        records = [json.loads(_text(raw)) for raw in raws if raw is not None]
        for record in records:
            record.pop("body", None)
        return records


# --- one attempt ---------------------------------------------------------------------------

UNREACHABLE = "unreachable"
"""``last_error`` of every attempt that got no HTTP answer. Whether the connection was
refused, timed out, the name did not resolve or the address policy refused it is for the
server's log only: told apart, they would let an organiser map which ports answer."""


def post(url: str, secret: str, delivery_id: str, kind: str, body: bytes,
         timeout: float, private: bool = False,
         request_id: str | None = None) -> tuple[int | None, str | None]:
    """POST one delivery: (HTTP status or None, error or None); never raises.

    ``private`` is ``RUMMY_WEBHOOK_PRIVATE=allow``; otherwise the address policy
    (``service.adapters.addresses``) holds again here, after DNS. ``request_id``: the
    request that caused the delivery, sent as ``X-Request-Id``.
    """
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               "X-Rummy-Signature": sign(secret, body), "X-Rummy-Delivery": delivery_id,
               "X-Rummy-Event": kind}
    if request_id:
        headers[correlation.HEADER] = request_id
    try:
        status = outbound.post(url, headers, body, timeout, private)
    except Unreachable as exc:  # it names the host, never the path (it may hold a key)
        log.warning("webhook delivery %s: no answer (%s)", delivery_id, exc)
        return None, UNREACHABLE
    return status, None if 200 <= status < 300 else f"HTTP {status}"


@dataclass(frozen=True)
class Outcome:
    """What one attempt did: ``retry_in`` seconds until the next one, or None when done."""

    ok: bool
    retry_in: float | None


DONE = Outcome(True, None)


def attempt(hooks: Webhooks, ref: DeliveryRef, backoff: Sequence[float] = BACKOFF,
            timeout: float = TIMEOUT_S, private: bool = False) -> Outcome:
    """Make the next attempt of a pending delivery and log it.

    A delivery no longer pending, or whose webhook is gone, is done. After
    ``ATTEMPTS`` failed attempts it is ``failed``; before that it stays ``pending`` with
    ``next_attempt_at`` set from ``backoff``. The log's times are the attempt's start, so
    one record does not tell a refused connection (at once) from a timeout (seconds later).
    The attempt's log lines carry the id of the request that caused the delivery.
    """
    webhook = hooks.get(ref.owner, ref.webhook_id)
    record = hooks.delivery(ref.webhook_id, ref.delivery_id)
    if webhook is None or record is None or record["status"] != PENDING:
        return DONE
    started = round(time.time(), 3)
    request_id = record.get("request_id") or None
    with correlation.bound(request_id or correlation.current(), correlation.current_job()):
        status, error = post(webhook.url, webhook.secret, ref.delivery_id, record["kind"],
                             record["body"].encode(), timeout, private, request_id)
    record.update(attempts=record["attempts"] + 1, last_status_code=status, last_error=error,
                  last_attempt_at=started)
    if error is None:
        record.update(status=SUCCEEDED, delivered_at=round(time.time(), 3),
                      next_attempt_at=None)
        outcome = DONE
    elif record["attempts"] >= ATTEMPTS:
        record.update(status=FAILED, next_attempt_at=None)
        outcome = Outcome(False, None)
    else:
        delay = float(backoff[min(record["attempts"], len(backoff)) - 1])
        record.update(next_attempt_at=round(started + delay, 3))
        outcome = Outcome(False, delay)
    hooks.save_delivery(record)
    return outcome
