--[[
  applyStandings: write players' current standings to one board where they improve it,
  and announce the improvements in one message.

  The scores are absolute values read from PostgreSQL (the source of truth) after its
  transaction committed, so ZADD GT makes this idempotent: replaying a batch, in any order,
  any number of times, or racing a stale writer after a rebalance, leaves the board identical.
  A LAST board (ARGV[7]) may lower a score: there a standing replaces the held one when it is
  newer (includes/lastReplaces.lua), which is just as idempotent.

  KEYS[1]  the board ZSET
  KEYS[2]  the season's rebuild marker (a string with a TTL while a rebuild runs)
  KEYS[3]  the board's rebuild copy: written too while KEYS[2] exists, and given the
           marker's TTL so an abandoned copy disappears with its marker
  KEYS[4]  the season's board versions (a hash: board label -> version)
  KEYS[5]  the board's group board (lb:{s7}@groups; same hash slot), written when ARGV[5] is set
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)
  ARGV[2]  pub/sub channel for updates ("": publish nothing)
  ARGV[3]  board label, also the field of KEYS[4] ("SEASON", "DAY:2026-11-30", "WEEK:2026-W49")
  ARGV[4]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[5]  the group whose scope board KEYS[1] is, to keep its total (the sum of every member's
           points) on KEYS[5]; "" for any other board, and for a group board of the best N members
           (groupTotal-2.lua recomputes those)
  ARGV[6]  2^timeBits: points = floor(composite / ARGV[6]) (exact: a power of two)
  ARGV[7]  "GT": scores only rise (BEST, SUM); "LAST": newer standings replace older ones
  ARGV[8], ARGV[9], ...  member, score pairs; scores are integer strings below 2^53

  A group's total moves by exactly what the scores did: for each member written, its new points
  minus its old (0 when new). Every other write of a group's scope board (moves, removals,
  repairs, rebuild swaps) recomputes the total from the board (groupTotal-2.lua), and a total
  missing from KEYS[5] is recomputed here, so the total is always the sum over the board.

  Returns the number of members whose score changed. When any changed, the board's version goes
  up (below) and one message is published:
  {"b": label, "q": new version, "p": previous version, "u": [member, old score or "" when new, new score, rank, ...]}
  with "k": "set" added when a score went down (LAST boards; caches then re-read the top).
  The version orders every change of a board; reads return the version they saw (readTop-2.lua).

  The version step is includes/raiseVersion.lua (why versions never repeat, why they travel as strings).
]]
--- @include "includes/raiseVersion"
--- @include "includes/competitionRank"
--- @include "includes/lastReplaces"
local board, marker, copy, versions, groups = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local expireAt = tonumber(ARGV[1])
local channel, label, step = ARGV[2], ARGV[3], tonumber(ARGV[4])
local group, pointsStep = ARGV[5], tonumber(ARGV[6])
local last = ARGV[7] == 'LAST'
local markerTtl = redis.call('PTTL', marker)
local changes = {}
local delta = 0
local lowered = false

-- Writes `score` where the board's rule lets it replace the held score; true when it changed.
local function write(key, member, score, held)
  if not last then
    return redis.call('ZADD', key, 'GT', 'CH', score, member) == 1
  end
  if not lastReplaces(score, held, pointsStep) then return false end
  redis.call('ZADD', key, score, member)
  return true
end

for i = 8, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  if markerTtl > 0 then
    write(copy, member, score, last and redis.call('ZSCORE', copy, member))
  end
  local old = redis.call('ZSCORE', board, member)
  if write(board, member, score, old) then
    lowered = lowered or (old and tonumber(score) < tonumber(old))
    local rank
    if step > 0 then
      rank = competitionRank(board, score, step)
    else
      rank = redis.call('ZREVRANK', board, member) + 1
    end
    local n = #changes
    changes[n + 1], changes[n + 2], changes[n + 3], changes[n + 4] = member, old or '', score, rank
    if group ~= '' then
      delta = delta + math.floor(tonumber(score) / pointsStep) - (old and math.floor(tonumber(old) / pointsStep) or 0)
    end
  end
end

if group ~= '' and #changes > 0 then
  if redis.call('ZSCORE', groups, group) then
    if delta ~= 0 then
      redis.call('ZINCRBY', groups, delta, group)
    end
  else
    local total, scores = 0, redis.call('ZRANGE', board, 0, -1, 'WITHSCORES')
    for i = 2, #scores, 2 do
      total = total + math.floor(tonumber(scores[i]) / pointsStep)
    end
    redis.call('ZADD', groups, total, group)
  end
  if expireAt > 0 then
    redis.call('EXPIREAT', groups, expireAt)
  end
end

if markerTtl > 0 then
  redis.call('PEXPIRE', copy, markerTtl)
end
if expireAt > 0 then
  redis.call('EXPIREAT', board, expireAt)
end
if #changes > 0 then
  local version, previous = raiseVersion(versions, label)
  if channel ~= '' then
    local message = { b = label, q = fmt(version), p = fmt(previous), u = changes }
    if lowered then message.k = 'set' end
    redis.call('PUBLISH', channel, cjson.encode(message))
  end
end
return #changes / 4
