--[[
  readEntries: the score and rank of each of a list of players, read at one instant
  (a player's own entry, up to 1,000 friends, or a page of the players a rankChanged watches).

  KEYS[1]  the board ZSET
  KEYS[2]  the season's board versions (a hash: board label -> version)
  ARGV[1]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[2]  board label, the field of KEYS[2]
  ARGV[3..] members (player ids)

  Returns {version, size, member, score, rank, ...}: the board's size, then the members that have
  a score, in ARGV order; members without a score are left out.
]]
--- @include "includes/competitionRank"
local board, step = KEYS[1], tonumber(ARGV[1])
local out = { redis.call('HGET', KEYS[2], ARGV[2]) or '0', redis.call('ZCARD', board) }
if #ARGV < 3 then
  return out
end
-- Every score in one call: half the commands of a ZSCORE per member (friends lists are up to 1,000).
local scores = redis.call('ZMSCORE', board, unpack(ARGV, 3))
for i = 3, #ARGV do
  local score = scores[i - 2]
  if score then
    local rank
    if step > 0 then
      rank = competitionRank(board, score, step)
    else
      rank = redis.call('ZREVRANK', board, ARGV[i]) + 1
    end
    out[#out + 1] = ARGV[i]
    out[#out + 1] = score
    out[#out + 1] = rank
  end
end
return out
