import { rebuildInProgress, seasonClosed } from '../domain/errors.js';
import type { Season, SortOrder } from '../domain/season.js';
import type { StandingsPage, StandingsRows } from '../domain/standings-page.js';
import { isBoardExpired, scopedBoard, type Board } from '../domain/board.js';

export interface StandingsSource {
  /** Every standing of the season, board by board, best first within a board; a page holds one board's rows. */
  seasonPages(seasonId: number, order: SortOrder, pageSize: number): AsyncIterable<StandingsPage>;
}

export interface RebuildTarget {
  acquire(seasonId: number): Promise<boolean>;
  /** Adds rows to the board's copy. Called page by page, up to two calls in flight, applied in call order. */
  fill(board: Board, rows: StandingsRows): Promise<void>;
  swap(board: Board): Promise<void>;
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
    expireAt(board: Board): number;
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
  const done: Board[] = [];
  let current: Board | undefined;
  let members = 0;
  let expired = 0;
  const isLive = (board: Board) => !isBoardExpired(deps.expireAt(board), deps.now());
  // Pages are written while the next ones are read from PostgreSQL, two writes in flight: the next
  // page is encoded and sent while Redis still inserts the previous one, so Redis does not wait for
  // Node between pages (docs/benchmarks.md, the 10M-player season). Their order is the target's.
  const writes: Array<Promise<void>> = [];
  const write = async (board: Board, rows: StandingsRows) => {
    if (writes.length === 2) await writes.shift();
    const writing = deps.target.fill(board, rows).then(() => {
      members += rows.playerIds.length;
      deps.onProgress?.(members);
    });
    writing.catch(() => {}); // awaited (and thrown) by a later write or the board's finish
    writes.push(writing);
  };
  try {
    for await (const page of readAhead(deps.source.seasonPages(season.id, season.order, 5_000))) {
      if (
        !current ||
        page.window !== current.window ||
        page.period !== current.period ||
        page.scope !== current.scope
      ) {
        if (current) await finish(current);
        current = scopedBoard({ season, window: page.window, period: page.period }, page.scope);
      }
      if (page.playerIds.length > 0 && isLive(current)) await write(current, page);
    }
    if (current) await finish(current);
  } finally {
    await Promise.allSettled(writes);
    await deps.target.release(season.id);
  }
  return {
    seasonId: season.id,
    boards: done.length,
    members,
    expiredBoardsSkipped: expired,
    durationMs: deps.now() - started,
  };

  async function finish(board: Board): Promise<void> {
    while (writes.length > 0) await writes.shift();
    if (!isLive(board)) {
      expired++;
      return;
    }
    await deps.target.swap(board);
    done.push(board);
  }
}

/**
 * The pages of `source`, each next one asked for as soon as the current one arrives: page k+1 is
 * read and parsed (the reader reads only when asked) while page k is written, instead of after it
 * (docs/benchmarks.md, the 10M-player season). One request ahead, never more.
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
