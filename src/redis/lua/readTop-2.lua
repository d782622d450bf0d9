--[[
  readTop: one page of a board, best first, with the rank of its first entry, the board's size
  and its version, all read at one instant (a COMPETITION rank needs a ZCOUNT that must agree
  with the page; `size` and the page must describe the same board).

  KEYS[1]  the board ZSET
  KEYS[2]  the season's board versions (a hash: board label -> version)
  ARGV[1]  offset (0-based position of the first entry)
  ARGV[2]  count (1..1000)
  ARGV[3]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[4]  board label, the field of KEYS[2]

  Returns {version, size, firstRank, member1, score1, member2, score2, ...}; no members when the
  page is empty. The ranks of later entries follow from the page itself (domain/page-ranks.ts).
]]
--- @include "includes/competitionRank"
local offset, count, step = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local version = redis.call('HGET', KEYS[2], ARGV[4]) or '0'
local page = redis.call('ZREVRANGE', KEYS[1], offset, offset + count - 1, 'WITHSCORES')
local firstRank = offset + 1
if step > 0 and offset > 0 and #page > 0 then
  firstRank = competitionRank(KEYS[1], page[2], step)
end
table.insert(page, 1, firstRank)
table.insert(page, 1, redis.call('ZCARD', KEYS[1]))
table.insert(page, 1, version)
return page
