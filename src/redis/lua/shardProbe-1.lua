--[[
  shardProbe: one shard's size and where some players stand in it, at one instant.

  KEYS[1]  the shard's ZSET
  ARGV[1]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[2..] members (player ids)

  Returns {size, score1 or "", position1 or -1, rank1 or 0, ...}: the 0-based position inside the
  shard, and the local rank (COMPETITION: 1 + members of the shard with strictly more points;
  ORDINAL: position + 1).
]]
--- @include "includes/competitionRank"
local shard, step = KEYS[1], tonumber(ARGV[1])
local out = { redis.call('ZCARD', shard) }
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', shard, ARGV[i])
  if score then
    local position = redis.call('ZREVRANK', shard, ARGV[i])
    local rank = position + 1
    if step > 0 then
      rank = competitionRank(shard, score, step)
    end
    out[#out + 1], out[#out + 2], out[#out + 3] = score, position, rank
  else
    out[#out + 1], out[#out + 2], out[#out + 3] = '', -1, 0
  end
end
return out
