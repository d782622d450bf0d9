--[[
  setStandings: the explicit path that may LOWER or remove a score (removing a cheater's
  results, repairing drift found by reconcile). Ingest never uses it: it only raises scores.
  The values written are what PostgreSQL holds after its transaction committed.

  KEYS[1]  the board ZSET
  KEYS[2]  the season's rebuild marker
  KEYS[3]  the board's rebuild copy (changed the same way while KEYS[2] exists)
  KEYS[4]  the season's board versions (a hash: board label -> version)
  ARGV[1]  pub/sub channel for updates ("": publish nothing)
  ARGV[2]  board label, also the field of KEYS[4] ("SEASON", "DAY:2026-11-30", ...)
  ARGV[3], ARGV[4], ...  member, score pairs; score "" removes the member

  Returns the number of members changed. When any changed, the board's version goes up (below)
  and one message is published:
  {"b": label, "q": new version, "p": previous version, "k": "reset", "u": [member, old score or "", new score or "", rank or 0, ...]}
  Caches refresh; recordUpdated ignores it (it is no improvement).

  The version step is includes/raiseVersion.lua (why versions never repeat, why they travel as strings).
]]
--- @include "includes/raiseVersion"
local board, marker, copy, versions = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local channel, label = ARGV[1], ARGV[2]
local rebuilding = redis.call('EXISTS', marker) == 1
local changes = {}
for i = 3, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  local old = redis.call('ZSCORE', board, member)
  local n
  if score == '' then
    n = redis.call('ZREM', board, member)
    if rebuilding then redis.call('ZREM', copy, member) end
  else
    n = redis.call('ZADD', board, 'CH', score, member)
    if rebuilding then redis.call('ZADD', copy, score, member) end
  end
  if n == 1 then
    local rank = 0
    if score ~= '' then rank = redis.call('ZREVRANK', board, member) + 1 end
    local c = #changes
    changes[c + 1], changes[c + 2], changes[c + 3], changes[c + 4] = member, old or '', score, rank
  end
end
if #changes > 0 then
  local version, previous = raiseVersion(versions, label)
  if channel ~= '' then
    redis.call('PUBLISH', channel, cjson.encode({ b = label, q = fmt(version), p = fmt(previous), k = 'reset', u = changes }))
  end
end
return #changes / 4
