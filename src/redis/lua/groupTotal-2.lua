--[[
  groupTotal: set a group's total on a board's group board from the group's scope board
  (docs/design.md#group-boards): the sum of its members' points, or of its best N members'.

  Computed from the scope board's state, never added up in steps, so running it again, after a
  replay, a move or a rebuild, gives the same total; a group left empty leaves the group board.

  KEYS[1]  the group's scope board (a ZSET of composite scores: lb:{s7}@g:wolves)
  KEYS[2]  the board's group board (a ZSET of totals: lb:{s7}@groups)
  ARGV[1]  the group (the member of KEYS[2])
  ARGV[2]  2^timeBits of the season's score split: points = floor(composite / step)
  ARGV[3]  N: the best N members count ("0": every member)
  ARGV[4]  expire-at of the board, unix seconds ("0": never expires)

  Returns the total (-1 when the group is empty). Composites are below 2^53 and the step a power
  of two, so the division and the sum are exact in Lua's doubles (a total below 2^53).
]]
local group, step, n, expireAt = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local scores = redis.call('ZREVRANGE', KEYS[1], 0, n > 0 and n - 1 or -1, 'WITHSCORES')
if #scores == 0 then
  redis.call('ZREM', KEYS[2], group)
  return -1
end
local total = 0
for i = 2, #scores, 2 do
  total = total + math.floor(tonumber(scores[i]) / step)
end
redis.call('ZADD', KEYS[2], total, group)
if expireAt > 0 then
  redis.call('EXPIREAT', KEYS[2], expireAt)
end
return total
