// The rules by which a batch's new results combine with the stored standings, in SQL: one per
// scoring (BEST, SUM), one per LAST board (its clock pasted in) and one per board whose keys
// aggregate (per-key-rules.ts). results-store.ts runs them, one statement per rule and chunk.
import { aggregatesPerKey } from '../domain/key-aggregates.js';
import type { Season } from '../domain/season.js';
import { perKeyRule } from './per-key-rules.js';

/** How a stored standing and a batch's delta combine (the rule of domain/ranking.ts applyResult). */
type CombineRule = 'BEST_DESC' | 'BEST_ASC' | 'SUM';

/**
 * A rule's statement parts: `fold` selects one row per (board, player) from the batch's new
 * results (`b`), `set` combines it (`excluded`) with the stored row (`st`), `changed` says when
 * that changes the row; `keyState`: it also writes standings.key_state (per-key-rules.ts).
 */
export interface RuleSql {
  fold: string;
  set: string;
  changed: string;
  keyState?: boolean;
}

/**
 * The rule a board's standings fold by, and its name (boards of one name share a statement): its
 * own for LAST (its clock) and when its keys aggregate (its keys); else its scoring's.
 */
export function ruleOf(season: Season): [name: string, rule: RuleSql] {
  let rule = rules.get(season);
  if (!rule) {
    const name: CombineRule = season.scoring === 'SUM' ? 'SUM' : season.order === 'ASC' ? 'BEST_ASC' : 'BEST_DESC';
    rule = aggregatesPerKey(season.keys)
      ? [`keys:${season.id}`, perKeyRule(season.keys)]
      : season.scoring === 'LAST'
        ? [`last:${season.id}`, lastRule(season)]
        : [name, ruleSql[name]];
    rules.set(season, rule);
  }
  return rule;
}
/** Each board's rule, built once: a board's rules never change (ingest looks one up per result). */
const rules = new WeakMap<Season, [string, RuleSql]>();

// Per rule: how the batch's new results on one board fold into one delta per (board, player)
// (`b` holds them), and how that delta combines with the stored row (`st`, the delta is
// `excluded`). Both are applyResult of domain/ranking.ts written in SQL (it is associative, so
// folding first changes nothing). The WHERE skips updates that would change nothing (most BEST
// results do not beat the player's best): no dead row, no WAL, and nothing for Redis, which
// already holds that value or will get it from the replay of the chunk that wrote it. BEST and SUM
// never lower the encoded score, so Redis mirrors them with ZADD GT; LAST keeps the latest time
// unit's, which Redis checks from the scores' time bits (redis/lua/includes/lastReplaces.lua).
const ruleSql: Record<CombineRule, RuleSql> = {
  BEST_DESC: {
    fold: `select distinct on (season_id, win, period, player_id) season_id, win, period, player_id, points::int8, ended_at, metadata
           from b order by season_id, win, period, player_id, points desc, ended_at`,
    set: `points = greatest(st.points, excluded.points),
              achieved_at = case when excluded.points > st.points then excluded.achieved_at
                                 when excluded.points = st.points then least(st.achieved_at, excluded.achieved_at)
                                 else st.achieved_at end,
              metadata = case when excluded.points > st.points
                                or (excluded.points = st.points and excluded.achieved_at < st.achieved_at)
                              then excluded.metadata else st.metadata end`,
    changed: `excluded.points > st.points or (excluded.points = st.points and excluded.achieved_at < st.achieved_at)`,
  },
  BEST_ASC: {
    fold: `select distinct on (season_id, win, period, player_id) season_id, win, period, player_id, points::int8, ended_at, metadata
           from b order by season_id, win, period, player_id, points, ended_at`,
    set: `points = least(st.points, excluded.points),
              achieved_at = case when excluded.points < st.points then excluded.achieved_at
                                 when excluded.points = st.points then least(st.achieved_at, excluded.achieved_at)
                                 else st.achieved_at end,
              metadata = case when excluded.points < st.points
                                or (excluded.points = st.points and excluded.achieved_at < st.achieved_at)
                              then excluded.metadata else st.metadata end`,
    changed: `excluded.points < st.points or (excluded.points = st.points and excluded.achieved_at < st.achieved_at)`,
  },
  // A SUM total was reached when its latest positive result ended; a zero total, at its first.
  // Its metadata is that result's (the one that set achieved_at).
  SUM: {
    fold: `select season_id, win, period, player_id, sum(points)::int8,
                  case when sum(points) = 0 then min(ended_at) else max(ended_at) filter (where points > 0) end,
                  case when sum(points) = 0 then (array_agg(metadata order by ended_at))[1]
                       else (array_agg(metadata order by ended_at desc) filter (where points > 0))[1] end
           from b group by season_id, win, period, player_id order by season_id, win, period, player_id`,
    set: `points = st.points + excluded.points,
              achieved_at = case when excluded.points = 0 then
                                   case when st.points = 0 then least(st.achieved_at, excluded.achieved_at)
                                        else st.achieved_at end
                                 when st.points = 0 then excluded.achieved_at
                                 else greatest(st.achieved_at, excluded.achieved_at) end,
              metadata = case when excluded.points = 0 then
                                case when st.points = 0 and excluded.achieved_at < st.achieved_at then excluded.metadata
                                     else st.metadata end
                              when st.points = 0 or excluded.achieved_at > st.achieved_at then excluded.metadata
                              else st.metadata end`,
    changed: `excluded.points <> 0 or (st.points = 0 and excluded.achieved_at < st.achieved_at)`,
  },
};

