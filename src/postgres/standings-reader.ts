import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { SortOrder, Window } from '../domain/season.js';
import type { StandingsPage } from '../domain/standings-page.js';
import { epochMs, type Sql } from './client.js';
import { notHidden, notHiddenLiteral } from './hidden-players-store.js';
import { cohortScopeOfRow, scopesOfRow } from './player-scopes-store.js';

/** Reads standings back out of PostgreSQL for rebuilds and checks. */
export function createStandingsReader(sql: Sql) {
  return {
    /**
     * Streams every standing of a season, board by board, best first within a board, in pages of
     * one board: Redis inserts members faster in score order than in random order
     * (docs/design.md#measured-facts). One statement per board, sorted by points and time alone: a
     * single statement sorting the season by board first compared two equal board columns for every
     * pair of rows, and parsed them back for every row. Each board is read by `COPY (...) TO STDOUT`
     * and its text parsed straight into columns: half the Node CPU of a cursor's rows
     * (docs/benchmarks.md, the 10M-player season).
     */
    async *seasonPages(seasonId: number, order: SortOrder, pageSize: number): AsyncGenerator<StandingsPage> {
      const boards = await boardsOf(sql, seasonId);
      // A connection of its own: the pool would send other queries to a connection in COPY mode,
      // and they would fail (COPY_IN_PROGRESS).
      const conn = await sql.reserve();
      try {
        for (const { window, period } of boards) {
          // COPY takes no parameters: the values are written into the statement, as literals.
          const query = conn`
            copy (select player_id, points, ${epochMs(conn, 'achieved_at')}
              from standings
              where season_id = ${conn.unsafe(integerLiteral(seasonId))}
                and "window" = ${conn.unsafe(textLiteral(window))} and period = ${conn.unsafe(textLiteral(period))}
                ${conn.unsafe(notHiddenLiteral('player_id', seasonId))}
              order by points ${conn.unsafe(order === 'ASC' ? 'asc' : 'desc')}, achieved_at) to stdout`;
          const stream: Readable = await query.readable();
          try {
            // Not destroyed on an early return: the connection must still read the rest (below).
            const chunks = stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
            yield* copyPages(chunks, window, period, pageSize);
          } finally {
            await settle(stream);
          }
          yield* scopePages(conn, seasonId, window, period, order, pageSize);
        }
      } finally {
        conn.release();
      }
    },
  };
}

/**
 * The standings of one board's scope boards (docs/design.md#scopes), scope by scope, best first
 * within each: every player of the board with scopes, once per scope (domain/scopes.ts scopesOf,
 * in SQL: a subdivision's player is in its country too), and once in their league cohort.
 */
export async function* scopePages(
  sql: Sql,
  seasonId: number,
  window: Window,
  period: string,
  order: SortOrder,
  pageSize: number,
): AsyncGenerator<StandingsPage> {
  const dir = sql.unsafe(order === 'ASC' ? 'asc' : 'desc');
  const rows = sql<Array<{ scope: string; player_id: string; points: string; achieved_ms: string }>>`
    select sc.scope, s.player_id::text, s.points::text, ${epochMs(sql, 's.achieved_at')}::text as achieved_ms
    from standings s
    cross join lateral (
      select unnest(${scopesOfRow(sql)}) from player_scopes p where p.player_id = s.player_id
      union all
      -- A league season's cohort (domain/leagues.ts), placed under the season's own row.
      select ${cohortScopeOfRow(sql)} from league_members m
      where m.season_id = (select coalesce(parent_id, id) from seasons where id = ${seasonId}) and m.player_id = s.player_id
    ) as sc(scope)
    where s.season_id = ${seasonId} and s."window" = ${window}::board_window and s.period = ${period}
      ${notHidden(sql, sql`s.player_id`, seasonId)}
    order by sc.scope collate "C", s.points ${dir}, s.achieved_at`.cursor(pageSize);
  let page: StandingsPage | undefined;
  for await (const batch of rows) {
    for (const r of batch) {
      if (!page || page.scope !== r.scope || page.playerIds.length === pageSize) {
        if (page) yield sized(page);
        page = { ...newPage(window, period, pageSize), scope: r.scope };
      }
      const i = page.playerIds.push(r.player_id) - 1;
      page.points[i] = Number(r.points);
      page.achievedMs[i] = Number(r.achieved_ms);
    }
  }
  if (page) yield sized(page);
}

