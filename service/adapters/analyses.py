"""Post-game analyses (``service.ports.Analyses``): one expiring hash each, under an id the
analysis's parameters decide, so asking twice finds the first.

- ``{prefix}:{<match_id>}:analysis:<id>`` hash: ``status`` (queued, running, done or
  failed) and ``record`` (JSON). While queued or running it expires ``in_flight_s``
  after its last write, so a lost job frees its id; once done or failed, ``ttl_s``
  after. ``open`` files a new one in one script unless one is queued, running or done
  (a failed one is filed afresh), so two requests never both queue a job;
- ``{prefix}:{<match_id>}:analyses`` sorted set: id -> when its record expires at the
  latest, so the records of a match can be found (``keys_of``: embedded mode's retention
  deletes them with the match); pruned of expired ids as requests come.

Derived data: any analysis can be computed again from the log, so losing one costs a job.
Every key carries the match's hash tag (one Cluster slot), so each script touches one slot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.chain import canonical_json
from service.adapters.match_records import MatchRecords

IN_FLIGHT = ("queued", "running")

# Shared: write status ARGV[2] and record ARGV[3] to KEYS[1] for ARGV[4] s, and note in the
# index (KEYS[2], kept ARGV[6] s) that id ARGV[1] expires by ARGV[5] (epoch s).
_FILE = """
local function file()
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'record', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
"""

# _FILE's keys and arguments, and ARGV[7]: now (epoch s). Files the record unless the
# analysis is queued, running or done; replies 1 when it filed it, else 0.
OPEN = _FILE + """
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'failed' then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[7])
file()
return 1
"""

SAVE = _FILE + """
file()
return 0
"""


class AnalysisRecords(MatchRecords):
    """The analyses of every match, each expiring (``in_flight_s`` while queued or running,
    ``ttl_s`` once done or failed)."""

    record = "analysis"
    index = "analyses"
    opening = OPEN
    saving = SAVE

    def open(self, match_id: str, analysis_id: str, record: Mapping[str, Any]) -> bool:
        now = self._clock()
        return bool(self._open(keys=self._keys(match_id, analysis_id),
                               args=[*self._args(analysis_id, record, now), repr(now)]))

    def save(self, match_id: str, analysis_id: str, record: Mapping[str, Any]) -> None:
        self._save(keys=self._keys(match_id, analysis_id),
                   args=self._args(analysis_id, record, self._clock()))

    def _read(self, key: str) -> Any:
        return self._client.hget(key, "record")

    def _keys(self, match_id: str, analysis_id: str) -> list[str]:
        return [self._record_key(match_id, analysis_id), self._index_key(match_id)]

    def _args(self, analysis_id: str, record: Mapping[str, Any], now: float) -> list[Any]:
        status = str(record["status"])
        ttl = self._in_flight_s if status in IN_FLIGHT else self._ttl_s
        return [analysis_id, status, canonical_json(dict(record)), ttl, repr(now + ttl),
                max(self._ttl_s, self._in_flight_s)]
