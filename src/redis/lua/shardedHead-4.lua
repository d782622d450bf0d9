--[[
  shardedHead: what a reader of a sharded board checks before and after reading its shards
  (docs/scale-out.md "Moves"): whether a move between shards is in flight, the move epoch, the
  board's version and its shards' sizes as the last move window left them.

  KEYS[1]  the season's move-in-flight marker (a string with a TTL while a mover moves members)
  KEYS[2]  the season's move epoch (a counter raised when a move starts and when it ends)
  KEYS[3]  the season's board versions (a hash: board label -> version)
  KEYS[4]  the board's shard sizes ("n0,n1,...", worst shard first; absent while a window is open,
           after a mover died in one, or before the board's first window)
  ARGV[1]  board label, the field of KEYS[3]

  Returns {moving (0 or 1), epoch, version, sizes or ""}.
]]
return {
  redis.call('EXISTS', KEYS[1]),
  tonumber(redis.call('GET', KEYS[2]) or '0'),
  tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0'),
  redis.call('GET', KEYS[4]) or '',
}
