// What the console's player page reads from PostgreSQL (docs/operations.md#console): players found
// by id or name, a player's stored standings on given boards (primary-key probes), their recent
// results (one probe of the player index per day partition), and their blocks and hides.
import type { Window } from '../domain/season.js';
import { epochMs, type Sql } from './client.js';

/** A board's key: the board row, the window and the period. */
export interface BoardKey {
  boardId: number;
  window: Window;
  period: string;
}

export function createPlayerLookup(sql: Sql) {
  return {
    /**
     * Up to `limit` players: the one with this id, or those whose name starts with `text` (any
     * case). A name search reads the players table (no index on names: the console is its one
     * user); ids are the primary key.
     */
    async find(text: string, limit: number): Promise<Array<{ playerId: string; name: string | null }>> {
      const rows = /^[1-9]\d{0,18}$/.test(text)
        ? await sql<{ id: string; display_name: string | null }[]>`
            select id::text, display_name from players where id = ${text}::int8`
        : await sql<{ id: string; display_name: string | null }[]>`
            select id::text, display_name from players
            where lower(display_name) like ${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`) + '%'}
            order by display_name, id limit ${limit}`;
      return rows.map((r) => ({ playerId: r.id, name: r.display_name }));
    },

    /** The player's stored standings on these boards (absent where they have none). */
    async standings(
      playerId: string,
      keys: readonly BoardKey[],
    ): Promise<Array<BoardKey & { points: number; achievedAt: Date }>> {
      if (keys.length === 0) return [];
      const rows = await sql<
        { season_id: number; window: Window; period: string; points: string; achieved_ms: string }[]
      >`
        select s.season_id, s."window", s.period, s.points::text, ${epochMs(sql, 's.achieved_at')} as achieved_ms
        from unnest(${sql.array(keys.map((k) => k.boardId))}::int4[], ${sql.array(keys.map((k) => k.window))}::board_window[],
                    ${sql.array(keys.map((k) => k.period))}::text[]) as k(b, w, p)
        join standings s on s.season_id = k.b and s."window" = k.w and s.period = k.p and s.player_id = ${playerId}`;
      return rows.map((r) => ({
        boardId: r.season_id,
        window: r.window,
        period: r.period,
        points: Number(r.points),
        achievedAt: new Date(Number(r.achieved_ms)),
      }));
    },

    /** The player's latest `limit` results in these board rows, newest first. */
    async recentResults(
      playerId: string,
      boardIds: readonly number[],
      limit: number,
    ): Promise<Array<{ boardId: number; matchId: string; points: number; endedAt: Date }>> {
      if (boardIds.length === 0) return [];
      const rows = await sql<{ season_id: number; match_id: string; points: number; ended_ms: string }[]>`
        select season_id, match_id::text, points, ${epochMs(sql, 'ended_at')} as ended_ms
        from match_results where season_id = any(${sql.array([...boardIds])}::int4[]) and player_id = ${playerId}
        order by ended_at desc, match_id limit ${limit}`;
      return rows.map((r) => ({
        boardId: r.season_id,
        matchId: r.match_id,
        points: r.points,
        endedAt: new Date(Number(r.ended_ms)),
      }));
    },

    /** The seasons the player is blocked or hidden in, with the reason and since when. */
    async moderation(
      playerId: string,
    ): Promise<Array<{ seasonId: number; state: 'blocked' | 'hidden'; reason: string; since: Date }>> {
      const rows = await sql<{ season_id: number; state: 'blocked' | 'hidden'; reason: string; since_ms: string }[]>`
        select season_id, 'blocked' as state, reason, ${epochMs(sql, 'blocked_at')} as since_ms
        from blocked_players where player_id = ${playerId}
        union all
        select season_id, 'hidden', reason, ${epochMs(sql, 'hidden_at')} from hidden_players where player_id = ${playerId}
        order by season_id, state`;
      return rows.map((r) => ({
        seasonId: r.season_id,
        state: r.state,
        reason: r.reason,
        since: new Date(Number(r.since_ms)),
      }));
    },
  };
}

export type PlayerLookup = ReturnType<typeof createPlayerLookup>;
