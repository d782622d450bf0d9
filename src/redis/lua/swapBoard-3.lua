--[[
  swapBoard: atomically replace a board with its rebuilt copy, so readers never see the
  board empty or half-built.

  KEYS[1]  the rebuilt copy
  KEYS[2]  the live board
  KEYS[3]  a scratch key for the old board, freed with UNLINK: RENAME onto an existing key
           would DEL it synchronously, blocking Redis ~2 s for a 10M-member board
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)

  Returns 1 when swapped, 0 when there was no copy (nothing changed).
]]
local copy, board, retired = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', copy) == 0 then
  return 0
end
if redis.call('EXISTS', board) == 1 then
  redis.call('RENAME', board, retired)
  redis.call('UNLINK', retired)
end
redis.call('RENAME', copy, board)
local expireAt = tonumber(ARGV[1])
if expireAt > 0 then
  redis.call('EXPIREAT', board, expireAt)
else
  redis.call('PERSIST', board)
end
return 1
