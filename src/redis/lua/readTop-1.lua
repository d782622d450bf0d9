--[[
  readTop: one page of a board, best first, with the rank of its first entry, read at one
  instant (a COMPETITION rank needs a ZCOUNT that must agree with the page).

  KEYS[1]  the board ZSET
  ARGV[1]  offset (0-based position of the first entry)
  ARGV[2]  count (1..1000)
  ARGV[3]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks

  Returns {firstRank, member1, score1, member2, score2, ...}; {} when the page is empty.
  The ranks of later entries follow from the page itself (see domain/page-ranks.ts).
]]
local offset, count, step = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local page = redis.call('ZREVRANGE', KEYS[1], offset, offset + count - 1, 'WITHSCORES')
if #page == 0 then
  return {}
end
local firstRank = offset + 1
if step > 0 and offset > 0 then
  local s = tonumber(page[2])
  firstRank = redis.call('ZCOUNT', KEYS[1], string.format('%.0f', s - (s % step) + step), '+inf') + 1
end
table.insert(page, 1, firstRank)
return page
