--[[
  shardRange: a range of one shard, best first, with its size and the local rank of its first
  entry, at one instant.

  KEYS[1]  the shard's ZSET
  ARGV[1]  first position (0-based, inside the shard)
  ARGV[2]  last position (inclusive)
  ARGV[3]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks

  Returns {size, firstRank, member1, score1, ...}; firstRank is local (COMPETITION: 1 + members
  of the shard with strictly more points than the first entry; ORDINAL: first position + 1).
]]
--- @include "includes/competitionRank"
local shard, first, step = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[3])
local page = redis.call('ZREVRANGE', shard, first, tonumber(ARGV[2]), 'WITHSCORES')
local firstRank = first + 1
if step > 0 and first > 0 and #page > 0 then
  firstRank = competitionRank(shard, page[2], step)
end
table.insert(page, 1, firstRank)
table.insert(page, 1, redis.call('ZCARD', shard))
return page