/**
 * LAST: the result of the latest time unit of the board's clock, and within one unit the one
 * BEST keeps: better points, then the earliest. Per board, its clock pasted in (integers from its
 * row), so no lookup per row. In `newer` each pair reads "new beats held": the points pair is
 * swapped for ASC (fewer is better), and the achieved_at pair always (earlier is better).
 */
function lastRule(season: Season): RuleSql {
  const startMs = season.startsAt.getTime();
  const unitMs = season.split.timeUnitSeconds * 1000;
  // Whole units since the board's start, floored as the codec does (extract(epoch) is numeric: exact).
  const unit = (at: string) => `floor((extract(epoch from ${at}) * 1000 - ${startMs}) / ${unitMs})`;
  const desc = season.order === 'DESC';
  const [newPoints, heldPoints] = desc ? ['excluded.points', 'st.points'] : ['st.points', 'excluded.points'];
  const newer = `(${unit('excluded.achieved_at')}, ${newPoints}, st.achieved_at) > (${unit('st.achieved_at')}, ${heldPoints}, excluded.achieved_at)`;
  return {
    fold: `select distinct on (season_id, win, period, player_id) season_id, win, period, player_id, points::int8, ended_at, metadata
           from b order by season_id, win, period, player_id, ${unit('ended_at')} desc, points ${desc ? 'desc' : 'asc'}, ended_at`,
    set: `points = case when ${newer} then excluded.points else st.points end,
              achieved_at = case when ${newer} then excluded.achieved_at else st.achieved_at end,
              metadata = case when ${newer} then excluded.metadata else st.metadata end`,
    changed: newer,
  };
}

// The SEASON row of a player with a new result is always rewritten, changed or not: a new row
// version there is how a player removal (postgres/player-results-store.ts planFor) learns that a
// result of the player committed during its scan. It reaches Redis as a no-op ZADD GT.
const SEASON_ROW = `excluded."window" = 'SEASON'`;

/** A rule's ON CONFLICT ... DO UPDATE clause: its set, where it changes the row (or on SEASON). */
export function conflictUpdate(rule: RuleSql): string {
  return `${rule.set}, updated_at = now() where ${SEASON_ROW} or ${rule.changed}`;
}