/** A page cut to the rows it holds. */
const sized = (p: StandingsPage): StandingsPage => {
  const n = p.playerIds.length;
  return { ...p, points: p.points.subarray(0, n), achievedMs: p.achievedMs.subarray(0, n) };
};

/**
 * Leaves the connection ready for its next statement once a COPY is done. When the consumer left
 * early (a failed rebuild), reads the rest unparsed until PostgreSQL ends it (not cancelled: a cancel
 * request can land after the COPY ended, on the connection's next statement). Then resumes the
 * connection's socket: postgres.js 3.4 leaves it paused when the COPY ends while the stream is full
 * (porsager/postgres#1016), and the connection's next statement would wait forever.
 */
async function settle(stream: Readable): Promise<void> {
  stream.resume();
  await finished(stream).catch(() => {}); // a failure reached the consumer already
  stream._read(0); // postgres.js's read(): socket.resume()
}

/**
 * Parses COPY's text format of rows `player_id \t points \t achieved_ms \n` (integers; no NULL,
 * nothing escaped) into pages of `pageSize` rows, the last one shorter; a row may span chunks.
 */
export async function* copyPages(
  chunks: AsyncIterable<Buffer>,
  window: Window,
  period: string,
  pageSize: number,
): AsyncGenerator<StandingsPage> {
  let page = newPage(window, period, pageSize);
  let n = 0;
  let rest: Buffer | undefined;
  for await (const chunk of chunks) {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let end = buf.indexOf(10, start); end >= 0; end = buf.indexOf(10, start)) {
      const tab1 = buf.indexOf(9, start);
      const tab2 = buf.indexOf(9, tab1 + 1);
      if (tab1 <= start || tab2 < 0 || tab2 >= end) throw badRow(buf, start, end);
      page.playerIds.push(buf.toString('latin1', start, tab1));
      page.points[n] = integer(buf, tab1 + 1, tab2);
      page.achievedMs[n] = integer(buf, tab2 + 1, end);
      start = end + 1;
      if (++n === pageSize) {
        yield page;
        page = newPage(window, period, pageSize);
        n = 0;
      }
    }
    rest = start < buf.length ? buf.subarray(start) : undefined;
  }
  if (rest) throw badRow(rest, 0, rest.length);
  if (n > 0) yield { ...page, points: page.points.subarray(0, n), achievedMs: page.achievedMs.subarray(0, n) };
}

function newPage(window: Window, period: string, size: number): StandingsPage {
  return { window, period, playerIds: [], points: new Float64Array(size), achievedMs: new Float64Array(size) };
}

/** The decimal integer in buf[start, end): digits, an optional leading minus. */
function integer(buf: Buffer, start: number, end: number): number {
  const negative = buf[start] === 45; // '-'
  let i = negative ? start + 1 : start;
  if (i === end) throw badRow(buf, start, end);
  let n = 0;
  for (; i < end; i++) {
    const digit = buf[i]! - 48;
    if (digit < 0 || digit > 9) throw badRow(buf, start, end);
    n = n * 10 + digit;
  }
  return negative ? -n : n;
}

function badRow(buf: Buffer, start: number, end: number): Error {
  return new Error(`unexpected COPY row from standings: ${JSON.stringify(buf.toString('latin1', start, end))}`);
}

function integerLiteral(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
}

/** A string constant for any setting of standard_conforming_strings: E'...' with ' and \ escaped. */
function textLiteral(s: string): string {
  return `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
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

/**
 * The periods of one window of a season that hold standings, newest first, up to `first`, those
 * before `before` when given: a loose index scan of the primary key (one probe per period), so it
 * costs the same on a board of ten players and of ten million.
 */
export function boardPeriods(sql: Sql) {
  return (seasonId: number, window: Window, first: number, before: string | null): Promise<string[]> =>
    sql<Array<{ period: string }>>`
      with recursive p as (
        (select period from standings
          where season_id = ${seasonId} and "window" = ${window} and (${before}::text is null or period < ${before})
          order by period desc limit 1)
        union all
        select n.period from p, lateral (
          select s.period from standings s
          where s.season_id = ${seasonId} and s."window" = ${window} and s.period < p.period
          order by s.period desc limit 1) n)
      select period from p limit ${first}`.then((rows) => rows.map((r) => r.period));
}
