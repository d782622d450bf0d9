--[[
  shardSet: set or remove members on one score-range shard exactly (lower scores included), each
  only if the member still holds the score the caller read: the explicit path of player removal
  and repairs (docs/scale-out.md), never ingest. The caller holds the season's mover lock, so only
  ingest's raises inside a shard (shardWrite "present") can come between its read and this write;
  such a member is left as the raise made it and returned as a conflict.

  KEYS[1]  the shard's ZSET
  ARGV[1]  expire-at of the board, unix seconds ("0": never expires)
  ARGV[2]  points step 2^timeBits for COMPETITION ranks, "0" for ORDINAL ranks
  ARGV[3], ARGV[4], ARGV[5], ...  member, expected score ("" = not on this shard), new score
           ("" removes) triples

  Returns {changes, conflicts}: changes = {member, old score or "", new score or "", local rank
  (0 when removed), ...} for every member changed; conflicts = {member, ...} whose score was not
  the expected one (nothing written for them).
]]
--- @include "includes/competitionRank"
local shard, expireAt, step = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local changes, conflicts = {}, {}
for i = 3, #ARGV, 3 do
  local member, expected, score = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local old = redis.call('ZSCORE', shard, member) or ''
  if old ~= expected then
    conflicts[#conflicts + 1] = member
  elseif (score == '' and redis.call('ZREM', shard, member) or
          score ~= '' and redis.call('ZADD', shard, 'CH', score, member)) == 1 then
    local rank = 0
    if score ~= '' and step > 0 then
      rank = competitionRank(shard, score, step)
    elseif score ~= '' then
      rank = redis.call('ZREVRANK', shard, member) + 1
    end
    local n = #changes
    changes[n + 1], changes[n + 2], changes[n + 3], changes[n + 4] = member, old, score, rank
  end
end
if expireAt > 0 and redis.call('EXISTS', shard) == 1 then
  redis.call('EXPIREAT', shard, expireAt)
end
return { changes, conflicts }
