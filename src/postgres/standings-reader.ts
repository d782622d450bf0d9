import type { BoardStanding } from '../domain/board-deltas.js';
import type { SortOrder, Window } from '../domain/season.js';
import { epochMs, type Sql } from './client.js';

type Row = { window: Window; period: string; player_id: string; points: string; achieved_ms: string };

/** Reads standings back out of PostgreSQL for rebuilds and checks. */
export function createStandingsReader(sql: Sql) {
  return {
    /**
     * Streams every standing of a season, board by board, best first within a board: Redis
     * inserts members ~2x faster in score order than in random order (docs/design.md#measured-facts).
     */
    async *seasonPages(seasonId: number, order: SortOrder, pageSize: number): AsyncGenerator<BoardStanding[]> {
      const direction = sql.unsafe(order === 'ASC' ? 'asc' : 'desc');
      // The async-iterator form: the callback form of cursor() does not await the last page.
      const cursor = sql<Row[]>`
        select "window", period, player_id, points, ${epochMs(sql, 'achieved_at')} as achieved_ms
        from standings where season_id = ${seasonId}
        order by "window", period, points ${direction}, achieved_at`.cursor(pageSize);
      for await (const rows of cursor) {
        yield rows.map((r) => ({
          seasonId,
          window: r.window,
          period: r.period,
          playerId: r.player_id,
          points: Number(r.points),
          achievedAt: new Date(Number(r.achieved_ms)),
        }));
      }
    },
  };
}

export type StandingsReader = ReturnType<typeof createStandingsReader>;
