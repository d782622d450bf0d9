import type { BoardStanding } from '../domain/board-deltas.js';
import { addTally, DEFAULT_SAMPLE_SIZE, emptyTally, isClean, type DriftTally } from '../domain/drift.js';
import { rebuildInProgress, seasonClosed } from '../domain/errors.js';
import type { Codec } from '../domain/score-codec.js';
import { turnoverOf, type Season, type Window } from '../domain/season.js';
import { isValidPeriod } from '../domain/windows.js';
import { isBoardExpired, seasonBoard, type Board } from '../domain/board.js';
import { DEFAULT_PAGE_SIZE, reconcileBoard } from './reconcile-board.js';
import { reconcileScopeBoards } from './reconcile-scopes.js';

/** PostgreSQL, the truth: one board's standings by player id. */
interface ReconcileStandings {
  boardSizes(seasonId: number): Promise<Array<{ window: Window; period: string; members: number }>>;
  page(board: Board, after: string, limit: number): Promise<BoardStanding[]>;
  /** Every scope board of a board, scope by scope, in pages of one scope board (docs/design.md#scopes). */
  scopePages(board: Board, pageSize: number): AsyncIterable<BoardStanding[]>;
  ofPlayers(board: Board, playerIds: readonly string[]): Promise<BoardStanding[]>;
  existing(board: Board, playerIds: readonly string[]): Promise<string[]>;
}

/** Redis, the mirror (see src/redis/board-inspector.ts for the contract of settle). */
interface ReconcileBoards {
  rebuilding(seasonId: number): Promise<boolean>;
  windowBoards(season: Season): Promise<Array<{ window: Window; period: string }>>;
  scopeBoards(season: Season): Promise<Array<{ window: Window; period: string; scope: string }>>;
  /** Sets the totals of these groups' scope boards on their group boards again (after a repair). */
  refreshGroupTotals(boards: readonly Board[]): Promise<void>;
  size(board: Board): Promise<number>;
  scores(board: Board, members: readonly string[]): Promise<Array<string | null>>;
  members(board: Board, pageSize: number): AsyncIterable<string[]>;
  /** Counts a sharded board's shard sizes again (repairs only: they may be stale after a failover). */
  recountSizes(board: Board): Promise<void>;
  settle(
    board: Board,
    members: readonly string[],
    decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>,
    write: boolean,
  ): Promise<number | null>;
}

export interface ReconcileDeps {
  standings: ReconcileStandings;
  boards: ReconcileBoards;
  codecOf(season: Season): Codec;
  /** Read before every repair write: closing a season finalizes it, then removes its boards. */
  isFinalized(seasonId: number): Promise<boolean>;
  /** Unix seconds when a board's key expires, 0 for never (boardExpireAt). */
  expireAt(board: Board): number;
  now(): number;
  /** PostgreSQL standings compared so far, across boards. */
  onProgress?(compared: number): void;
}

export interface ReconcileOptions {
  /** Write PostgreSQL's values over drifted entries and remove extras. */
  repair?: boolean;
  /** Members per ZMSCORE, ZSCAN and repair call (default 200; PostgreSQL reads 5 times as many per query). */
  pageSize?: number;
  /** Player ids kept per drift kind, per board and in total. */
  sampleSize?: number;
  /** Checked between pages: a shutdown need not wait for a 10M-member board. */
  signal?: AbortSignal;
}

/** One board's comparison; `redisScanned` is false when counts proved Redis holds no extra. */
export interface BoardReconcile extends DriftTally {
  window: Window;
  period: string;
  /** A scope board (docs/design.md#scopes); absent: the whole board. */
  scope?: string;
  redisScanned: boolean;
  /** On a whole board: how many of its scope boards were compared (those with drift are listed too). */
  scopeBoards?: number;
}

export interface ReconcileReport {
  seasonId: number;
  repair: boolean;
  boards: BoardReconcile[];
  total: DriftTally;
  durationMs: number;
}

const windowOrder: Record<Window, number> = { SEASON: 0, DAY: 1, WEEK: 2, MONTH: 3, CUSTOM: 4 };

/**
 * Compares every live board of a season (SEASON, and each DAY/WEEK board in PostgreSQL or Redis
 * that has not expired) and each of its scope boards with PostgreSQL's standings, page by page,
 * and with `repair` makes Redis equal PostgreSQL. Memory stays bounded by the page size whatever
 * the board size (and a scope board's name per scope board). The report lists every whole board,
 * and the scope boards that drifted.
 */
export async function reconcileSeason(
  deps: ReconcileDeps,
  season: Season,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const started = deps.now();
  const opts = {
    repair: options.repair ?? false,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    sampleSize: options.sampleSize ?? DEFAULT_SAMPLE_SIZE,
    signal: options.signal,
  };
  if (season.finalizedAt) {
    throw seasonClosed(season.id, 'is finalized: its boards live in PostgreSQL only');
  }
  const boards: BoardReconcile[] = [];
  const total = emptyTally();
  const progress = { compared: 0 };
  const scopesInRedis = new Map<string, string[]>();
  for (const b of await deps.boards.scopeBoards(season)) {
    const label = `${b.window}|${b.period}`;
    scopesInRedis.set(label, [...(scopesInRedis.get(label) ?? []), b.scope]);
  }
  for (const board of await liveBoards(deps, season)) {
    // ZSCAN cannot follow a board that a rebuild swaps underneath it.
    if (await deps.boards.rebuilding(season.id)) {
      throw rebuildInProgress(season.id, 'is running; reconcile after it');
    }
    const run = { deps, board, ...opts, progress };
    const result = await reconcileBoard(run);
    const scoped = await reconcileScopeBoards(run, scopesInRedis.get(`${board.window}|${board.period}`) ?? []);
    boards.push({ ...result, scopeBoards: scoped.length });
    addTally(total, result, opts.sampleSize);
    for (const r of scoped) {
      addTally(total, r, opts.sampleSize);
      if (!isClean(r)) boards.push(r);
    }
  }
  return { seasonId: season.id, repair: opts.repair, boards, total, durationMs: deps.now() - started };
}

/** SEASON plus every DAY/WEEK board known to either store, minus the expired ones, in report order. */
async function liveBoards(deps: ReconcileDeps, season: Season): Promise<Board[]> {
  const [inPg, inRedis] = await Promise.all([deps.standings.boardSizes(season.id), deps.boards.windowBoards(season)]);
  const all = new Map<string, Board>([['SEASON|', seasonBoard(season)]]);
  for (const b of [...inPg, ...inRedis]) {
    // A key with a malformed period is no board ladder writes: leave it alone.
    if (isValidPeriod(b.window, b.period, turnoverOf(season)))
      all.set(`${b.window}|${b.period}`, { season, window: b.window, period: b.period });
  }
  const nowMs = deps.now();
  return [...all.values()]
    .filter((b) => !isBoardExpired(deps.expireAt(b), nowMs))
    .sort(
      (a, b) =>
        windowOrder[a.window] - windowOrder[b.window] || (a.period < b.period ? -1 : a.period > b.period ? 1 : 0),
    );
}
