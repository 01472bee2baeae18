"""The organisers' lifecycle feeds, as stored: one capped stream per organiser.

- ``{prefix}:feed:<owner>``: entries ``{"message": <JSON>}``, trimmed to about
  ``FEED_MAXLEN``, announced on the key's own channel (``fanout.notify``) so every
  process's stream hub hears of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from service.adapters.fanout import notify

FEED_MAXLEN = 5000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class FeedStore:
    """Appends to and reads the organisers' feeds."""

    def __init__(self, client: redis.Redis, prefix: str, maxlen: int = FEED_MAXLEN) -> None:
        self._client, self._prefix, self._maxlen = client, prefix, maxlen

    def key(self, owner: str) -> str:
        """The stream key of ``owner``'s feed (what the stream hub follows)."""
        return f"{self._prefix}:feed:{owner}"

    def publish(self, owner: str, messages: Sequence[str]) -> None:
        """Append ``messages`` (JSON text) to the feed in one round trip, announced once."""
        if not messages:
            return
        key = self.key(owner)
        pipe = self._client.pipeline(transaction=False)
        for message in messages:
            pipe.xadd(key, {"message": message}, maxlen=self._maxlen, approximate=True)
        notify(pipe, key)
        pipe.execute()

    def message(self, fields: Any) -> str:
        """A feed entry's message text, as read or as the stream hub delivered it."""
        return message_of(fields)

    def after(self, owner: str, position: str, count: int = 100) -> list[tuple[str, str]]:
        """Up to ``count`` (entry id, message) after ``position`` (a full entry id)."""
        entries = self._client.xrange(self.key(owner), f"({position}", "+", count=count) or []
        return [(_text(entry_id), message_of(fields)) for entry_id, fields in entries]


def message_of(fields: Any) -> str:
    """The message text of a feed entry's fields (as read or as the hub delivers them)."""
    fields = fields or {}
    return _text(fields.get(b"message") or fields.get("message") or "{}")
