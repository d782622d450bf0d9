import { rebuildInProgress, seasonClosed } from '../domain/errors.js';
import type { Season, SortOrder, Window } from '../domain/season.js';
import type { StandingsPage, StandingsRows } from '../domain/standings-page.js';
import { isBoardExpired } from '../domain/board.js';

export interface StandingsSource {
  /** Every standing of the season, board by board, best first within a board; a page holds one board's rows. */
  seasonPages(seasonId: number, order: SortOrder, pageSize: number): AsyncIterable<StandingsPage>;
}

export interface RebuildTarget {
  acquire(seasonId: number): Promise<boolean>;
  fill(season: Season, window: Window, period: string, rows: StandingsRows): Promise<void>;
  swap(season: Season, window: Window, period: string): Promise<void>;
  /** Ends the rebuild: its marker and every copy of the season go. */
  release(seasonId: number): Promise<void>;
}

export interface RebuildReport {
  seasonId: number;
  boards: number;
  members: number;
  /** Window boards past their expiry, left out of Redis (they stay in PostgreSQL). */
  expiredBoardsSkipped: number;
  durationMs: number;
}

/**
 * Rebuilds every live board of a season from PostgreSQL standings: each board is filled into a
 * copy and swapped in atomically, so the live board is never empty, and results ingested
 * meanwhile reach the copy too (see RebuildTarget.acquire). One rebuild per season at a time.
 */
export async function rebuildSeason(
  deps: {
    source: StandingsSource;
    target: RebuildTarget;
    expireAt(season: Season, window: Window, period: string): number;
    now(): number;
    onProgress?(members: number): void;
  },
  season: Season,
): Promise<RebuildReport> {
  const started = deps.now();
  // A finalized season is read from its final standings; a rebuild would only bring back the
  // Redis keys its close removed.
  if (season.finalizedAt) {
    throw seasonClosed(season.id, 'is closed and final; its boards are read from PostgreSQL');
  }
  if (!(await deps.target.acquire(season.id))) {
    throw rebuildInProgress(season.id);
  }
  const done: Array<{ window: Window; period: string }> = [];
  let current: { window: Window; period: string } | undefined;
  let members = 0;
  let expired = 0;
  const isLive = (w: Window, p: string) => !isBoardExpired(deps.expireAt(season, w, p), deps.now());
  // The write of a page runs while the next page is read from PostgreSQL: one write at a time,
  // in order, so a rebuild takes about the longer of the two rather than their sum.
  let writing: Promise<void> = Promise.resolve();
  const write = async (board: { window: Window; period: string }, rows: StandingsRows) => {
    await writing;
    writing = deps.target.fill(season, board.window, board.period, rows).then(() => {
      members += rows.playerIds.length;
      deps.onProgress?.(members);
    });
    writing.catch(() => {}); // awaited (and thrown) by the next write or the board's finish
  };
  try {
    for await (const page of readAhead(deps.source.seasonPages(season.id, season.order, 5_000))) {
      if (!current || page.window !== current.window || page.period !== current.period) {
        if (current) await finish(current);
        current = { window: page.window, period: page.period };
      }
      if (page.playerIds.length > 0 && isLive(current.window, current.period)) await write(current, page);
    }
    if (current) await finish(current);
  } finally {
    await writing.catch(() => {});
    await deps.target.release(season.id);
  }
  return {
    seasonId: season.id,
    boards: done.length,
    members,
    expiredBoardsSkipped: expired,
    durationMs: deps.now() - started,
  };

  async function finish(board: { window: Window; period: string }): Promise<void> {
    await writing;
    if (!isLive(board.window, board.period)) {
      expired++;
      return;
    }
    await deps.target.swap(season, board.window, board.period);
    done.push(board);
  }
}

/**
 * The pages of `source`, each next one asked for as soon as the current one arrives: PostgreSQL
 * produces page k+1 (a cursor fetches only when asked) while page k is split and written, instead
 * of waiting for it (docs/benchmarks.md, the 10M-player season). One request ahead, never more.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const r = await next;
      if (r.done) return;
      next = it.next();
      next.catch(() => {}); // a failure is thrown by the await above, or dropped once we stopped
      yield r.value;
    }
  } finally {
    // Stopped early (an error, or the consumer left): let the page in flight land, then close.
    await next.catch(() => {});
    await it.return?.();
  }
}
