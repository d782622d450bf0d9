--[[
  boardEvent: raise a sharded board's version and announce its changes, after they were written
  to its shards (a board's shards live in other slots than its version; docs/scale-out.md).
  The version rises after the change, so a reader that read the version first never labels a
  state older than its version.

  KEYS[1]  the season's board versions (a hash: board label -> version)
  ARGV[1]  pub/sub channel for updates ("": publish nothing)
  ARGV[2]  board label, the field of KEYS[1]
  ARGV[3]  kind: "" (a raise), "reset" (a lowering or removal), "swap" (a rebuild)
  ARGV[4]  the changes, a JSON list [member, old score or "", new score or "", rank, ...]; "" for none

  Returns the new version; publishes {"b": label, "q": version, "p": previous, "u": changes} (without "u" when
  ARGV[4] is "", with "k" unless ARGV[3] is "").

  The version step is includes/raiseVersion.lua (why versions never repeat, why they travel as strings).
]]
--- @include "includes/raiseVersion"
local version, previous = raiseVersion(KEYS[1], ARGV[2])
if ARGV[1] ~= '' then
  local message = { b = ARGV[2], q = fmt(version), p = fmt(previous) }
  if ARGV[4] ~= '' then message.u = cjson.decode(ARGV[4]) end
  if ARGV[3] ~= '' then message.k = ARGV[3] end
  redis.call('PUBLISH', ARGV[1], cjson.encode(message))
end
return version
