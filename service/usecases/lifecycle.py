"""Lifecycle notifications: what organisers hear about their matches (feed, webhooks).

The command runner (``service.usecases.runner``), the one path that appends events, calls
``Notifier.notify`` after every successful append, with the stored events it appended. For the
lifecycle events among them it builds one message each::

    {"id": "<match_id>-<version>", "kind": "hand_scored", "match_id", "version", "ts",
     "owner", "tags": [...], "external_id": str | null, "data": {...summary...}}

appends it to the owner's feed stream ``{prefix}:feed:<owner>`` (trimmed to about
``FEED_MAXLEN`` entries) and logs a delivery for each of the owner's webhooks subscribed
to its kind. Deliveries go to the dispatch the bootstrap wired: the in-process runner
(embedded mode) or the RQ ``webhooks`` queue. In embedded mode a match's terminal event
is also passed to the ``finished`` hook, which keeps memory in bounds by deleting the
oldest finished matches (service/usecases/retention.py). The game's append has already
happened: a failure here is logged, never raised.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import redis

from domain.controls import TERMINAL_EVENTS
from domain.events import HAND_SCORED, MATCH_ABORTED, MATCH_COMPLETED, SEAT_FORFEITED
from service.adapters.fanout import StreamHub, entry_order, notify
from service.adapters.organisers import ADMIN, OrganiserKeys
from service.adapters.store import RedisEventStore, StoredEvent
from service.adapters.webhooks import DeliveryRef, Webhooks

log = logging.getLogger("rummy.lifecycle")

KIND_OF = {HAND_SCORED.name: "hand_scored", MATCH_COMPLETED.name: "match_completed",
           SEAT_FORFEITED.name: "match_forfeited", MATCH_ABORTED.name: "match_aborted"}
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

def feed_key(prefix: str, owner: str) -> str:
    return f"{prefix}:feed:{owner}"


Dispatch = Callable[[Sequence[DeliveryRef]], None]
"""Sends logged deliveries on their way: the in-process runner (embedded) or RQ jobs."""
MetaOf = Callable[[str], Mapping[str, str] | None]
"""A match's creation metadata (owner, tags, external id): the repository's cached copy."""
Finished = Callable[[str, float], None]
"""Called as ``finished(match_id, finished_at)`` once a match's terminal event is stored
(embedded mode's retention, service/usecases/retention.py; not wired in real mode)."""


class Notifier:
    """Publishes what every successful append says to organisers; wired by the bootstrap."""

    def __init__(self, store: RedisEventStore, meta: MetaOf, dispatch: Dispatch,
                 finished: Finished | None = None) -> None:
        self.store = store
        self.meta = meta
        self.dispatch = dispatch
        self.finished = finished

    def notify(self, match_id: str, events: Sequence[StoredEvent],
               scores: Sequence[int]) -> None:
        """Publish the lifecycle events among ``events`` to the owner's feed and webhooks.

        ``scores``: the running totals after ``events`` (a hand score's message carries
        them), from the state the runner folded: no read of the log.
        """
        lifecycle = [event for event in events if event.type in KIND_OF]
        if not lifecycle:
            return
        try:
            _publish(self.store, match_id, self.meta(match_id) or {}, lifecycle,
                     self.dispatch, scores)
        except Exception:  # the game already happened; the feed and webhooks must not undo it
            log.exception("lifecycle notification of match %s failed", match_id)
        self._note_finished(match_id, lifecycle)

    def _note_finished(self, match_id: str, events: Sequence[StoredEvent]) -> None:
        """Tell the ``finished`` hook (embedded retention) when the match has ended."""
        if self.finished is None:
            return
        for event in events:
            if event.type in TERMINAL_EVENTS:
                try:
                    self.finished(match_id, event.ts)
                except Exception:  # keeping memory in bounds must not fail the game's append
                    log.exception("retention after match %s ended failed", match_id)


def _publish(store: RedisEventStore, match_id: str, meta: Mapping[str, str],
             events: Sequence[StoredEvent], dispatch: Dispatch,
             scores: Sequence[int]) -> None:
    owner = meta.get("owner", "")
    if not owner:
        return
    client, prefix = store.client, store.prefix
    hooks = Webhooks(client, prefix)
    webhooks = hooks.all(owner) if _live(client, prefix, owner) else []
    refs: list[DeliveryRef] = []
    feed = client.pipeline(transaction=False)
    for event in events:
        message = lifecycle_message(match_id, meta, event, scores)
        body = json.dumps(message, separators=(",", ":"), sort_keys=True)
        feed.xadd(feed_key(prefix, owner), {"message": body}, maxlen=FEED_MAXLEN,
                  approximate=True)
        for webhook in webhooks:
            if message["kind"] in webhook.events:
                ref = hooks.add_delivery(webhook, message, body)
                if ref is not None:
                    refs.append(ref)
    if events:
        notify(feed, feed_key(prefix, owner))
        feed.execute()
    if refs:
        dispatch(refs)


def _live(client: redis.Redis, prefix: str, owner: str) -> bool:
    """Whether the owner may still receive webhooks (a revoked organiser may not)."""
    if owner == ADMIN:
        return True
    organiser = OrganiserKeys(client, prefix).get(owner)
    return organiser is not None and organiser.revoked_at is None


def lifecycle_message(match_id: str, meta: Mapping[str, str], event: StoredEvent,
                      scores: Sequence[int]) -> dict[str, Any]:
    """The message organisers get for one lifecycle event."""
    kind = KIND_OF[event.type]
    data = {key: event.data[key] for key in _SUMMARY_FIELDS[kind] if key in event.data}
    if kind == "hand_scored" and "scores" not in data:
        data["scores"] = list(scores)
    return {"id": f"{match_id}-{event.version}", "kind": kind, "match_id": match_id,
            "version": event.version, "ts": event.ts, "owner": meta.get("owner", ""),
            "tags": _tags(meta), "external_id": meta.get("external_id") or None,
            "data": data}


def _tags(meta: Mapping[str, str]) -> list[str]:
    try:
        tags = json.loads(meta.get("tags") or "[]")
    except ValueError:
        return []
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


# --- reading the feed ----------------------------------------------------------------------

_ENTRY_ID = re.compile(r"^(\d{1,20})(?:-(\d{1,20}))?$")
_MAX_ID_PART = 2**64 - 1


def parse_entry_id(text: str) -> str | None:
    """A feed position as a full stream id (``<ms>-<seq>``), or None when it is not one."""
    found = _ENTRY_ID.match(text.strip())
    if not found:
        return None
    ms, seq = int(found.group(1)), int(found.group(2) or 0)
    if ms > _MAX_ID_PART or seq > _MAX_ID_PART:
        return None
    return f"{ms}-{seq}"


def follow_feed(hub: StreamHub, client: redis.Redis, prefix: str, owner: str, after: str,
                tags: Sequence[str], kinds: Sequence[str],
                keepalive_ms: int) -> Iterator[tuple[str, dict[str, Any]] | None]:
    """(entry id, message) for every feed message after ``after`` that matches, as they
    come; None marks a keep-alive tick. Messages filtered out still move the position.

    The backlog comes from normal reads; new messages from the process's stream hub
    (``service.adapters.fanout``), subscribed at the position the backlog reached and read
    once more after subscribing, so the switch neither loses nor repeats a message.
    """
    key = feed_key(prefix, owner)
    wanted = set(tags)
    position = [after]

    def take(entries: Iterable[tuple[Any, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
        for entry_id, fields in entries:
            entry = _text(entry_id)
            if entry_order(entry) <= entry_order(position[0]):
                continue
            position[0] = entry
            raw = (fields or {}).get(b"message") or (fields or {}).get("message") or "{}"
            message = json.loads(_text(raw))
            if wanted <= set(message.get("tags") or []) and (
                    not kinds or message.get("kind") in kinds):
                yield entry, message

    def backlog() -> Iterator[tuple[str, dict[str, Any]]]:
        while True:
            entries = client.xrange(key, f"({position[0]}", "+", count=100) or []
            yield from take(entries)
            if not entries:
                return

    yield from backlog()
    sub = hub.subscribe({key: position[0]}, keepalive_ms / 1000)
    try:
        yield from backlog()
        idle_since = time.monotonic()
        while True:
            arrived = sub.get()
            if not arrived and sub.closed:  # this process's hub is closing
                return
            if not arrived:  # the hub's keep-alive nudge
                yield None
                idle_since = time.monotonic()
                continue
            sent = False
            for item in take(entry for _, entries in arrived for entry in entries):
                sent = True
                yield item
            if sent:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since >= keepalive_ms / 1000:
                yield None
                idle_since = time.monotonic()
    finally:
        hub.unsubscribe(sub)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
