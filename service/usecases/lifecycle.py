"""Lifecycle notifications: what organisers hear about their matches (feed, webhooks).

Every path that appends events (seat actions, jobs, organiser controls, clocks) calls
``notify`` after a successful append, with the stored events it appended. For the
lifecycle events among them it builds one message each::

    {"id": "<match_id>-<version>", "kind": "hand_scored", "match_id", "version", "ts",
     "owner", "tags": [...], "external_id": str | null, "data": {...summary...}}

appends it to the owner's feed stream ``{prefix}:feed:<owner>`` (trimmed to about
``FEED_MAXLEN`` entries) and logs a delivery for each of the owner's webhooks subscribed
to its kind. Deliveries go to the in-process runner registered for the Redis client
(embedded mode) or else to the RQ ``webhooks`` queue. The game's append has already
happened: a failure here is logged, never raised.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import redis

from service.adapters.deliveries import DeliveryRunner
from service.adapters.jobs import JobQueue
from service.adapters.organisers import ADMIN, OrganiserKeys
from service.adapters.store import RedisEventStore, StoredEvent
from service.adapters.webhooks import DeliveryRef, Webhooks

log = logging.getLogger("rummy.lifecycle")

KIND_OF = {"HandScored": "hand_scored", "MatchCompleted": "match_completed",
           "SeatForfeited": "match_forfeited", "MatchAborted": "match_aborted"}
FEED_MAXLEN = 5000

_SUMMARY_FIELDS = {
    "hand_scored": ("hand_number", "result", "winner", "hand_winners", "points", "gem_parts",
                    "scores"),
    "match_completed": ("winner", "winners", "hand_scores", "bonuses", "final_scores",
                        "rounds_played"),
    "match_forfeited": ("seat", "reason", "by", "winner", "winners", "ranking",
                        "final_scores", "bonuses"),
    "match_aborted": ("reason", "by"),
}

# Runners by (Redis client, prefix): embedded mode's jobs run inline with the app's own
# client, so a job's notify finds the app's runner through the connection it was given.
_RUNNERS: weakref.WeakValueDictionary[tuple[int, str], DeliveryRunner] = (
    weakref.WeakValueDictionary())
_RUNNERS_LOCK = threading.Lock()


def use_runner(client: redis.Redis, prefix: str, runner: DeliveryRunner) -> None:
    """Send deliveries of matches in ``client``/``prefix`` to ``runner``, not to RQ.

    The runner holds the client, so the id cannot be reused while the entry lives.
    """
    with _RUNNERS_LOCK:
        _RUNNERS[(id(client), prefix)] = runner


def feed_key(prefix: str, owner: str) -> str:
    return f"{prefix}:feed:{owner}"


def notify(store: RedisEventStore, match_id: str, events: Sequence[StoredEvent]) -> None:
    """Publish the lifecycle events among ``events`` to the match owner's feed and webhooks."""
    lifecycle = [event for event in events if event.type in KIND_OF]
    if not lifecycle:
        return
    try:
        _publish(store, match_id, lifecycle)
    except Exception:  # the game already happened; the feed and webhooks must not undo it
        log.exception("lifecycle notification of match %s failed", match_id)


def _publish(store: RedisEventStore, match_id: str, events: Sequence[StoredEvent]) -> None:
    meta = store.meta(match_id) or {}
    owner = meta.get("owner", "")
    if not owner:
        return
    client, prefix = store.client, store.prefix
    hooks = Webhooks(client, prefix)
    webhooks = hooks.all(owner) if _live(client, prefix, owner) else []
    refs: list[DeliveryRef] = []
    for event in events:
        message = lifecycle_message(store, match_id, meta, event)
        body = json.dumps(message, separators=(",", ":"), sort_keys=True)
        client.xadd(feed_key(prefix, owner), {"message": body}, maxlen=FEED_MAXLEN,
                    approximate=True)
        for webhook in webhooks:
            if message["kind"] in webhook.events:
                ref = hooks.add_delivery(webhook, message, body)
                if ref is not None:
                    refs.append(ref)
    if refs:
        _dispatch(client, prefix, refs)


