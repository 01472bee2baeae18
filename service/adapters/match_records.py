"""What the match's derived job records share (verification reports, analyses): one
expiring key per record under the match's hash tag, and a sorted set per match of the
ids that may still exist, so embedded mode's retention can delete them with the match.

Each kind writes through its own two scripts (the rules for opening one differ); this
registers them, reads the records back and lists their keys.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import redis

from service.adapters.slot_moves import SlotMoveScript


def text(value: Any) -> str:
    """A Redis reply as a string (clients may or may not decode)."""
    return value.decode() if isinstance(value, bytes) else str(value)


class MatchRecords:
    """The records of one kind for every match: ``{match}:<record>:<id>`` beside the
    index ``{match}:<index>``; each expiring (``in_flight_s`` while a job owes it,
    ``ttl_s`` once it is finished)."""

    record = ""
    """The key part before each record's id."""
    index = ""
    """The key of the match's index of record ids."""
    opening = ""
    """The Lua script that files a new record, unless the kind's rules find one to answer."""
    saving = ""
    """The Lua script that files a record's later states."""

    def __init__(self, client: redis.Redis, key: Callable[[str, str], str], ttl_s: int,
                 in_flight_s: int, clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._key = key
        self._ttl_s = ttl_s
        self._in_flight_s = in_flight_s
        self._clock = clock
        self._open = SlotMoveScript(client, self.opening)
        self._save = SlotMoveScript(client, self.saving)

    def get(self, match_id: str, record_id: str) -> dict[str, Any] | None:
        raw = self._read(self._record_key(match_id, record_id))
        return None if raw is None else dict(json.loads(text(raw)))

    def keys_of(self, match_id: str) -> list[str]:
        """Every key of the match's records that may still exist."""
        index = self._index_key(match_id)
        ids = [text(raw) for raw in self._client.zrange(index, 0, -1)]
        return [index, *(self._record_key(match_id, i) for i in ids)]

    def _read(self, key: str) -> Any:
        """The stored JSON of the record at ``key``, or None."""
        return self._client.get(key)

    def _record_key(self, match_id: str, record_id: str) -> str:
        return self._key(match_id, f"{self.record}:{record_id}")

    def _index_key(self, match_id: str) -> str:
        return self._key(match_id, self.index)
