"""Verification reports (``service.ports.Reports``): one expiring key each, and at most one
verification in flight per log version of a match. A tournament's are kept the same way
under its own id (``{prefix}:{<tournament_id>}:...``, the tournament's slot), by an
instance keyed by the tournaments' store.

- ``{prefix}:{<match_id>}:verification:<id>``: the record (JSON: ``status``,
  ``requested_at``, ``version``, and ``report`` once finished), kept ``ttl_s`` after its
  last write;
- ``{prefix}:{<match_id>}:verifying:<version>``: the id of the verification of that log
  version that is queued or running. ``open`` sets it with the record in one script, so
  two requests never both queue a job for one version; ``finish`` removes it in the same
  script that files the report; should the job be lost, it expires after ``in_flight_s``;
- ``{prefix}:{<match_id>}:reports`` sorted set: id -> when its record expires, so the
  records of a match can be found (``keys_of``: embedded mode's retention deletes them
  with the match); pruned of expired ids as requests come, expiring with the last record.

Derived data: any report can be recomputed from the log, so losing one costs a replay.
Every key carries the match's hash tag (one Cluster slot), so each script touches one slot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.chain import canonical_json
from service.adapters.match_records import MatchRecords, text

# Shared: write the record (KEYS[1], ARGV[2]) for ttl ARGV[3] s and note in the index
# (KEYS[2]) that id ARGV[1] expires at ARGV[4].
_FILE = """
local function file()
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
"""

# KEYS: the new record, the index, the version's in-flight pointer. ARGV: new id, record,
# record ttl (s), its expiry (epoch s), pointer ttl (s), now (epoch s). Replies the id in
# flight for the version: the one found (nothing is written), else the new one, filed.
OPEN = _FILE + """
local current = redis.call('GET', KEYS[3])
if current then return current end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
file()
redis.call('SET', KEYS[3], ARGV[1], 'EX', ARGV[5])
return ARGV[1]
"""

# KEYS: the record, the index, the version's in-flight pointer. ARGV: id, record, record
# ttl (s), its expiry (epoch s), "1" to free the version (only if the pointer still names
# this verification) or "0".
SAVE = _FILE + """
file()
if ARGV[5] == '1' and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 0
"""


class VerificationReports(MatchRecords):
    """Verification records of every match (or every tournament), each expiring
    (``ttl_s``)."""

    record = "verification"
    index = "reports"
    opening = OPEN
    saving = SAVE

    def _keys(self, match_id: str, verification_id: str, version: int | None) -> list[str]:
        held = "none" if version is None else str(version)
        return [self._record_key(match_id, verification_id), self._index_key(match_id),
                self._key(match_id, f"verifying:{held}")]

    def open(self, match_id: str, version: int, verification_id: str,
             record: Mapping[str, Any]) -> str:
        """File ``record`` as the verification of ``version``, unless one of that version
        is queued or running: then its id, and nothing is written."""
        now = self._clock()
        found = self._open(keys=self._keys(match_id, verification_id, version),
                           args=[verification_id, canonical_json(dict(record)), self._ttl_s,
                                 repr(now + self._ttl_s), self._in_flight_s, repr(now)])
        return text(found)

    def save(self, match_id: str, verification_id: str, record: Mapping[str, Any]) -> None:
        self._file(match_id, verification_id, None, record, free=False)

    def finish(self, match_id: str, verification_id: str, version: int | None,
               record: Mapping[str, Any]) -> None:
        """File the finished record; ``version`` is free for a new verification (None:
        the request's record was gone, so no version is known to be held)."""
        self._file(match_id, verification_id, version, record, free=version is not None)

    def _file(self, match_id: str, verification_id: str, version: int | None,
              record: Mapping[str, Any], free: bool) -> None:
        self._save(keys=self._keys(match_id, verification_id, version),
                   args=[verification_id, canonical_json(dict(record)), self._ttl_s,
                         repr(self._clock() + self._ttl_s), "1" if free else "0"])
