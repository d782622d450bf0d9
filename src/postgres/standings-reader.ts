import type { BoardStanding } from '../domain/board-deltas.js';
import type { SortOrder, Window } from '../domain/season.js';
import { epochMs, type Sql } from './client.js';
import { toStandings } from './standings-pages.js';

type Row = { player_id: string; points: string; achieved_ms: string };

/** Reads standings back out of PostgreSQL for rebuilds and checks. */
export function createStandingsReader(sql: Sql) {
  return {
    /**
     * Streams every standing of a season, board by board, best first within a board: Redis
     * inserts members ~2x faster in score order than in random order (docs/design.md#measured-facts).
     * One statement per board, sorted by points and time alone: a single statement sorting the
     * season by board first compared two equal board columns for every pair of rows, and parsed
     * them back for every row (docs/benchmarks.md, the 10M-player season).
     */
    async *seasonPages(seasonId: number, order: SortOrder, pageSize: number): AsyncGenerator<BoardStanding[]> {
      const direction = sql.unsafe(order === 'ASC' ? 'asc' : 'desc');
      for (const { window, period } of await boardsOf(sql, seasonId)) {
        // The async-iterator form: the callback form of cursor() does not await the last page.
        const cursor = sql<Row[]>`
          select player_id, points, ${epochMs(sql, 'achieved_at')} as achieved_ms
          from standings where season_id = ${seasonId} and "window" = ${window} and period = ${period}
          order by points ${direction}, achieved_at`.cursor(pageSize);
        for await (const rows of cursor) yield toStandings(seasonId, window, period, rows);
      }
    },
  };
}

/**
 * The boards of a season that have standings, in primary-key order: a skip scan of the primary
 * key (one index probe per board), where DISTINCT would read every row of the season.
 */
async function boardsOf(sql: Sql, seasonId: number): Promise<Array<{ window: Window; period: string }>> {
  return sql<Array<{ window: Window; period: string }>>`
    with recursive b as (
      (select "window", period from standings where season_id = ${seasonId} order by "window", period limit 1)
      union all
      select n."window", n.period from b, lateral (
        select s."window", s.period from standings s
        where s.season_id = ${seasonId} and (s."window", s.period) > (b."window", b.period)
        order by s."window", s.period limit 1) n)
    select "window", period from b`;
}

export type StandingsReader = ReturnType<typeof createStandingsReader>;
