import type { BoardStanding } from '../domain/board-deltas.js';
import type { Board, BoardOfId } from '../domain/board.js';
import type { Window } from '../domain/season.js';
import { epochMs, type Sql } from './client.js';
import { notHidden } from './hidden-players-store.js';
import { scopeJoin } from './player-scopes-store.js';
import { scopePages } from './standings-reader.js';

type Row = { player_id: string; points: string; achieved_ms: string };

/** Rows of one board (player_id, points, achieved_at as epoch ms) as standings. */
const toStandings = (board: BoardOfId, rows: readonly Row[]): BoardStanding[] =>
  rows.map((r) => ({
    seasonId: board.season.id,
    window: board.window,
    period: board.period,
    playerId: r.player_id,
    points: Number(r.points),
    achievedAt: new Date(Number(r.achieved_ms)),
  }));

/**
 * One board's standings in pages ordered by player id, for reconcile. Keyset pages (`player_id >
 * last`) walk the standings primary key, so each page is one short index range scan in its own
 * snapshot: no transaction stays open for the minutes a 10M-member board takes.
 */
export function createStandingsPages(sql: Sql) {
  return {
    /** Every board of the season that has standings, with its member count. */
    async boardSizes(seasonId: number): Promise<Array<{ window: Window; period: string; members: number }>> {
      const rows = await sql<Array<{ window: Window; period: string; members: string }>>`
        select "window", period, count(*) as members from standings
        where season_id = ${seasonId} ${notHidden(sql, sql`player_id`, seasonId)} group by "window", period order by "window", period`;
      return rows.map((r) => ({ window: r.window, period: r.period, members: Number(r.members) }));
    },

    /** Up to `limit` standings of a board with player ids above `after` ('0' for the first page), by player id. */
    async page(board: BoardOfId, after: string, limit: number): Promise<BoardStanding[]> {
      const { season, window, period } = board;
      const rows = await sql<Row[]>`
        select player_id, points, ${epochMs(sql, 'achieved_at')} as achieved_ms from standings
        where season_id = ${season.id} and "window" = ${window} and period = ${period} and player_id > ${after}::int8
          ${notHidden(sql, sql`player_id`, season.id)}
        order by player_id limit ${limit}`;
      return toStandings(board, rows);
    },

    /**
     * The standings of these players on a board (ids must be canonical player ids); absent players
     * are left out, and on a scope board those not in the scope now.
     */
    async ofPlayers(board: BoardOfId, playerIds: readonly string[]): Promise<BoardStanding[]> {
      if (playerIds.length === 0) return [];
      const { season, window, period } = board;
      const rows = await sql<Row[]>`
        select s.player_id, s.points, ${epochMs(sql, 's.achieved_at')} as achieved_ms from standings s ${scopeJoin(sql, board)}
        where s.season_id = ${season.id} and s."window" = ${window} and s.period = ${period}
          and s.player_id = any(${sql.array(playerIds as string[])}::int8[]) ${notHidden(sql, sql`s.player_id`, season.id)}`;
      return toStandings(board, rows);
    },

    /** Which of these players have a standing on the board (canonical ids only; on a scope board: in the scope now). */
    async existing(board: BoardOfId, playerIds: readonly string[]): Promise<string[]> {
      if (playerIds.length === 0) return [];
      const { season, window, period } = board;
      const rows = await sql<Array<{ player_id: string }>>`
        select s.player_id from standings s ${scopeJoin(sql, board)}
        where s.season_id = ${season.id} and s."window" = ${window} and s.period = ${period}
          and s.player_id = any(${sql.array(playerIds as string[])}::int8[]) ${notHidden(sql, sql`s.player_id`, season.id)}`;
      return rows.map((r) => r.player_id);
    },

    /**
     * Every scope board of a board as PostgreSQL has it (its players with scopes, once per scope,
     * and in their league cohort), scope by scope, in pages of one scope board: one statement.
     */
    async *scopePages(board: Board, pageSize: number): AsyncGenerator<BoardStanding[]> {
      const { season, window, period } = board;
      for await (const page of scopePages(sql, season.id, window, period, season.order, pageSize)) {
        yield page.playerIds.map((playerId, i) => ({
          seasonId: season.id,
          window,
          period,
          scope: page.scope!,
          playerId,
          points: page.points[i]!,
          achievedAt: new Date(page.achievedMs[i]!),
        }));
      }
    },

    /** The metadata of these players' standings on a board (canonical ids); players without any are left out. */
    async metadata(board: BoardOfId, playerIds: readonly string[]): Promise<Map<string, unknown>> {
      if (playerIds.length === 0) return new Map();
      const { season, window, period } = board;
      const rows = await sql<Array<{ player_id: string; metadata: unknown }>>`
        select player_id, metadata from standings
        where season_id = ${season.id} and "window" = ${window} and period = ${period}
          and player_id = any(${sql.array(playerIds as string[])}::int8[]) and metadata is not null`;
      return new Map(rows.map((r) => [r.player_id, r.metadata]));
    },
  };
}
