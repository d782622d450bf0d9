// One board's comparison with PostgreSQL (reconcile-season.ts runs it on every live board of a
// season, reconcile-scopes.ts on their scope boards): PostgreSQL → Redis page by page for missing
// and different members, then Redis → PostgreSQL for extras when the counts do not rule them out,
// each suspect settled (and with repair written) under WATCH.
import type { BoardStanding } from '../domain/board-deltas.js';
import type { Board } from '../domain/board.js';
import { classify, countDrift, emptyTally, isPlayerId, type DriftKind, type DriftTally } from '../domain/drift.js';
import { isDomainError, seasonClosed } from '../domain/errors.js';
import type { Codec } from '../domain/score-codec.js';
import type { BoardReconcile, ReconcileDeps } from './reconcile-season.js';

// Each ZMSCORE/ZSCAN page blocks Redis about as long as a friends() read (ZMSCORE of 200 ids);
// larger pages barely raise throughput (bench/lifecycle.bench.ts) but stall every other client
// for longer.
export const DEFAULT_PAGE_SIZE = 200;
// PostgreSQL blocks nobody: it reads this many Redis pages' worth per query.
const PG_PAGES = 5;
// Bounds the memory spent de-duplicating extras that ZSCAN returns twice.
const SEEN_EXTRAS_CAP = 100_000;

/** One board's reconcile: its deps, options and the progress shared across boards. */
export interface BoardRun {
  deps: ReconcileDeps;
  board: Board;
  repair: boolean;
  pageSize: number;
  sampleSize: number;
  signal: AbortSignal | undefined;
  progress: { compared: number };
}

export async function reconcileBoard(run: BoardRun): Promise<BoardReconcile> {
  const { deps, board } = run;
  const tally = emptyTally();
  tally.redisCount = await deps.boards.size(board);
  await comparePostgresPages(run, tally);
  // Every PostgreSQL member was found in Redis and the counts agree: Redis cannot hold an extra.
  const sizeNow = await deps.boards.size(board);
  const redisScanned = tally.missing > 0 || sizeNow !== tally.pgCount - tally.unencodable;
  if (redisScanned) await scanRedisPages(run, tally);
  if (run.repair) await deps.boards.recountSizes(board);
  return { window: board.window, period: board.period, ...tally, redisScanned };
}

/** PostgreSQL → Redis: each page of standings against ZMSCORE, for missing and different. */
async function comparePostgresPages(run: BoardRun, tally: DriftTally): Promise<void> {
  const { deps, board, pageSize } = run;
  const pgPage = pageSize * PG_PAGES;
  const batch = suspectBatch(run, tally);
  const fetch = (after: string) => {
    const page = deps.standings.page(board, after, pgPage);
    page.catch(() => {}); // awaited below; a failure while the previous page is compared is not unhandled
    return page;
  };
  // One page ahead: PostgreSQL reads the next page while Redis answers for this one.
  for (let next = fetch('0'); ;) {
    run.signal?.throwIfAborted();
    const rows = await next;
    if (rows.length === 0) break;
    if (rows.length === pgPage) next = fetch(rows.at(-1)!.playerId);
    tally.pgCount += rows.length;
    for (let i = 0; i < rows.length; i += pageSize) {
      await batch.add(await mismatches(run, tally, rows.slice(i, i + pageSize)));
    }
    run.progress.compared += rows.length;
    deps.onProgress?.(run.progress.compared);
    if (rows.length < pgPage) break;
  }
  await batch.flush();
}

/** The players of one ZMSCORE call whose Redis score is not what their standing encodes to. */
export async function mismatches(run: BoardRun, tally: DriftTally, rows: readonly BoardStanding[]): Promise<string[]> {
  const { deps, board } = run;
  const codec = deps.codecOf(board.season);
  const scores = await deps.boards.scores(
    board,
    rows.map((r) => r.playerId),
  );
  const suspects: string[] = [];
  rows.forEach((row, i) => {
    const expected = expectedScore(codec, row);
    if (expected === undefined) tally.unencodable++;
    else if (classify(expected, scores[i]!) !== undefined) suspects.push(row.playerId);
  });
  return suspects;
}

/** Redis → PostgreSQL: ZSCAN pages, checked a few at a time with one `= any($1)` query, for extras. */
export async function scanRedisPages(run: BoardRun, tally: DriftTally): Promise<void> {
  const { deps, board, pageSize } = run;
  const seen = new Set<string>();
  const batch = suspectBatch(run, tally);
  let members: string[] = [];
  const check = async () => {
    const present = new Set(await deps.standings.existing(board, members.filter(isPlayerId)));
    const suspects = members.filter((m) => !present.has(m) && !seen.has(m));
    for (const m of suspects) if (seen.size < SEEN_EXTRAS_CAP) seen.add(m);
    members = [];
    await batch.add(suspects);
  };
  for await (const page of deps.boards.members(board, pageSize)) {
    run.signal?.throwIfAborted();
    members.push(...page);
    if (members.length >= pageSize * PG_PAGES) await check();
  }
  if (members.length > 0) await check();
  await batch.flush();
}

/**
 * Collects suspects and settles them a page at a time: drift spread thinly over a big board
 * costs one verify round per page of drift, not one per page of board.
 */
export function suspectBatch(run: BoardRun, tally: DriftTally) {
  let pending: string[] = [];
  const flush = async () => {
    while (pending.length > 0) {
      const ids = pending.slice(0, run.pageSize);
      pending = pending.slice(run.pageSize);
      await settleSuspects(run, tally, ids);
    }
  };
  return {
    flush,
    async add(ids: readonly string[]): Promise<void> {
      pending.push(...ids);
      if (pending.length >= run.pageSize) await flush();
    },
  };
}

/**
 * Re-reads suspects from both stores (Redis first, then PostgreSQL: ingest commits PostgreSQL
 * before it writes Redis, so a value in flight is seen committed) and counts what still differs;
 * with repair, writes PostgreSQL's values in the same guarded round.
 */
async function settleSuspects(run: BoardRun, tally: DriftTally, suspects: string[]): Promise<void> {
  const { deps, board } = run;
  const season = board.season;
  const codec = deps.codecOf(season);
  let found = new Map<string, DriftKind>();
  const changed = await deps.boards.settle(
    board,
    suspects,
    async (scores) => {
      found = new Map();
      const rows = await deps.standings.ofPlayers(board, suspects.filter(isPlayerId));
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
      // Under WATCH: a close that finalizes now and removes the boards after makes EXEC fail, and
      // the retry lands here; a repair must never bring back a closed season's boards.
      if (run.repair && writes.length > 0 && (await deps.isFinalized(season.id))) {
        throw seasonClosed(season.id, 'was finalized while it was reconciled');
      }
      return writes;
    },
    run.repair,
  );
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
