"""Players' ratings by variant (``service.ports.Ratings``), in one Redis Cluster slot each.

Keys, hash-tagged by the variant so an update touches one slot:

- ``{prefix}:{ratings:<variant>}:players`` hash: player id -> JSON ``{name, mu, sigma,
  games}``;
- ``{prefix}:{ratings:<variant>}:order`` sorted set: player id by its displayed rating
  (what ``top`` pages through);
- ``{prefix}:{ratings:<variant>}:applied`` set: the markers of the results applied, so a
  payment that comes twice (a worker killed between the update and its ``ResultsRated``)
  rates nothing twice.

An update reads the players' ratings under ``WATCH`` and writes them with the marker in
one transaction; a concurrent update of the variant makes it start again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import redis

from service.ports import RatingRecord

ATTEMPTS = 50


class RedisRatings:
    def __init__(self, client: redis.Redis, prefix: str,
                 shown: Callable[[RatingRecord], float]) -> None:
        """``shown``: a rating's displayed value, which orders the listing."""
        self._client = client
        self._prefix = prefix
        self._shown = shown

    def _key(self, variant: str, suffix: str) -> str:
        return f"{self._prefix}:{{ratings:{variant}}}:{suffix}"

    def apply(self, variant: str, marker: str, players: Sequence[tuple[str, str]],
              update: Callable[[list[RatingRecord | None]], list[RatingRecord]]) -> bool:
        keys = [self._key(variant, suffix) for suffix in ("players", "order", "applied")]
        for _ in range(ATTEMPTS):
            with self._client.pipeline(transaction=True) as pipe:  # WATCH on a cluster too
                try:
                    pipe.watch(keys[0], keys[2])
                    if pipe.sismember(keys[2], marker):
                        return False
                    raw = pipe.hmget(keys[0], [player for player, _ in players])
                    before = [None if value is None else _record(player, value)
                              for (player, _), value in zip(players, raw, strict=True)]
                    after = update(before)
                    pipe.multi()
                    pipe.hset(keys[0], mapping={r.player: _json(r) for r in after})
                    pipe.zadd(keys[1], {r.player: self._shown(r) for r in after})
                    pipe.sadd(keys[2], marker)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue
        raise redis.RedisError(f"ratings of {variant} kept changing; {marker} not applied")

    def top(self, variant: str, offset: int, limit: int) -> tuple[int, list[RatingRecord]]:
        order = self._key(variant, "order")
        total = int(self._client.zcard(order))
        ids = [_text(player) for player in
               self._client.zrevrange(order, offset, offset + limit - 1)]
        if not ids:
            return total, []
        raw = self._client.hmget(self._key(variant, "players"), ids)
        return total, [_record(player, value) for player, value in zip(ids, raw, strict=True)
                       if value is not None]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _record(player: str, raw: bytes | str) -> RatingRecord:
    data = json.loads(raw)
    return RatingRecord(player, data["name"], data["mu"], data["sigma"], data["games"])


def _json(record: RatingRecord) -> str:
    return json.dumps({"name": record.name, "mu": record.mu, "sigma": record.sigma,
                       "games": record.games}, sort_keys=True)
