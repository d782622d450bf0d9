--[[
  readAround: a player and the players around them, read at one instant. The window keeps its
  full size at the edges: rank 1 sees the 2*radius players below, last place the 2*radius above.

  KEYS[1]  the board ZSET
  KEYS[2]  the season's board versions (a hash: board label -> version)
  ARGV[1]  member (player id)
  ARGV[2]  radius (0..50)
  ARGV[3]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[4]  board label, the field of KEYS[2]

  Returns {version, size} when the player has no score on the board, or
  {version, size, firstPosition, firstRank, member1, score1, ...} where size is the board's and
  firstPosition the 0-based position of the first entry.
]]
--- @include "includes/competitionRank"
local board, radius, step = KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local version = redis.call('HGET', KEYS[2], ARGV[4]) or '0'
local size = redis.call('ZCARD', board)
local position = redis.call('ZREVRANK', board, ARGV[1])
if not position then
  return { version, size }
end
local last = size - 1
local first = math.max(0, math.min(position - radius, last - 2 * radius))
local page = redis.call('ZREVRANGE', board, first, math.min(last, first + 2 * radius), 'WITHSCORES')
local firstRank = first + 1
if step > 0 and first > 0 then
  firstRank = competitionRank(board, page[2], step)
end
table.insert(page, 1, firstRank)
table.insert(page, 1, first)
table.insert(page, 1, size)
table.insert(page, 1, version)
return page
