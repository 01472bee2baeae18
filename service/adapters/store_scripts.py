"""The event store's Lua scripts: each runs atomically on the keys of one match.

Status codes are integers so the reply has the same shape under RESP2, RESP3 and
``decode_responses``.
"""

OK, UNKNOWN, REPLAYED, KEY_REUSED, CONFLICT, EXISTS = range(6)

# Shared by the scripts that write events: XADD the events encoded from ARGV[start] on.
# Per event: entry id, field count, then that many field/value pairs. Then tell every
# process's stream hub (service/adapters/fanout.py) on the stream's own sharded channel.
_XADD_EVENTS = """
local function xadd_events(stream, start, count)
  local pos = start
  for _ = 1, count do
    local nfields = tonumber(ARGV[pos + 1])
    redis.call('XADD', stream, ARGV[pos], unpack(ARGV, pos + 2, pos + 1 + 2 * nfields))
    pos = pos + 2 + 2 * nfields
  end
  if count > 0 then redis.call('SPUBLISH', stream, '1') end
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
# ("1"/"0"), idempotency key, fingerprint, new version, new last hash, event count, this
# call's nonce, events... The idempotency check comes before the version check: a
# retried command whose first attempt succeeded must get its first result back, not a
# conflict. Before both, the script knows itself: a client library sends a command again
# when its connection drops before the reply, and the head is then this very call's
# (its nonce, kept in the meta with the version): it answers as it did the first time.
APPEND = (
    _XADD_EVENTS
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then return {1} end
local head = redis.call('HMGET', KEYS[2], '_version', '_last_hash', '_last_append')
if head[1] == ARGV[6] and head[3] == ARGV[9] then return {0, tonumber(ARGV[6])} end
if ARGV[3] == '1' then
  local rec = redis.call('HGET', KEYS[3], ARGV[4])
  if rec then
    local sep = string.find(rec, '|', 1, true)
    local version = tonumber(string.sub(rec, 1, sep - 1))
    if string.sub(rec, sep + 1) == ARGV[5] then return {2, version} end
    return {3, version}
  end
end
if head[1] ~= ARGV[1] or head[2] ~= ARGV[2] then return {4, tonumber(head[1]) or 0} end
xadd_events(KEYS[1], 10, tonumber(ARGV[8]))
redis.call('HSET', KEYS[2], '_version', ARGV[6], '_last_hash', ARGV[7], '_last_append', ARGV[9])
if ARGV[3] == '1' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[6] .. '|' .. ARGV[5]) end
return {0, tonumber(ARGV[6])}
"""
)

