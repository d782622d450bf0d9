--[[
  lastReplaces: the rule of a LAST board (docs/design.md#last), pasted by the loader (scripts.ts)
  where a script says --- @include "includes/lastReplaces". A score's low bits (score mod 2^timeBits)
  are maxTime minus the time unit it was reached in, so fewer low bits is a later unit. A standing
  replaces the one held when it is from a later unit, or from the same unit with a higher score:
  the order PostgreSQL folds by (postgres/results-store.ts), so replays, stale writers and any
  arrival order leave what PostgreSQL holds. Scores below 2^53 are exact doubles, and so are
  their remainders by a power of two.
]]
-- Does `score` replace `held` (strings or numbers; held false: nothing held) for time step `step`?
local function lastReplaces(score, held, step)
  if not held then return true end
  local s, h = tonumber(score), tonumber(held)
  local st, ht = s % step, h % step
  return st < ht or (st == ht and s > h)
end
