--[[
  competitionRank: a COMPETITION rank, pasted by the loader (scripts.ts) where a script says
  --- @include "includes/competitionRank". A score is its points times the points step
  (2^timeBits) plus a time part; players with the same points share a rank, 1 + the players with
  strictly more points: those whose score is at or above the next multiple of the step. Scores
  below 2^53 are exact doubles.
]]
-- The COMPETITION rank of `score` (string or number) on the sorted set `zset`, for points step `step`.
local function competitionRank(zset, score, step)
  local s = tonumber(score)
  return redis.call('ZCOUNT', zset, string.format('%.0f', s - (s % step) + step), '+inf') + 1
end