def _live(client: redis.Redis, prefix: str, owner: str) -> bool:
    """Whether the owner may still receive webhooks (a revoked organiser may not)."""
    if owner == ADMIN:
        return True
    organiser = OrganiserKeys(client, prefix).get(owner)
    return organiser is not None and organiser.revoked_at is None


def _dispatch(client: redis.Redis, prefix: str, refs: Sequence[DeliveryRef]) -> None:
    runner = _RUNNERS.get((id(client), prefix))
    if runner is not None:
        for ref in refs:
            runner.submit(ref)
        return
    jobs = JobQueue(client, prefix, run_inline=False)
    for ref in refs:
        jobs.enqueue_delivery(ref.owner, ref.webhook_id, ref.delivery_id)


def lifecycle_message(store: RedisEventStore, match_id: str, meta: Mapping[str, str],
                      event: StoredEvent) -> dict[str, Any]:
    """The message organisers get for one lifecycle event."""
    kind = KIND_OF[event.type]
    data = {key: event.data[key] for key in _SUMMARY_FIELDS[kind] if key in event.data}
    if kind == "hand_scored" and "scores" not in data:
        data["scores"] = _scores_after(store, match_id, event)
    return {"id": f"{match_id}-{event.version}", "kind": kind, "match_id": match_id,
            "version": event.version, "ts": event.ts, "owner": meta.get("owner", ""),
            "tags": _tags(meta), "external_id": meta.get("external_id") or None,
            "data": data}


def _scores_after(store: RedisEventStore, match_id: str, event: StoredEvent) -> list[int]:
    """Running totals after a hand: the sum of every ``HandScored``'s points (the
    variants' ``evolve`` adds them up the same way)."""
    totals = [0] * len(event.data.get("points", []))
    for stored in store.read(match_id, until=event.version):
        if stored.type == "HandScored":
            totals = [t + p for t, p in zip(totals, stored.data.get("points", []), strict=False)]
    return totals


def _tags(meta: Mapping[str, str]) -> list[str]:
    try:
        tags = json.loads(meta.get("tags") or "[]")
    except ValueError:
        return []
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


# --- reading the feed ----------------------------------------------------------------------

_ENTRY_ID = re.compile(r"^(\d{1,20})(?:-(\d{1,20}))?$")
_MAX_ID_PART = 2**64 - 1
_MAX_BLOCK_MS = 1000


def parse_entry_id(text: str) -> str | None:
    """A feed position as a full stream id (``<ms>-<seq>``), or None when it is not one."""
    found = _ENTRY_ID.match(text.strip())
    if not found:
        return None
    ms, seq = int(found.group(1)), int(found.group(2) or 0)
    if ms > _MAX_ID_PART or seq > _MAX_ID_PART:
        return None
    return f"{ms}-{seq}"


def follow_feed(client: redis.Redis, prefix: str, owner: str, after: str,
                tags: Sequence[str], kinds: Sequence[str],
                keepalive_ms: int) -> Iterator[tuple[str, dict[str, Any]] | None]:
    """(entry id, message) for every feed message after ``after`` that matches, as they
    come; None marks a keep-alive tick. Messages filtered out still move the position."""
    key = feed_key(prefix, owner)
    wanted = set(tags)
    idle_since = time.monotonic()
    while True:
        entries = client.xrange(key, f"({after}", "+", count=100) or []
        for entry_id, fields in entries:
            after = _text(entry_id)
            raw = (fields or {}).get(b"message") or (fields or {}).get("message") or "{}"
            message = json.loads(_text(raw))
            if wanted <= set(message.get("tags") or []) and (
                    not kinds or message.get("kind") in kinds):
                yield after, message
                idle_since = time.monotonic()
        if entries:
            continue
        remaining_ms = keepalive_ms - int((time.monotonic() - idle_since) * 1000)
        if remaining_ms <= 0:
            yield None
            idle_since = time.monotonic()
            continue
        client.xread({key: after}, count=1, block=max(1, min(remaining_ms, _MAX_BLOCK_MS)))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
