// Ranking in PostgreSQL, in exactly the order Redis ranks a board (src/domain/ranking.ts
// rankStandings states it): composite score descending, i.e. points (desc for DESC seasons, asc
// for ASC), then the time unit the points were reached in (earlier first), then the player id as
// bytes DESCENDING (ZREVRANGE reverses Redis's member order among equal scores).
import type postgres from 'postgres';
import type { Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';
import type { Season } from '../domain/season.js';
import type { BoardReads } from '../service/leaderboard-reads.js';
import { epochMs, type Sql, type Tx } from './client.js';
import { notHidden } from './hidden-players-store.js';
import { inScope } from './player-scopes-store.js';

type Fragment = postgres.Fragment;

/** A ranked relation's row as the readers select it (achieved_at as epoch ms). */
interface RankedRow {
  player_id: string;
  points: string;
  achieved_ms: string;
  position: number;
  rank: number;
}

/**
 * The standings of one board with each player's 0-based `position` and `rank` on it (ORDINAL:
 * position + 1; COMPETITION: 1 + players with strictly better points); within its scope, of the
 * players who are in it now. Columns: window, period,
 * player_id, points, achieved_at, position, rank.
 */
export function rankedStandings(sql: Sql | Tx, board: Board): Fragment {
  const season = board.season;
  const dir = sql.unsafe(season.order === 'ASC' ? 'asc' : 'desc');
  const startsAt = season.startsAt.toISOString();
  const unit = `${season.split.timeUnitSeconds} seconds`;
  const maxPoints = String(2 ** season.split.pointsBits - 1);
  const rank = season.rankStyle === 'COMPETITION' ? sql`rank() over by_points` : sql`row_number() over board`;
  // Only what the score codec can encode is on a Redis board: a SUM total past the season's point
  // bits is kept in PostgreSQL but was never ranked (ingest logs it), so it is not ranked here.
  // One board: window and period are constants, not columns carried through the sort (a 10M
  // board's sort is half as wide, and no longer spills twice as much to disk).
  // date_bin floors achieved_at to the start of its time unit since the season start: ordering by
  // it is ordering by the codec's t, in exact integer microseconds (no numeric epoch arithmetic).
  // The id as text collate "C": memcmp, Redis's member order (C.UTF-8 is not "C" to PG 15).
  return sql`
    select ${board.window}::board_window as "window", ${board.period}::text as period,
           s.player_id, s.points, s.achieved_at,
           (row_number() over board - 1)::int4 as position, (${rank})::int4 as rank
    from standings s
    where s.season_id = ${season.id}
      and s."window" = ${board.window}::board_window and s.period = ${board.period}
      and s.points <= ${maxPoints}::int8 and s.achieved_at >= ${startsAt}::timestamptz
      ${board.scope ? sql`and ${inScope(sql, sql`s.player_id`, board.scope, season)}` : sql``}
      ${notHidden(sql, sql`s.player_id`, season.id)}
    window by_points as (order by s.points ${dir}),
           board as (order by s.points ${dir}, date_bin(${unit}::interval, s.achieved_at, ${startsAt}::timestamptz),
                     s.player_id::text collate "C" desc)`;
}

/** achievedAt as a Redis board reports it: floored to the season's time unit (what the score codec keeps). */
function asStoredInScore(season: Season, ms: number): Date {
  const start = season.startsAt.getTime();
  const unit = season.split.timeUnitSeconds * 1000;
  return new Date(start + Math.floor((ms - start) / unit) * unit);
}

const toEntry = (season: Season, r: RankedRow): RankedStanding => ({
  playerId: r.player_id,
  points: Number(r.points),
  achievedAt: asStoredInScore(season, Number(r.achieved_ms)),
  rank: r.rank,
});

/**
 * BoardReads over a ranked relation (columns player_id, points, achieved_at, position, rank) with
 * the semantics of the Redis reader, around's edge filling included (readAround-2.lua).
 * `materialize`: compute the relation once per query (a window function over a whole board)
 * rather than inline it (a table with an index on position).
 */
export function createRankedBoardReads(sql: Sql, source: (b: Board) => Fragment, materialize: boolean): BoardReads {
  const cte = sql.unsafe(materialize ? 'materialized' : 'not materialized');
  // ORDER BY ... LIMIT 1, not max(): PostgreSQL does not turn a max() over the inlined CTE into
  // a backward index probe, and would read the whole board.
  const lastPosition = sql`(select b.position from b order by b.position desc limit 1)`;
  const cols = sql`b.player_id::text as player_id, b.points::text as points, ${epochMs(sql, 'b.achieved_at')}::text as achieved_ms, b.position, b.rank`;
  return {
    async size(b) {
      const [row] = await sql<Array<{ n: number }>>`
        with b as ${cte} (${source(b)}) select coalesce(${lastPosition} + 1, 0)::int4 as n`;
      return row!.n;
    },

    async top(b, offset, limit) {
      const rows = await sql<RankedRow[]>`
        with b as ${cte} (${source(b)})
        select ${cols} from b where b.position >= ${offset}::int4 and b.position < ${offset + limit}::int4
        order by b.position`;
      return rows.map((r) => toEntry(b.season, r));
    },

    async around(b, playerId, radius) {
      // The window keeps 2 * radius + 1 entries at the edges, like readAround-2.lua.
      const rows = await sql<RankedRow[]>`
        with b as ${cte} (${source(b)}),
        me as (select position from b where player_id = ${playerId}::int8),
        span as (select greatest(0, least(me.position - ${radius}::int4, ${lastPosition} - 2 * ${radius}::int4)) as first from me)
        select ${cols} from b, span
        where b.position between span.first and span.first + 2 * ${radius}::int4
        order by b.position`;
      return rows.map((r) => toEntry(b.season, r));
    },

    async entries(b, playerIds) {
      if (playerIds.length === 0) return [];
      const rows = await sql<RankedRow[]>`
        with b as ${cte} (${source(b)})
        select ${cols} from b where b.player_id = any(${sql.array([...playerIds])}::int8[])`;
      // In the order asked, like the Redis reader.
      const byId = new Map(rows.map((r) => [r.player_id, r]));
      return playerIds.flatMap((id) => {
        const r = byId.get(id);
        return r ? [toEntry(b.season, r)] : [];
      });
    },
  };
}

/**
 * Ranks one board's standings on the fly: for DAY and WEEK boards whose Redis key has expired.
 * Cost: every read sorts the whole board in PostgreSQL (O(n log n), see
 * docs/season-lifecycle.md). Fine for history that is rarely read; a hot board belongs in Redis.
 */
export function createStandingsRanker(sql: Sql): BoardReads {
  return createRankedBoardReads(sql, (b) => rankedStandings(sql, b), true);
}