# KEYS: lobby, events, meta. ARGV: seat, token hash, lobby ttl (s), field pair count,
# field pairs..., then "1", the lobby revision the start was decided from and CREATE's
# arguments when the caller read this seat as the last open one (else "0"). Claiming the
# last seat starts the match in the same script: the claim and the first events land
# together or not at all, and only if the lobby is still at the revision the events were
# decided from (every claim and leave bumps ``rev``), so they name exactly the players
# who hold the seats; else {NEED_START}, and the caller decides again. Token hashes and
# the creator's are copied from the lobby itself, so a rotation made meanwhile is kept.
# A claim whose ``namekey:<seat>`` field another seat already holds is {NAME_HELD}: the
# seats' names stay distinct however claims interleave.
CLAIM = (
    _XADD_EVENTS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {10} end
if redis.call('HEXISTS', KEYS[1], 'aborted_at') == 1 then return {10} end
local seat = ARGV[1]
if redis.call('HGET', KEYS[1], 'seat:' .. seat) ~= 'open' then return {11} end
if redis.call('HEXISTS', KEYS[1], 'token:' .. seat) == 1 then return {12} end
local open = tonumber(redis.call('HGET', KEYS[1], 'open'))
local nfields = tonumber(ARGV[4])
local at = 5 + 2 * nfields
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats') or '0')
for i = 5, at - 2, 2 do
  if ARGV[i] == 'namekey:' .. seat then
    for other = 0, seats - 1 do
      if tostring(other) ~= seat
          and redis.call('HGET', KEYS[1], 'namekey:' .. other) == ARGV[i + 1] then
        return {18}
      end
    end
  end
end
if open == 1 and ARGV[at] ~= '1' then return {13} end
local revision = redis.call('HGET', KEYS[1], 'rev') or '0'
if open == 1 and ARGV[at + 1] ~= revision then return {13} end
if open == 1 and redis.call('EXISTS', KEYS[2], KEYS[3]) > 0 then return {5} end
at = at + 1  -- past the revision: CREATE's arguments follow
redis.call('HSET', KEYS[1], 'token:' .. seat, ARGV[2])
if nfields > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + 2 * nfields)) end
if open > 1 then
  redis.call('HINCRBY', KEYS[1], 'open', -1)
  redis.call('HINCRBY', KEYS[1], 'rev', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return {14, open - 1}
end
local npairs = tonumber(ARGV[at + 3])
redis.call('HSET', KEYS[3], '_version', ARGV[at + 1], '_last_hash', ARGV[at + 2])
if npairs > 0 then
  redis.call('HSET', KEYS[3], unpack(ARGV, at + 4, at + 3 + 2 * npairs))
end
local lobby = redis.call('HGETALL', KEYS[1])
for i = 1, #lobby, 2 do
  local field = lobby[i]
  if string.sub(field, 1, 6) == 'token:' or field == 'creator' then
    redis.call('HSET', KEYS[3], field, lobby[i + 1])
  end
end
xadd_events(KEYS[2], at + 5 + 2 * npairs, tonumber(ARGV[at + 4 + 2 * npairs]))
redis.call('DEL', KEYS[1])
return {15, tonumber(ARGV[at + 1])}
"""
)

# KEYS: lobby, the match's live stream. ARGV: seat, the leaving token's hash, live maxlen,
# live key ttl ms, reply field ("" for none), fingerprint. A player gives back an open seat
# they claimed, before the match starts: the seat is open again (its player's fields and
# token hash go, ``open`` grows by one) and the token is announced revoked (``why`` =
# ``left``) on the live stream, so a stream it opened ends in whichever process holds it;
# ``rev`` is bumped (a start decided before names the player who left: see CLAIM).
# Replies {NO_LOBBY} (started or expired), {NOT_OPEN} (the creator named this seat),
# {TAKEN} (somebody else holds it) or {LEFT, open seats}; on LEFT, the reply field
# (``LobbyReply``) keeps "<fingerprint>|<open seats>", with the change.
LEAVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {10} end
if redis.call('HEXISTS', KEYS[1], 'aborted_at') == 1 then return {10} end
local seat = ARGV[1]
if redis.call('HGET', KEYS[1], 'seat:' .. seat) ~= 'open' then return {11} end
if redis.call('HGET', KEYS[1], 'token:' .. seat) ~= ARGV[2] then return {12} end
redis.call('HDEL', KEYS[1], 'token:' .. seat, 'name:' .. seat, 'namekey:' .. seat,
           'entropy:' .. seat, 'external_id:' .. seat)
local open = redis.call('HINCRBY', KEYS[1], 'open', 1)
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'seat', seat, 'revoked', ARGV[2],
           'why', 'left')
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SPUBLISH', KEYS[2], '1')
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], ARGV[5], ARGV[6] .. '|' .. open) end
return {16, open}
"""

# KEYS: lobby, the match's live stream. ARGV: reason, by, at (epoch seconds), live maxlen,
# live key ttl ms, reply field ("" for none), fingerprint. A waiting match is called off
# before it starts: the lobby record is marked (``aborted_reason``, ``aborted_by``,
# ``aborted_at``; it keeps its expiry, so the views say what happened until then), which
# every claim and leave refuses, and the end is announced on the live stream (``ended``),
# so the match's streams end in every process. Replies {0}, {10} (no such waiting match)
# or {17} (already called off); on {0}, the reply field keeps "<fingerprint>|".
ABANDON = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {10} end
if redis.call('HEXISTS', KEYS[1], 'aborted_at') == 1 then return {17} end
redis.call('HSET', KEYS[1], 'aborted_reason', ARGV[1], 'aborted_by', ARGV[2],
           'aborted_at', ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'ended', 'aborted')
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('SPUBLISH', KEYS[2], '1')
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], ARGV[6], ARGV[7] .. '|') end
return {0}
"""

# KEYS: lobby, meta, the match's live stream. ARGV: seat, new token hash, live maxlen,
# live key ttl ms. The seat's token lives in the match's meta once it started, in the
# lobby before; replies the old hash ("" when the seat has no token: open, a computer
# player's, or no such seat or match: a bot's seat keeps "" and is never given one). In
# the same step the old hash is announced revoked on the live stream (which every
# process's live streams of the match follow), so a stream the old token opened ends in
# whichever process holds it (service.adapters.presence, ``revoked_token``).
ROTATE = """
for i = 1, 2 do
  local old = redis.call('HGET', KEYS[i], 'token:' .. ARGV[1])
  if old and old ~= '' then
    redis.call('HSET', KEYS[i], 'token:' .. ARGV[1], ARGV[2])
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'seat', ARGV[1], 'revoked', old)
    redis.call('PEXPIRE', KEYS[3], ARGV[4])
    redis.call('SPUBLISH', KEYS[3], '1')
    return old
  end
end
return ''
"""
