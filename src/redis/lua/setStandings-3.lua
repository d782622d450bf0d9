--[[
  setStandings: the explicit path that may LOWER or remove a score (removing a cheater's
  results, repairing drift found by reconcile). Ingest never uses it: it only raises scores.
  The values written are what PostgreSQL holds after its transaction committed.

  KEYS[1]  the board ZSET
  KEYS[2]  the season's rebuild marker
  KEYS[3]  the board's rebuild copy (changed the same way while KEYS[2] exists)
  ARGV[1]  pub/sub channel for updates ("": publish nothing)
  ARGV[2]  board label carried in updates ("SEASON", "DAY:2026-11-30", ...)
  ARGV[3], ARGV[4], ...  member, score pairs; score "" removes the member

  Returns the number of members changed. Each change publishes
  {"b": label, "m": member, "s": score or "", "r": new rank or 0, "k": "reset"}: caches refresh,
  recordUpdated ignores it (it is no improvement).
]]
local board, marker, copy = KEYS[1], KEYS[2], KEYS[3]
local channel, label = ARGV[1], ARGV[2]
local rebuilding = redis.call('EXISTS', marker) == 1
local changed = 0
for i = 3, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  local n
  if score == '' then
    n = redis.call('ZREM', board, member)
    if rebuilding then redis.call('ZREM', copy, member) end
  else
    n = redis.call('ZADD', board, 'CH', score, member)
    if rebuilding then redis.call('ZADD', copy, score, member) end
  end
  if n == 1 then
    changed = changed + 1
    if channel ~= '' then
      local rank = 0
      if score ~= '' then rank = redis.call('ZREVRANK', board, member) + 1 end
      redis.call('PUBLISH', channel, cjson.encode({ b = label, m = member, s = score, r = rank, k = 'reset' }))
    end
  end
end
return changed
