import type { BoardStanding } from '../domain/board-deltas.js';
import {
  addTally, classify, countDrift, DEFAULT_SAMPLE_SIZE, emptyTally, isPlayerId, type DriftKind, type DriftTally,
} from '../domain/drift.js';
import { DomainError, isDomainError } from '../domain/errors.js';
import type { Codec } from '../domain/score-codec.js';
import type { Season, Window } from '../domain/season.js';

/** PostgreSQL, the truth: one board's standings by player id. */
export interface ReconcileStandings {
  boardSizes(seasonId: number): Promise<Array<{ window: Window; period: string; members: number }>>;
  page(seasonId: number, window: Window, period: string, after: string, limit: number): Promise<BoardStanding[]>;
  ofPlayers(seasonId: number, window: Window, period: string, playerIds: readonly string[]): Promise<BoardStanding[]>;
}

/** Redis, the mirror (see src/redis/board-inspector.ts for the contract of settle). */
export interface ReconcileBoards {
  rebuilding(seasonId: number): Promise<boolean>;
  windowBoards(seasonId: number): Promise<Array<{ window: Window; period: string }>>;
  size(seasonId: number, window: Window, period: string): Promise<number>;
  scores(seasonId: number, window: Window, period: string, members: readonly string[]): Promise<Array<string | null>>;
  members(seasonId: number, window: Window, period: string, pageSize: number): AsyncIterable<string[]>;
  settle(
    season: Season, window: Window, period: string, members: readonly string[],
    decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>, write: boolean,
  ): Promise<number | null>;
}

export interface ReconcileDeps {
  standings: ReconcileStandings;
  boards: ReconcileBoards;
  codecOf(season: Season): Codec;
  /** Unix seconds when a board's key expires, 0 for never (boardExpireAt). */
  expireAt(season: Season, window: Window, period: string): number;
  now(): number;
  /** PostgreSQL standings compared so far, across boards. */
  onProgress?(compared: number): void;
}

export interface ReconcileOptions {
  /** Write PostgreSQL's values over drifted entries and remove extras. */
  repair?: boolean;
  /** Members per PostgreSQL page, ZMSCORE and ZSCAN call; each call blocks Redis ~1.5 µs per member. */
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
  redisScanned: boolean;
}

export interface ReconcileReport {
  seasonId: number;
  repair: boolean;
  boards: BoardReconcile[];
  total: DriftTally;
  durationMs: number;
}

const DEFAULT_PAGE_SIZE = 1_000;
// Bounds the memory spent de-duplicating extras that ZSCAN returns twice.
const SEEN_EXTRAS_CAP = 100_000;
const windowOrder: Record<Window, number> = { SEASON: 0, DAY: 1, WEEK: 2 };

/**
 * Compares every live board of a season (SEASON, and each DAY/WEEK board in PostgreSQL or Redis
 * that has not expired) with PostgreSQL's standings, page by page, and with `repair` makes Redis
 * equal PostgreSQL. Memory stays bounded by the page size whatever the board size.
 */
export async function reconcileSeason(deps: ReconcileDeps, season: Season, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = deps.now();
  const opts = {
    repair: options.repair ?? false,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    sampleSize: options.sampleSize ?? DEFAULT_SAMPLE_SIZE,
    signal: options.signal,
  };
  if (season.finalizedAt) {
    throw new DomainError('SEASON_CLOSED', `season ${season.id} is finalized: its boards live in PostgreSQL only`, 'seasonId');
  }
  const boards: BoardReconcile[] = [];
  const total = emptyTally();
  const progress = { compared: 0 };
  for (const board of await liveBoards(deps, season)) {
    // ZSCAN cannot follow a board that a rebuild swaps underneath it.
    if (await deps.boards.rebuilding(season.id)) {
      throw new DomainError('REBUILD_IN_PROGRESS', `a rebuild of season ${season.id} is running; reconcile after it`);
    }
    const result = await reconcileBoard({ deps, season, ...board, ...opts, progress });
    boards.push(result);
    addTally(total, result, opts.sampleSize);
  }
  return { seasonId: season.id, repair: opts.repair, boards, total, durationMs: deps.now() - started };
}

