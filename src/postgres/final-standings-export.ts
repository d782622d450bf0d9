import type { Window } from '../domain/season.js';
import type { ExportFilter, ExportRow } from '../service/export-final-standings.js';
import { epochMs, type Sql } from './client.js';

type Row = {
  rank: number;
  player_id: string;
  display_name: string | null;
  points: string;
  achieved_ms: string;
  window: Window;
  period: string;
};

/** Streams a finalized season's final standings with display names, for exports of any size. */
export function createFinalStandingsExport(sql: Sql) {
  return {
    /**
     * Board by board (SEASON, DAY, WEEK; periods in order), best first: the order of the unique
     * index on (season, window, period, position), so PostgreSQL streams it without a sort.
     * A server-side cursor keeps memory at one page whatever the number of rows.
     */
    async *pages(seasonId: number, filter: ExportFilter, pageSize: number): AsyncGenerator<ExportRow[]> {
      const window = filter.window ? sql`and f."window" = ${filter.window}::board_window` : sql``;
      const period = filter.period !== undefined ? sql`and f.period = ${filter.period}` : sql``;
      const cursor = sql<Row[]>`
        select f.rank, f.player_id, p.display_name, f.points, ${epochMs(sql, 'f.achieved_at')} as achieved_ms, f."window", f.period
        from season_final_standings f left join players p on p.id = f.player_id
        where f.season_id = ${seasonId} ${window} ${period}
        order by f."window", f.period, f.position`.cursor(pageSize);
      for await (const rows of cursor) {
        yield rows.map((r) => ({
          rank: r.rank,
          playerId: r.player_id,
          displayName: r.display_name,
          points: r.points,
          achievedAt: new Date(Number(r.achieved_ms)),
          window: r.window,
          period: r.period,
        }));
      }
    },
  };
}
