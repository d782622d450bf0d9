// Board maintenance, wired: rebuild (PostgreSQL → Redis), reconcile (compare, optionally repair; on
// demand and on a schedule, with its metrics) and the restore of boards Redis lost.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { boardExpireAt, membersOnLiveBoards, type Board } from '../domain/board.js';
import { boardsOf, seasonsWithBoards } from '../domain/season.js';
import { DRIFT_KINDS } from '../domain/drift.js';
import { codecOf } from '../domain/score-codec.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { ADVISORY_LOCKS, withTryAdvisoryLock } from '../postgres/advisory-lock.js';
import type { Sql } from '../postgres/client.js';
import { createStandingsPages } from '../postgres/standings-pages.js';
import { createStandingsReader } from '../postgres/standings-reader.js';
import { createBoardInspector } from '../redis/board-inspector.js';
import { createBoardRebuilder } from '../redis/board-rebuilder.js';
import { createBoardsMarker } from '../redis/boards-marker.js';
import { createRedis } from '../redis/client.js';
import { createBoardRestore } from '../service/board-restore.js';
import { rebuildSeason, type RebuildReport } from '../service/rebuild-season.js';
import { createReconcileJob } from '../service/reconcile-job.js';
import { reconcileSeason, type ReconcileOptions, type ReconcileReport } from '../service/reconcile-season.js';
import { listSeasons, requireSeason, type SeasonStore } from '../service/seasons.js';

/** Rebuild and reconcile: run one (CLI, mutations), the reconcile schedule, progress totals. */
export function createBoardMaintenance(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  sql: Sql;
  redis: Redis;
  seasonStore: SeasonStore;
}) {
  const { config, logger, metrics } = deps;
  const ttl = config.windowTtlSeconds;
  const expireAt = (b: Board) => boardExpireAt(b, ttl);

  /**
   * Refills every live board of the season from PostgreSQL into a copy and swaps it in: of each
   * of its boards (docs/design.md#boards), one after the other, the report summed.
   */
  async function rebuild(seasonId: number, onProgress?: (members: number) => void): Promise<RebuildReport> {
    const season = await requireSeason(deps.seasonStore, seasonId);
    const source = createStandingsReader(deps.sql);
    const target = createBoardRebuilder(deps.redis, ttl);
    const total: RebuildReport = { seasonId, boards: 0, members: 0, expiredBoardsSkipped: 0, durationMs: 0 };
    for (const board of boardsOf(season)) {
      const done = total.members;
      const report = await rebuildSeason(
        { source, target, expireAt, now: Date.now, onProgress: onProgress && ((n) => onProgress(done + n)) },
        board,
      );
      total.boards += report.boards;
      total.members += report.members;
      total.expiredBoardsSkipped += report.expiredBoardsSkipped;
      total.durationMs += report.durationMs;
    }
    return total;
  }

  /** Reconciles one season. Its Redis connection is its own: the inspector WATCHes keys. */
  async function reconcile(
    seasonId: number,
    options: ReconcileOptions & { onProgress?: (compared: number) => void } = {},
  ): Promise<ReconcileReport> {
    const season = await requireSeason(deps.seasonStore, seasonId);
    const conn = createRedis(config.redisUrl, logger);
    try {
      return await reconcileSeason(
        {
          standings: createStandingsPages(deps.sql),
          boards: createBoardInspector(conn, ttl),
          codecOf,
          isFinalized: async (id) => (await deps.seasonStore.get(id))?.finalizedAt != null,
          expireAt,
          now: Date.now,
          onProgress: options.onProgress,
        },
        season,
        options,
      );
    } finally {
      conn.disconnect();
    }
  }

  /** Exposes a reconcile's findings in /metrics (a season's latest report wins). */
  function record(report: ReconcileReport): void {
    for (const kind of DRIFT_KINDS)
      metrics.reconcileDrift.set({ season: String(report.seasonId), kind }, report.total[kind]);
    metrics.reconcileRepaired.inc(report.total.repaired);
    metrics.reconcileLastRun.set(Date.now() / 1000);
  }

  const reconcileJob = createReconcileJob({
    intervalMs: config.reconcile.intervalSeconds * 1000,
    repair: config.reconcile.autoRepair,
    activeSeasons: () => listSeasons(deps.seasonStore, 'ACTIVE', new Date()),
    reconcile: (season, opts) => reconcile(season.id, opts),
    exclusive: (fn) => withTryAdvisoryLock(deps.sql, ADVISORY_LOCKS.reconcile, fn),
    onRun: (reports) => {
      metrics.reconcileDrift.reset(); // seasons no longer ACTIVE drop out of the gauge
      for (const r of reports) {
        record(r);
        const { missing, extra, different, repaired } = r.total;
        const level = missing + extra + different > 0 ? 'warn' : 'info';
        logger[level](
          { seasonId: r.seasonId, missing, extra, different, repaired, durationMs: r.durationMs },
          'reconcile finished',
        );
      }
    },
    onError: (err, seasonId) => logger.error({ err, seasonId }, 'scheduled reconcile failed'),
    now: Date.now,
  });

  const restoreLog = logger.child({ component: 'board-restore' });
  return {
    rebuild,
    reconcile,
    /** The scheduled reconcile (RECONCILE_INTERVAL_SECONDS); started by the app with its jobs. */
    reconcileJob,
    /** Rebuilds the active seasons when Redis comes back empty (BOARD_RESTORE_INTERVAL_MS); started with the jobs. */
    restoreJob: createBoardRestore({
      marker: createBoardsMarker(deps.redis),
      intervalMs: config.boardRestoreIntervalMs,
      leaseMs: 60_000,
      // Seasons only: a season's rebuild covers its further boards.
      activeSeasons: async () => seasonsWithBoards(await listSeasons(deps.seasonStore, 'ACTIVE', new Date())),
      rebuild: (seasonId) => rebuild(seasonId),
      onRestored: (r) => restoreLog.warn(r, 'Redis held no boards: rebuilt them from PostgreSQL'),
      onError: (err) => restoreLog.warn({ err }, 'restoring the boards failed; retried at the next check'),
      now: Date.now,
    }),
    /** Runs one reconcile for an API caller and records it in /metrics. */
    async reconcileAndRecord(
      seasonId: number,
      repair: boolean,
      onProgress?: (compared: number) => void,
    ): Promise<ReconcileReport> {
      const report = await reconcile(seasonId, { repair, onProgress });
      record(report);
      return report;
    },
    /** Standings on the season's live (unexpired) boards per PostgreSQL: the total of a progress bar. */
    async liveMembers(seasonId: number): Promise<number> {
      const season = await requireSeason(deps.seasonStore, seasonId);
      const pages = createStandingsPages(deps.sql);
      let members = 0;
      for (const board of boardsOf(season))
        members += membersOnLiveBoards(board, await pages.boardSizes(board.id), ttl, Date.now());
      return members;
    },
  };
}

export type BoardMaintenance = ReturnType<typeof createBoardMaintenance>;
