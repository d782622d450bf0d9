// The scope boards of a board (docs/design.md#scopes) against PostgreSQL, as reconcile-board.ts
// compares a board: a region's, a group's or a league cohort's ZSET must hold exactly the board's
// standings of the players in that scope now. Scope boards drift where whole boards cannot: a
// consumer that lost its partition in a rebalance, still finishing a chunk, can write a player who
// just moved to the scope board they left (ZADD GT keeps a whole board right; here the member is
// an extra). Reconcile finds it, and with repair removes it.
import type { DriftTally } from '../domain/drift.js';
import { emptyTally } from '../domain/drift.js';
import type { Board } from '../domain/board.js';
import { mismatches, scanRedisPages, suspectBatch, type BoardRun } from './reconcile-board.js';
import type { BoardReconcile } from './reconcile-season.js';

/**
 * Compares every scope board of `run.board` that PostgreSQL has (one statement, scope by scope)
 * or Redis has (`inRedis`): PostgreSQL → Redis for missing and different members as each scope's
 * pages stream by, then Redis → PostgreSQL for extras when the counts do not rule them out. Each
 * scope board is finished before the next starts: memory holds one scope's suspects and the names
 * of the scopes seen. After a repair, the totals of repaired group boards are set again.
 */
export async function reconcileScopeBoards(run: BoardRun, inRedis: readonly string[]): Promise<BoardReconcile[]> {
  const { deps, board } = run;
  const reports: BoardReconcile[] = [];
  const repaired: Board[] = [];
  const seen = new Set<string>();
  let open: { run: BoardRun; tally: DriftTally; batch: ReturnType<typeof suspectBatch> } | undefined;

  async function start(scope: string) {
    seen.add(scope);
    const scoped: BoardRun = { ...run, board: { ...board, scope } };
    const tally = emptyTally();
    tally.redisCount = await deps.boards.size(scoped.board);
    return { run: scoped, tally, batch: suspectBatch(scoped, tally) };
  }

  async function finish(s: NonNullable<typeof open>): Promise<void> {
    await s.batch.flush();
    const sizeNow = await deps.boards.size(s.run.board);
    const redisScanned = s.tally.missing > 0 || sizeNow !== s.tally.pgCount - s.tally.unencodable;
    if (redisScanned) await scanRedisPages(s.run, s.tally);
    if (s.tally.repaired > 0) repaired.push(s.run.board);
    reports.push({ window: board.window, period: board.period, scope: s.run.board.scope!, ...s.tally, redisScanned });
  }

  for await (const rows of deps.standings.scopePages(board, run.pageSize)) {
    run.signal?.throwIfAborted();
    const scope = rows[0]!.scope!;
    if (open?.run.board.scope !== scope) {
      if (open) await finish(open);
      open = await start(scope);
    }
    open.tally.pgCount += rows.length;
    await open.batch.add(await mismatches(open.run, open.tally, rows));
    run.progress.compared += rows.length;
    deps.onProgress?.(run.progress.compared);
  }
  if (open) await finish(open);
  // Scope boards Redis has and PostgreSQL has no member for: every member is an extra.
  for (const scope of [...new Set(inRedis)].sort()) {
    run.signal?.throwIfAborted();
    if (!seen.has(scope)) await finish(await start(scope));
  }
  if (run.repair && repaired.length > 0) await deps.boards.refreshGroupTotals(repaired);
  return reports;
}