/** SEASON plus every DAY/WEEK board known to either store, minus the expired ones, in report order. */
async function liveBoards(deps: ReconcileDeps, season: Season): Promise<Array<{ window: Window; period: string }>> {
  const [inPg, inRedis] = await Promise.all([deps.standings.boardSizes(season.id), deps.boards.windowBoards(season.id)]);
  const all = new Map<string, { window: Window; period: string }>([['SEASON|', { window: 'SEASON', period: '' }]]);
  for (const b of [...inPg, ...inRedis]) all.set(`${b.window}|${b.period}`, { window: b.window, period: b.period });
  const nowMs = deps.now();
  return [...all.values()]
    .filter((b) => {
      const at = deps.expireAt(season, b.window, b.period);
      return at === 0 || at * 1000 > nowMs;
    })
    .sort((a, b) => windowOrder[a.window] - windowOrder[b.window] || (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
}

interface BoardRun {
  deps: ReconcileDeps;
  season: Season;
  window: Window;
  period: string;
  repair: boolean;
  pageSize: number;
  sampleSize: number;
  signal: AbortSignal | undefined;
  progress: { compared: number };
}

async function reconcileBoard(run: BoardRun): Promise<BoardReconcile> {
  const { deps, season, window, period } = run;
  const tally = emptyTally();
  tally.redisCount = await deps.boards.size(season.id, window, period);
  await comparePostgresPages(run, tally);
  // Every PostgreSQL member was found in Redis and the counts agree: Redis cannot hold an extra.
  const sizeNow = await deps.boards.size(season.id, window, period);
  const redisScanned = tally.missing > 0 || sizeNow !== tally.pgCount - tally.unencodable;
  if (redisScanned) await scanRedisPages(run, tally);
  return { window, period, ...tally, redisScanned };
}

/** PostgreSQL → Redis: each page of standings against ZMSCORE, for missing and different. */
async function comparePostgresPages(run: BoardRun, tally: DriftTally): Promise<void> {
  const { deps, season, window, period, pageSize } = run;
  const codec = deps.codecOf(season);
  for (let after = '0'; ;) {
    run.signal?.throwIfAborted();
    const rows = await deps.standings.page(season.id, window, period, after, pageSize);
    if (rows.length === 0) return;
    after = rows.at(-1)!.playerId;
    tally.pgCount += rows.length;
    const scores = await deps.boards.scores(season.id, window, period, rows.map((r) => r.playerId));
    const suspects: string[] = [];
    rows.forEach((row, i) => {
      const expected = expectedScore(codec, row);
      if (expected === undefined) tally.unencodable++;
      else if (classify(expected, scores[i]!) !== undefined) suspects.push(row.playerId);
    });
    if (suspects.length > 0) await settleSuspects(run, tally, suspects);
    run.progress.compared += rows.length;
    deps.onProgress?.(run.progress.compared);
    if (rows.length < pageSize) return;
  }
}

/** Redis → PostgreSQL: each ZSCAN page against one `= any($1)` query, for extras. */
async function scanRedisPages(run: BoardRun, tally: DriftTally): Promise<void> {
  const { deps, season, window, period, pageSize } = run;
  const seen = new Set<string>();
  for await (const members of deps.boards.members(season.id, window, period, pageSize)) {
    run.signal?.throwIfAborted();
    const stored = await deps.standings.ofPlayers(season.id, window, period, members.filter(isPlayerId));
    const present = new Set(stored.map((r) => r.playerId));
    const suspects = members.filter((m) => !present.has(m) && !seen.has(m));
    if (suspects.length === 0) continue;
    for (const m of suspects) if (seen.size < SEEN_EXTRAS_CAP) seen.add(m);
    await settleSuspects(run, tally, suspects);
  }
}

/**
 * Re-reads suspects from both stores (Redis first, then PostgreSQL: ingest commits PostgreSQL
 * before it writes Redis, so a value in flight is seen committed) and counts what still differs;
 * with repair, writes PostgreSQL's values in the same guarded round.
 */
async function settleSuspects(run: BoardRun, tally: DriftTally, suspects: string[]): Promise<void> {
  const { deps, season, window, period } = run;
  const codec = deps.codecOf(season);
  let found = new Map<string, DriftKind>();
  const changed = await deps.boards.settle(season, window, period, suspects, async (scores) => {
    found = new Map();
    const rows = await deps.standings.ofPlayers(season.id, window, period, suspects.filter(isPlayerId));
    const byId = new Map(rows.map((r) => [r.playerId, r]));
    const writes: Array<[string, string]> = [];
    suspects.forEach((id, i) => {
      const row = byId.get(id);
      const expected = row ? expectedScore(codec, row) : null;
      if (expected === undefined) return; // unencodable: no score can represent it on the board
      const kind = classify(expected, scores[i]!);
      if (!kind) return;
      found.set(id, kind);
      writes.push([id, expected ?? '']);
    });
    return writes;
  }, run.repair);
  for (const [id, kind] of found) countDrift(tally, kind, id, run.sampleSize);
  tally.repaired += changed ?? 0;
}

/** The composite score a standing must have on its board, as Redis prints it; undefined when none can hold it. */
function expectedScore(codec: Codec, row: BoardStanding): string | undefined {
  try {
    return codec.toRedis(codec.encode(row.points, row.achievedAt));
  } catch (err) {
    if (isDomainError(err)) return undefined;
    throw err;
  }
}
