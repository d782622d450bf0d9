import type { BoardReads } from '../service/leaderboard-reads.js';
import type { Sql } from './client.js';
import { createRankedBoardReads } from './ranked-standings.js';

/**
 * Reads the boards of a finalized season from season_final_standings, written at close in
 * Redis's order: the same ranks Redis gave just before the close. Every read is an index range
 * (position for top and around, player_id for entries, max(position) for size): O(log n + page).
 */
export function createFinalStandingsReader(sql: Sql): BoardReads {
  return createRankedBoardReads(
    sql,
    (b) => sql`
    select player_id, points, achieved_at, position, rank
    from season_final_standings
    where season_id = ${b.season.id} and "window" = ${b.window}::board_window and period = ${b.period}`,
    false,
  );
}
