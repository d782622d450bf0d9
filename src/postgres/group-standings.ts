import type { Board } from '../domain/board.js';
import type { GroupStanding } from '../domain/scopes.js';
import type { Sql } from './client.js';
import { scopeRows } from './player-scopes-store.js';
import { rankedStandings } from './ranked-standings.js';

/**
 * A group board ranked in PostgreSQL (docs/design.md#group-boards), for a closed season (from its
 * final standings) or a period past its Redis expiry (its standings ranked on the fly): each
 * group of players in it (their groups at the close for a closed season, now for a period), with
 * the sum of its members' points (its best N's with the season's groupBestOf), best total first,
 * equal totals by group id as bytes descending (Redis's order).
 */
export function createGroupStandings(sql: Sql) {
  async function read(b: Board, first: number, source: 'final' | 'standings'): Promise<GroupStanding[]> {
    const bestOf = b.season.groupBestOf ?? 0;
    const ranked =
      source === 'final'
        ? sql`select player_id, points, position from season_final_standings
              where season_id = ${b.season.id} and "window" = ${b.window}::board_window and period = ${b.period}`
        : sql`select player_id, points, position from (${rankedStandings(sql, b)}) r`;
    const rows = await sql<Array<{ group: string; points: string; members: number }>>`
      with m as (
        select g.grp, r.points, row_number() over (partition by g.grp order by r.position) as k
        from (${ranked}) r join ${scopeRows(sql, b.season, source === 'final')} p using (player_id) cross join lateral unnest(p.groups) as g(grp))
      select grp as group, total::text as points, members from (
        select grp, sum(points) filter (where ${bestOf}::int4 = 0 or k <= ${bestOf}::int4) as total, count(*)::int4 as members
        from m group by grp) t
      order by total desc, grp collate "C" desc limit ${first}`;
    return rows.map((r, i) => ({ group: r.group, points: Number(r.points), members: r.members, rank: i + 1 }));
  }
  return {
    archive: (b: Board, first: number) => read(b, first, 'final'),
    history: (b: Board, first: number) => read(b, first, 'standings'),
  };
}
