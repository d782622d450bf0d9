--[[
  readEntries: the score and rank of each of a list of players, read at one instant
  (a player's own entry, or up to 200 friends).

  KEYS[1]  the board ZSET
  ARGV[1]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[2..] members (player ids)

  Returns {member, score, rank, ...} for the members that have a score, in ARGV order;
  members without a score are left out.
]]
local board, step = KEYS[1], tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', board, ARGV[i])
  if score then
    local rank
    if step > 0 then
      local s = tonumber(score)
      rank = redis.call('ZCOUNT', board, string.format('%.0f', s - (s % step) + step), '+inf') + 1
    else
      rank = redis.call('ZREVRANK', board, ARGV[i]) + 1
    end
    out[#out + 1] = ARGV[i]
    out[#out + 1] = score
    out[#out + 1] = rank
  end
end
return out
