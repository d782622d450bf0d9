--[[
  lastFill: a rebuild's fill of a LAST board's copy (board-rebuilder.ts). Ingest writes the copy
  too while the rebuild runs (applyStandings-5.lua), so a standing here replaces the copy's only
  where it is newer (includes/lastReplaces.lua): a newer one ingest wrote stays.

  KEYS[1]  the board's rebuild copy
  KEYS[2]  the season's rebuild marker
  ARGV[1]  2^timeBits of the season's scores
  ARGV[2]  milliseconds both keys live on (the marker's TTL)
  ARGV[3], ARGV[4], ...  score, member pairs (ZADD's order); scores are integer strings below 2^53

  Returns how many members it wrote.
]]
--- @include "includes/lastReplaces"
local copy, marker = KEYS[1], KEYS[2]
local step, ttl = tonumber(ARGV[1]), ARGV[2]
local written = 0
redis.call('PEXPIRE', marker, ttl)
for i = 3, #ARGV, 2 do
  local score, member = ARGV[i], ARGV[i + 1]
  if lastReplaces(score, redis.call('ZSCORE', copy, member), step) then
    redis.call('ZADD', copy, score, member)
    written = written + 1
  end
end
redis.call('PEXPIRE', copy, ttl)
return written
