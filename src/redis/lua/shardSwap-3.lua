--[[
  shardSwap: put one shard of a rebuilt sharded board in place of the live shard (docs/scale-out.md
  "Rebuild"). The caller swaps every shard of the board inside a move window, holding the mover
  lock, and raises the board's version after the last one (boardEvent-1.lua): readers retry while
  the shards are swapped, so they never mix old and new shards.

  KEYS[1]  the shard's rebuilt copy (absent: the rebuilt board has no member in this range)
  KEYS[2]  the live shard
  KEYS[3]  a scratch key for the old shard, freed with UNLINK (see swapBoard-4.lua)
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)

  Returns 1 when a copy was swapped in, 0 when the live shard was emptied.
]]
local copy, shard, retired = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', shard) == 1 then
  redis.call('RENAME', shard, retired)
  redis.call('UNLINK', retired)
end
if redis.call('EXISTS', copy) == 0 then
  return 0
end
redis.call('RENAME', copy, shard)
local expireAt = tonumber(ARGV[1])
if expireAt > 0 then
  redis.call('EXPIREAT', shard, expireAt)
else
  redis.call('PERSIST', shard)
end
return 1
