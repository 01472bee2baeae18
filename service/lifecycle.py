"""Lifecycle notifications: what organisers hear about their matches (feed, webhooks).

Every path that appends events (seat actions, jobs, organiser controls, clocks) calls
``notify`` after a successful append, with the stored events it appended.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.store import RedisEventStore, StoredEvent


def notify(store: RedisEventStore, match_id: str, events: Sequence[StoredEvent]) -> None:
    """Publish the lifecycle events among ``events`` to the match owner's feed and webhooks."""
    del store, match_id, events
