"""Match metadata for tournaments, and the derived indexes that find matches by it.

Metadata is fixed when a match is created and lives in its meta hash
(``{prefix}:{<match_id>}:meta``):

- ``external_id``: the caller's id of the match ("" for none);
- ``tags``: JSON list of free-form strings ("tournament:spring", "round:3", "table:5");
- ``player_ids``: JSON list, by seat, of each player's external id (null for none);
- ``names``: JSON list of the players' names, by seat;
- ``batch``: the batch that created the match, if any;
- ``duplicate_group``, ``duplicate_table`` ("1" or "2"), ``duplicate_partner``: a
  duplicate-deal pair (see service/usecases/tournaments.py).

Indexes (sorted sets, score = creation time, member = match id) are derived data,
written right after the match and rebuilt from the meta keys by ``MatchIndex.rebuild``:

- ``{prefix}:matches`` (the store's own), ``{prefix}:tag:<tag>:matches`` and
  ``{prefix}:external_id:<id>:matches``: every match, for the admin;
- ``{prefix}:owner:<owner>:matches``, ``{prefix}:owner:<owner>:tag:<tag>:matches`` and
  ``{prefix}:owner:<owner>:external_id:<id>:matches``: one organiser's matches.

Every index command touches one key, so none of this needs one Redis Cluster slot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import redis

from service.ports import MatchInfo

CHUNK = 100


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class MatchIndex:
    """The derived sorted-set indexes of matches by owner, tag and external id."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def key(self, owner: str | None, facet: str | None = None) -> str:
        """The index of every match (``owner`` None) or one owner's, narrowed to a facet
        (``tag:<tag>`` or ``external_id:<id>``) when given."""
        scope = self._prefix if owner is None else f"{self._prefix}:owner:{owner}"
        return f"{scope}:{facet}:matches" if facet else f"{scope}:matches"

    def facets(self, tags: Sequence[str], external_id: str | None) -> list[str]:
        return [f"tag:{tag}" for tag in tags] + (
            [f"external_id:{external_id}"] if external_id else [])

    def add(self, info: MatchInfo) -> None:
        """Index one match under every key its metadata puts it in."""
        pipe = self._client.pipeline(transaction=False)
        for key in self._keys_of(info):
            pipe.zadd(key, {info.id: info.created_at})
        pipe.execute()

    def remove(self, info: MatchInfo) -> None:
        """Take one match out of every index ``add`` put it in (embedded retention)."""
        pipe = self._client.pipeline(transaction=False)
        for key in self._keys_of(info):
            pipe.zrem(key, info.id)
        pipe.execute()

    def _keys_of(self, info: MatchInfo) -> list[str]:
        owners: list[str | None] = [None] + ([info.owner] if info.owner else [])
        facets = [None, *self.facets(info.tags, info.external_id)]
        return [self.key(owner, facet) for owner in owners for facet in facets]

    def narrowest(self, owner: str | None, tags: Sequence[str],
                  external_id: str | None) -> str:
        """Of the indexes a query could scan, the smallest (the others filter it)."""
        keys = [self.key(owner, facet) for facet in self.facets(tags, external_id)]
        if not keys:
            return self.key(owner)
        return min(keys, key=lambda key: int(self._client.zcard(key)))

    def scan(self, key: str, after: tuple[float, str] | None = None,
             newest_first: bool = True) -> Iterator[tuple[str, float]]:
        """(match id, score) in index order, strictly past the ``after`` position.

        Order: score, then id (both descending when ``newest_first``), so a (score, id)
        cursor is stable even when many matches share a creation millisecond.
        """
        offset = 0
        while True:
            if newest_first:
                high = "+inf" if after is None else repr(after[0])
                chunk = list(self._client.zrevrangebyscore(key, high, "-inf", start=offset,
                                                           num=CHUNK, withscores=True))
            else:
                low = "-inf" if after is None else repr(after[0])
                chunk = list(self._client.zrangebyscore(key, low, "+inf", start=offset,
                                                        num=CHUNK, withscores=True))
            for raw, score in chunk:  # type: ignore[str-unpack]  # withscores: pairs
                match_id = _text(raw)
                if after is None or self._past(after, float(score), match_id, newest_first):
                    yield match_id, float(score)
            if len(chunk) < CHUNK:
                return
            offset += CHUNK

    @staticmethod
    def _past(after: tuple[float, str], score: float, match_id: str, newest_first: bool) -> bool:
        if newest_first:
            return score < after[0] or (score == after[0] and match_id < after[1])
        return score > after[0] or (score == after[0] and match_id > after[1])

    def rebuild(self) -> int:
        """Re-index every match from its meta key; returns how many were indexed."""
        count = 0
        for key in self._client.scan_iter(match=f"{self._prefix}:{{*}}:meta", count=1000):
            name = _text(key)
            match_id = name[len(self._prefix) + 2:-len("}:meta")]
            raw = self._client.hgetall(key)
            meta = {_text(k): _text(v) for k, v in raw.items()}
            if "variant" in meta:
                self.add(MatchInfo.from_meta(match_id, meta))
                count += 1
        return count
