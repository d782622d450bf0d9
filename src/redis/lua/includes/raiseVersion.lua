--[[
  raiseVersion: the one step that raises a board's version, pasted by the loader (scripts.ts)
  where a script says --- @include "includes/raiseVersion" (applyStandings-5, setStandings-4,
  swapBoard-4, boardEvent-1). The version orders every change of a board; reads return the
  version they saw (readTop-2.lua).

  Versions never repeat: the next is one more than the last and at least the clock in µs (TIME,
  below 2^53 until 2255), so a version issued after a failover that brought an older value back is
  above every one issued before it. Events carry it and the one before it ("p") as strings (cjson
  prints numbers with 14 digits): fmt(n).
]]
local function fmt(n) return string.format('%.0f', n) end

-- Raises the version of board `label` (a field of the hash `versions`); returns the new version
-- and the one before it (0 for a board that had none).
local function raiseVersion(versions, label)
  local previous = tonumber(redis.call('HGET', versions, label) or '0')
  local now = redis.call('TIME')
  local version = math.max(previous + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
  redis.call('HSET', versions, label, fmt(version))
  return version, previous
end
