--[[
  applyStandings: write players' current standings to one board where they improve it,
  and announce the improvements in one message.

  The scores are absolute values read from PostgreSQL (the source of truth) after its
  transaction committed, so ZADD GT makes this idempotent: replaying a batch, in any order,
  any number of times, or racing a stale writer after a rebalance, leaves the board identical.

  KEYS[1]  the board ZSET
  KEYS[2]  the season's rebuild marker (a string with a TTL while a rebuild runs)
  KEYS[3]  the board's rebuild copy: written too while KEYS[2] exists, and given the
           marker's TTL so an abandoned copy disappears with its marker
  KEYS[4]  the season's board versions (a hash: board label -> version)
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)
  ARGV[2]  pub/sub channel for updates ("": publish nothing)
  ARGV[3]  board label, also the field of KEYS[4] ("SEASON", "DAY:2026-11-30", "WEEK:2026-W49")
  ARGV[4]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[5], ARGV[6], ...  member, score pairs; scores are integer strings below 2^53

  Returns the number of members whose score rose. When any rose, the board's version goes up
  (below) and one message is published:
  {"b": label, "q": new version, "p": previous version, "u": [member, old score or "" when new, new score, rank, ...]}
  The version orders every change of a board; reads return the version they saw (readTop-2.lua).

  The version step is includes/raiseVersion.lua (why versions never repeat, why they travel as strings).
]]
--- @include "includes/raiseVersion"
--- @include "includes/competitionRank"
local board, marker, copy, versions = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local expireAt = tonumber(ARGV[1])
local channel, label, step = ARGV[2], ARGV[3], tonumber(ARGV[4])
local markerTtl = redis.call('PTTL', marker)
local changes = {}

for i = 5, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  if markerTtl > 0 then
    redis.call('ZADD', copy, 'GT', score, member)
  end
  local old = redis.call('ZSCORE', board, member)
  if redis.call('ZADD', board, 'GT', 'CH', score, member) == 1 then
    local rank
    if step > 0 then
      rank = competitionRank(board, score, step)
    else
      rank = redis.call('ZREVRANK', board, member) + 1
    end
    local n = #changes
    changes[n + 1], changes[n + 2], changes[n + 3], changes[n + 4] = member, old or '', score, rank
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
    redis.call('PUBLISH', channel, cjson.encode({ b = label, q = fmt(version), p = fmt(previous), u = changes }))
  end
end
return #changes / 4
