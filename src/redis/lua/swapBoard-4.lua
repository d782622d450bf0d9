--[[
  swapBoard: atomically replace a board with its rebuilt copy, so readers never see the
  board empty or half-built.

  KEYS[1]  the rebuilt copy
  KEYS[2]  the live board
  KEYS[3]  a scratch key for the old board, freed with UNLINK: RENAME onto an existing key
           would DEL it synchronously, blocking Redis ~2 s for a 10M-member board
  KEYS[4]  the season's board versions (a hash: board label -> version)
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)
  ARGV[2]  pub/sub channel for updates ("": publish nothing)
  ARGV[3]  board label, also the field of KEYS[4]

  Returns 1 when swapped, 0 when there was no copy (nothing changed). A swap raises the board's
  version and publishes {"b": label, "q": version, "p": previous, "k": "swap"}: anything cached of the board
  may have changed.

  The version step is includes/raiseVersion.lua (why versions never repeat, why they travel as strings).
]]
--- @include "includes/raiseVersion"
local copy, board, retired, versions = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
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
local version, previous = raiseVersion(versions, ARGV[3])
if ARGV[2] ~= '' then
  redis.call('PUBLISH', ARGV[2], cjson.encode({ b = ARGV[3], q = fmt(version), p = fmt(previous), k = 'swap' }))
end
return 1
