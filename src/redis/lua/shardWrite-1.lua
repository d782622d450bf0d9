--[[
  shardWrite: write standings to one score-range shard of a board (docs/scale-out.md), only ever
  raising a score (ZADD GT), and say which members are not on this shard.

  KEYS[1]  the shard's ZSET
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)
  ARGV[2]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[3]  "present": write only members already on this shard and return the others;
           "any": write every member (the mover, which checked the other shards, places them);
           "set": write every member's score exactly, lower ones included (removing a cheater's
           results, repairs: never ingest)
  ARGV[4], ARGV[5], ...  member, score pairs; scores are integer strings below 2^53

  Returns {changes, absent}: changes = {member, old score or "", new score, local rank, ...} for
  every member whose score rose, or changed in "set" mode (local rank: inside this shard; the caller adds the better shards'
  sizes); absent = {member, score, ...} for members not on this shard ("present" mode only).
]]
--- @include "includes/competitionRank"
local shard, expireAt, step, mode = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local changes, absent = {}, {}
for i = 4, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  local old = redis.call('ZSCORE', shard, member)
  if not old and mode == 'present' then
    absent[#absent + 1] = member
    absent[#absent + 1] = score
  elseif (mode == 'set' and redis.call('ZADD', shard, 'CH', score, member) or
          mode ~= 'set' and redis.call('ZADD', shard, 'GT', 'CH', score, member)) == 1 then
    local rank
    if step > 0 then
      rank = competitionRank(shard, score, step)
    else
      rank = redis.call('ZREVRANK', shard, member) + 1
    end
    local n = #changes
    changes[n + 1], changes[n + 2], changes[n + 3], changes[n + 4] = member, old or '', score, rank
  end
end
if expireAt > 0 and redis.call('EXISTS', shard) == 1 then
  redis.call('EXPIREAT', shard, expireAt)
end
return { changes, absent }
