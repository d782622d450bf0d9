// Reconcile, wired: the use case on a Redis connection of its own, its schedule, its metrics.
// Created by app.ts with the app's clients; kept apart so app.ts stays a table of parts.
import type { Config } from '../config.js';
import { DRIFT_KINDS } from '../domain/drift.js';
import type { Window } from '../domain/season.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { ADVISORY_LOCKS, withTryAdvisoryLock } from '../postgres/advisory-lock.js';
import type { Sql } from '../postgres/client.js';
import { createStandingsPages } from '../postgres/standings-pages.js';
import { createBoardInspector } from '../redis/board-inspector.js';
import { boardExpireAt, isBoardExpired } from '../domain/board.js';
import { codecOf } from '../domain/score-codec.js';
import { createRedis } from '../redis/client.js';
import { createReconcileJob } from '../service/reconcile-job.js';
import { reconcileSeason, type ReconcileOptions, type ReconcileReport } from '../service/reconcile-season.js';
import { listSeasons, requireSeason, type SeasonStore } from '../service/seasons.js';

/** Reconcile's operations: run one (CLI, mutation), the schedule, progress totals. */
export function createReconcile(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  sql: Sql;
  seasonStore: SeasonStore;
}) {
  const { config, logger, metrics } = deps;
  const ttl = config.windowTtlSeconds;

  /** Reconciles one season. Its Redis connection is its own: the inspector WATCHes keys. */
  async function run(
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
          expireAt: (s, w, p) => boardExpireAt(s, w, p, ttl),
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

  const job = createReconcileJob({
    intervalMs: config.reconcile.intervalSeconds * 1000,
    repair: config.reconcile.autoRepair,
    activeSeasons: () => listSeasons(deps.seasonStore, 'ACTIVE', new Date()),
    reconcile: (season, opts) => run(season.id, opts),
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

  return {
    run,
    job,
    /** Runs one reconcile for an API caller and records it in /metrics. */
    async runAndRecord(seasonId: number, repair: boolean): Promise<ReconcileReport> {
      const report = await run(seasonId, { repair });
      record(report);
      return report;
    },
    /** Standings on the season's live (unexpired) boards per PostgreSQL: the total of a progress bar. */
    async liveMembers(seasonId: number): Promise<number> {
      const season = await requireSeason(deps.seasonStore, seasonId);
      const sizes = await createStandingsPages(deps.sql).boardSizes(seasonId);
      const live = (w: Window, p: string) => !isBoardExpired(boardExpireAt(season, w, p, ttl), Date.now());
      return sizes.reduce((n, b) => n + (live(b.window, b.period) ? b.members : 0), 0);
    },
  };
}

export type Reconcile = ReturnType<typeof createReconcile>;
