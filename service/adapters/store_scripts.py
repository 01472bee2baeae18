"""The event store's Lua scripts: each runs atomically on the keys of one match.

Status codes are integers so the reply has the same shape under RESP2, RESP3 and
``decode_responses``.
"""

OK, UNKNOWN, REPLAYED, KEY_REUSED, CONFLICT, EXISTS = range(6)

# Shared by both scripts: XADD the events encoded from ARGV[start] on.
# Per event: entry id, field count, then that many field/value pairs.
_XADD_EVENTS = """
local function xadd_events(stream, start, count)
  local pos = start
  for _ = 1, count do
    local nfields = tonumber(ARGV[pos + 1])
    redis.call('XADD', stream, ARGV[pos], unpack(ARGV, pos + 2, pos + 1 + 2 * nfields))
    pos = pos + 2 + 2 * nfields
  end
end
"""

# KEYS: events, meta. ARGV: new version, last hash, meta pair count, meta pairs...,
# event count, events...
CREATE = (
    _XADD_EVENTS
    + """
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then return {5} end
local npairs = tonumber(ARGV[3])
redis.call('HSET', KEYS[2], '_version', ARGV[1], '_last_hash', ARGV[2])
if npairs > 0 then redis.call('HSET', KEYS[2], unpack(ARGV, 4, 3 + 2 * npairs)) end
xadd_events(KEYS[1], 5 + 2 * npairs, tonumber(ARGV[4 + 2 * npairs]))
return {0, tonumber(ARGV[1])}
"""
)

# KEYS: events, meta, idem. ARGV: expected version, expected last hash, use idempotency
# ("1"/"0"), idempotency key, fingerprint, new version, new last hash, event count, events...
# The idempotency check comes before the version check: a retried command whose first
# attempt succeeded must get its first result back, not a conflict.
APPEND = (
    _XADD_EVENTS
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then return {1} end
if ARGV[3] == '1' then
  local rec = redis.call('HGET', KEYS[3], ARGV[4])
  if rec then
    local sep = string.find(rec, '|', 1, true)
    local version = tonumber(string.sub(rec, 1, sep - 1))
    if string.sub(rec, sep + 1) == ARGV[5] then return {2, version} end
    return {3, version}
  end
end
local head = redis.call('HMGET', KEYS[2], '_version', '_last_hash')
if head[1] ~= ARGV[1] or head[2] ~= ARGV[2] then return {4, tonumber(head[1]) or 0} end
xadd_events(KEYS[1], 9, tonumber(ARGV[8]))
redis.call('HSET', KEYS[2], '_version', ARGV[6], '_last_hash', ARGV[7])
if ARGV[3] == '1' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[6] .. '|' .. ARGV[5]) end
return {0, tonumber(ARGV[6])}
"""
)

# KEYS: meta. ARGV: field/value pairs. Refuses an unknown match so that update_meta can
# never make a match half-exist (meta without a head).
UPDATE_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""
