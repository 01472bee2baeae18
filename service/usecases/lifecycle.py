"""Lifecycle notices: what organisers hear about their matches (feed, webhooks).

``OrganiserNotices`` is a subscriber (``service.usecases.subscribers``): after every
successful write it builds one message for each lifecycle event among the stored ones::

    {"id": "<match_id>-<version>", "kind": "hand_scored", "match_id", "version", "ts",
     "owner", "tags": [...], "external_id": str | null, "data": {...summary...}}

appends it to the owner's feed (``FeedStore``) and logs a delivery for each of the owner's
webhooks subscribed to its kind; the deliveries go to the dispatch the bootstrap wired (the
in-process runner in embedded mode, the RQ ``webhooks`` queue in real mode).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from domain.events import HAND_SCORED, MATCH_ABORTED, MATCH_COMPLETED, SEAT_FORFEITED
from domain.match import Match
from service.ports import (
    DeliveryRef,
    FanOut,
    Feed,
    Organisers,
    StoredEvent,
    WebhookStore,
)
from service.usecases.following import Followed, Follower
from service.usecases.live import Ended
from service.usecases.revocation import KEY_REVOKED, KeyHolder
from service.usecases.subscribers import Appended

log = logging.getLogger("rummy.lifecycle")

KIND_OF = {HAND_SCORED.name: "hand_scored", MATCH_COMPLETED.name: "match_completed",
           SEAT_FORFEITED.name: "match_forfeited", MATCH_ABORTED.name: "match_aborted"}

_SUMMARY_FIELDS = {
    "hand_scored": ("hand_number", "result", "winner", "hand_winners", "points", "gem_parts",
                    "scores"),
    "match_completed": ("winner", "winners", "hand_scores", "bonuses", "final_scores",
                        "rounds_played"),
    "match_forfeited": ("seat", "reason", "by", "winner", "winners", "ranking",
                        "final_scores", "bonuses"),
    "match_aborted": ("reason", "by"),
}

_BODY = json.JSONEncoder(separators=(",", ":"), sort_keys=True)
"""A message's body as ``json.dumps`` with these options writes it, without building an
encoder for each message."""

Dispatch = Callable[[Sequence[DeliveryRef]], None]
"""Sends logged deliveries on their way: the in-process runner (embedded) or RQ jobs."""
MetaOf = Callable[[str], Mapping[str, str] | None]
"""A match's creation metadata (owner, tags, external id): the repository's cached copy."""


class OrganiserNotices:
    """The subscriber that tells organisers what happened to their matches."""

    def __init__(self, feed: Feed, webhooks: WebhookStore, owners: Organisers, meta: MetaOf,
                 dispatch: Dispatch) -> None:
        self.feed, self.webhooks, self.owners = feed, webhooks, owners
        self.meta, self.dispatch = meta, dispatch

    def __call__(self, appended: Appended[Match]) -> None:
        for owner, messages in self._by_owner([appended]).items():
            self.tell(owner, messages)

    def many(self, written: Sequence[Appended[Match]]) -> None:
        """Tell each owner of the written matches in one go: the owner's webhooks read
        once and its feed appended in one round trip, however many of its matches a
        worker's batch wrote."""
        for owner, messages in self._by_owner(written).items():
            try:
                self.tell(owner, messages)
            except Exception:  # one owner's failure must not keep the others uninformed
                log.exception("OrganiserNotices after a batch of writes failed: telling "
                              "organiser %s of %d messages", owner, len(messages))

    def _by_owner(self, written: Sequence[Appended[Match]]) -> dict[str, list[dict[str, Any]]]:
        """The lifecycle messages of the writes, by the owner of their match, in order."""
        by_owner: dict[str, list[dict[str, Any]]] = {}
        for appended in written:
            lifecycle = [event for event in appended.events if event.type in KIND_OF]
            if not lifecycle:
                continue
            meta = self.meta(appended.aggregate_id) or {}
            owner = meta.get("owner", "")
            if owner:
                by_owner.setdefault(owner, []).extend(
                    lifecycle_message(appended.aggregate_id, meta, event,
                                      appended.aggregate.state.scores) for event in lifecycle)
        return by_owner

    def tell(self, owner: str, messages: Sequence[dict[str, Any]]) -> None:
        """Append ``messages`` to the owner's feed and log a delivery for each of the
        owner's webhooks subscribed to a message's kind."""
        bodies = [_BODY.encode(m) for m in messages]
        webhooks = self.webhooks.all(owner) if self.owners.is_live(owner) else []
        refs = [ref for message, body in zip(messages, bodies, strict=True)
                for webhook in webhooks if message["kind"] in webhook.events
                if (ref := self.webhooks.add_delivery(webhook, message, body)) is not None]
        self.feed.publish(owner, bodies)
        if refs:
            self.dispatch(refs)


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


FeedItem = tuple[str, dict[str, Any]] | Ended | None
"""A feed message (entry id, message), the feed's ``Ended``, or None: a keep-alive tick."""


def follow_feed(hub: FanOut, feed: Feed, owner: str, after: str,
                tags: Sequence[str], kinds: Sequence[str], keepalive_ms: int,
                holder: KeyHolder | None = None) -> Iterator[FeedItem]:
    """(entry id, message) for every feed message after ``after`` that matches, as they
    come; None marks a keep-alive tick. Messages filtered out still move the position.
    A feed opened with an organiser key (``holder``) ends with ``Ended`` once the key is
    revoked (``service.usecases.revocation``), before anything appended after it.

    The feed's key is followed with the one gap-free follower
    (``service.usecases.following``), as match streams follow theirs.
    """
    wanted = set(tags)
    followed = Followed(feed.key(owner), after,
                        read=lambda position: [(entry, (entry, text)) for entry, text
                                               in feed.after(owner, position)],
                        decode=lambda entry, fields: (entry, feed.message(fields)))
    follower = Follower(hub, followed, keepalive_ms / 1000,
                        holder.watched() if holder is not None else None)
    try:
        backlog = follower.start()
        if holder is not None and not holder.stands():
            yield Ended(KEY_REVOKED)
            return
        yield from _matching(backlog, wanted, kinds)
        idle_since = time.monotonic()
        while True:
            delivery = follower.next()
            if delivery is None:  # the hub's keep-alive nudge, or its close
                if follower.closed:
                    return
                yield None
                idle_since = time.monotonic()
                continue
            if holder is not None and delivery[1] and holder.revoked_in(delivery[1]):
                yield Ended(KEY_REVOKED)
                return
            sent = False
            for found in _matching(delivery[0], wanted, kinds):
                sent = True
                yield found
            if sent:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since >= keepalive_ms / 1000:
                yield None
                idle_since = time.monotonic()
    finally:
        follower.close()


def _matching(entries: list[tuple[str, str]], wanted: set[str],
              kinds: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The feed messages among ``entries`` with every wanted tag and of a wanted kind."""
    for entry, text in entries:
        message = json.loads(text)
        if wanted <= set(message.get("tags") or []) and (
                not kinds or message.get("kind") in kinds):
            yield entry, message
