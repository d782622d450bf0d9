--[[
  shardedHead: what a reader of a sharded board checks before and after reading its shards
  (docs/scale-out.md "Moves"): whether a move between shards is in flight, the move epoch, and
  the board's version.

  KEYS[1]  the season's move-in-flight marker (a string with a TTL while a mover moves members)
  KEYS[2]  the season's move epoch (a counter raised when a move starts and when it ends)
  KEYS[3]  the season's board versions (a hash: board label -> version)
  ARGV[1]  board label, the field of KEYS[3]

  Returns {moving (0 or 1), epoch, version}.
]]
return {
  redis.call('EXISTS', KEYS[1]),
  tonumber(redis.call('GET', KEYS[2]) or '0'),
  tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0'),
}
