import type { BoardReads } from '../service/leaderboard-reads.js';
import type { Sql } from './client.js';
import { inScope } from './player-scopes-store.js';
import { createRankedBoardReads } from './ranked-standings.js';

/**
 * Reads the boards of a finalized season from season_final_standings, written at close in
 * Redis's order: the same ranks Redis gave just before the close. Every read is an index range
 * (position for top and around, player_id for entries, max(position) for size): O(log n + page).
 * Within a scope (docs/design.md#scopes) the board's players who were in the scope at its close are ranked
 * again in that order, computed per read (O(players in the scope)).
 */
export function createFinalStandingsReader(sql: Sql): BoardReads {
  const whole = createRankedBoardReads(
    sql,
    (b) => sql`
    select player_id, points, achieved_at, position, rank
    from season_final_standings
    where season_id = ${b.season.id} and "window" = ${b.window}::board_window and period = ${b.period}`,
    false,
  );
  const scoped = createRankedBoardReads(
    sql,
    (b) => {
      // COMPETITION: players tied on the whole board share a rank, so ranking by it ties them here.
      const rank =
        b.season.rankStyle === 'COMPETITION'
          ? sql`rank() over (order by rank)`
          : sql`row_number() over (order by position)`;
      return sql`
    select player_id, points, achieved_at, (row_number() over (order by position) - 1)::int4 as position, (${rank})::int4 as rank
    from season_final_standings
    where season_id = ${b.season.id} and "window" = ${b.window}::board_window and period = ${b.period}
      and ${inScope(sql, sql`player_id`, b.scope!, b.season, true)}`;
    },
    true,
  );
  const of = (b: { scope?: string }) => (b.scope ? scoped : whole);
  return {
    size: (b) => of(b).size(b),
    top: (b, offset, limit) => of(b).top(b, offset, limit),
    around: (b, playerId, radius) => of(b).around(b, playerId, radius),
    entries: (b, playerIds) => of(b).entries(b, playerIds),
  };
}
