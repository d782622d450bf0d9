// Season jobs, wired: the close procedure with its PostgreSQL, Kafka and Redis parts, and
// the scheduler that runs it by the clock. Created by app.ts with the app's clients.
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import { boardsOf } from '../domain/season.js';
import { createFinalStandingsExport } from '../postgres/final-standings-export.js';
import { exportFinalStandings } from '../service/export-final-standings.js';
import { createIngestProgress } from '../kafka/ingest-progress.js';
import type { Logger } from '../logger.js';
import { ADVISORY_LOCKS, withTryAdvisoryLock } from '../postgres/advisory-lock.js';
import type { Db, Sql } from '../postgres/client.js';
import { createSeasonLifecycleStore } from '../postgres/season-lifecycle-store.js';
import { createSeasonKeys } from '../redis/season-keys.js';
import { dbOf } from '../redis/client.js';
import { rewardsChannel } from '../redis/keys.js';
import { createRewardsPublisher } from '../kafka/rewards-producer.js';
import { createRewardsStore, grantPeriodRewards } from '../postgres/rewards-store.js';
import { grantEndedPeriods, PERIOD_REWARD_DELAY_MS } from '../service/period-rewards.js';
import {
  closeSeason,
  waitForIngest,
  type CloseDeps,
  type CloseProgress,
  type CloseReport,
  type CloseRequest,
} from '../service/close-season.js';
import { createSeasonScheduler } from '../service/season-scheduler.js';
import { rollOver } from '../service/season-rollover.js';
import type { SeasonStore } from '../service/seasons.js';
import { createHistoryArchive } from '../postgres/history-archive.js';
import { createSeasonsRepo } from '../postgres/seasons-repo.js';
import {
  applyRetention,
  archiveSeasonHistory,
  type ArchiveDeps,
  type ArchiveReport,
} from '../service/archive-history.js';
import { createRankSnapshots } from '../postgres/rank-snapshots.js';
import { takeDueSnapshots } from '../service/rank-history.js';

/** The close procedure bound to this app's clients, and the season scheduler. */
export function createSeasonJobs(deps: {
  config: Config;
  logger: Logger;
  pg: { sql: Sql; db: Db };
  redis: Redis;
  kafka: Kafka;
  /** This process's season cache, dropped at each step of a close so this process switches at once. */
  invalidate(seasonId: number): void;
  /** Where repeating seasons' successors are created (the app's store: it places shards). */
  seasonStore: SeasonStore;
}) {
  const { config } = deps;
  const log = deps.logger.child({ component: 'seasons' });
  const store = createSeasonLifecycleStore(deps.pg);
  const seasonsRepo = createSeasonsRepo(deps.pg.db);
  const progress = createIngestProgress(deps.kafka, config.kafka.topic, config.kafka.groupId);
  // Granted rewards go to Kafka for the economy service, and to connected players (rewardGranted).
  const rewards = createRewardsPublisher(
    deps.kafka,
    config.kafka.rewardsTopic,
    createRewardsStore(deps.pg.sql),
    async (granted) => {
      await deps.redis.publish(rewardsChannel(dbOf(deps.redis)), JSON.stringify(granted));
    },
  );
  const closeDeps: CloseDeps = {
    store,
    ingest: progress,
    keys: createSeasonKeys(deps.redis),
    rewards,
    invalidate: deps.invalidate,
    cacheTtlMs: config.seasons.cacheTtlMs,
    graceMs: config.seasons.closeGraceMs,
    drainTimeoutMs: config.seasons.closeDrainTimeoutMs,
    onStep: (seasonId, step, ms) => log.info({ seasonId, step, ms }, 'closing season: step done'),
  };

  /**
   * Runs the close procedure; a no-op for a season already final. `onProgress` hears each step as
   * it starts and the partitions ingest still has to apply (the CLI prints them).
   */
  async function close(
    seasonId: number,
    by: CloseRequest,
    signal?: AbortSignal,
    onProgress?: (progress: CloseProgress) => void,
  ): Promise<CloseReport> {
    const deps = onProgress
      ? { ...closeDeps, onProgress: (_id: number, p: CloseProgress) => onProgress(p) }
      : closeDeps;
    // A season's further boards close with it, together (each its own close: docs/design.md#boards).
    const season = await seasonsRepo.get(seasonId);
    const ids = season ? boardsOf(season).map((b) => b.id) : [seasonId];
    const reports = await Promise.all(ids.map((id) => closeSeason(deps, id, by, signal)));
    const report = reports.reduce((sum, r) => ({
      ...sum,
      finalized: sum.finalized || r.finalized,
      boards: sum.boards + r.boards,
      rows: sum.rows + r.rows,
      rewards: sum.rewards + r.rewards,
      rewardsPublished: sum.rewardsPublished + r.rewardsPublished,
      keysRemoved: sum.keysRemoved + r.keysRemoved,
      durationMs: Math.max(sum.durationMs, r.durationMs),
    }));
    if (report.finalized || report.keysRemoved > 0)
      log.info({ ...report, actor: by.actor, reason: by.reason }, 'season closed');
    return report;
  }

  const archiveDeps: ArchiveDeps = {
    store: createHistoryArchive(deps.pg.sql),
    seasonById: (id) => seasonsRepo.get(id),
    rootDir: config.history.archiveDir,
    now: () => new Date(),
    onStep: (seasonId, step, detail) => log.info({ seasonId, step, ...detail }, 'archiving history: step done'),
  };

  const rankSnapshots = createRankSnapshots(deps.pg.sql);
  /** Each season's last rank-slot pass in this process (service/rank-history.ts). */
  const slottedAt = new Map<number, number>();
  const finalStandings = createFinalStandingsExport(deps.pg.sql);
  const scheduler = createSeasonScheduler({
    store,
    close: (seasonId, reason, signal) => close(seasonId, { actor: 'scheduler', reason }, signal),
    snapshot: async (seasons, at, signal) => {
      for (const r of await takeDueSnapshots(rankSnapshots, seasons, at, signal, slottedAt))
        log.info(r, 'rank history: snapshot taken');
    },
    rollOver: async (seasons, at) => {
      for (const next of await rollOver(deps.seasonStore, seasons, at))
        log.info(
          { seasonId: next.id, follows: next.follows, startsAt: next.startsAt },
          'repeating season: next created',
        );
    },
    periodRewards: async (seasons, at) => {
      const granted = await grantEndedPeriods(
        {
          grant: (board, window, period) => grantPeriodRewards(deps.pg.sql, board, window, period),
          publish: (season) => rewards.publish(season),
          drained: () =>
            waitForIngest(progress, {
              timeoutMs: config.seasons.closeDrainTimeoutMs,
              pollMs: 200,
              now: Date.now,
              sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
            }),
          delayMs: PERIOD_REWARD_DELAY_MS,
        },
        seasons,
        at,
      );
      if (granted > 0) log.info({ granted }, 'period rewards granted');
    },
    retain: () =>
      applyRetention(
        { ...archiveDeps, unfinishedSeasons: () => store.listUnfinished(new Date()) },
        config.history.archiveAfterDays,
      ),
    tryLock: (fn) => withTryAdvisoryLock(deps.pg.sql, ADVISORY_LOCKS.seasonScheduler, fn),
    intervalMs: config.seasons.schedulerIntervalMs,
    onError: (err, seasonId) => log.error({ err, seasonId }, 'season scheduler: step failed; retried next tick'),
  });

  return {
    close,
    /** Writes a closed season's final standings (every board, or a window or period) chunk by chunk. */
    exportFinal: (input: Parameters<typeof exportFinalStandings>[1], write: (chunk: string) => Promise<void>) =>
      exportFinalStandings({ seasonById: (id) => seasonsRepo.get(id), source: finalStandings }, input, write),
    /**
     * Archives a closed season's raw results now and drops their partitions (idempotent): its
     * further boards' first (each a directory of its own, `boards`), then its own.
     */
    archive: async (seasonId: number): Promise<ArchiveReport & { boards: ArchiveReport[] }> => {
      const boards: ArchiveReport[] = [];
      for (const board of (await seasonsRepo.get(seasonId))?.boards ?? [])
        boards.push(await archiveSeasonHistory(archiveDeps, board.id));
      return { ...(await archiveSeasonHistory(archiveDeps, seasonId)), boards };
    },
    /** Loads an archive directory into `schema`.match_results. */
    loadArchive: (dir: string, schema: string) => archiveDeps.store.load(dir, schema),
    /** Snapshots a season's SEASON board's ranks as of `boundary` now (idempotent per boundary). */
    snapshotRanks: rankSnapshots.take,
    scheduler,
    /** Starts the scheduler unless SEASON_SCHEDULER_INTERVAL_MS is 0. */
    start(): void {
      if (config.seasons.schedulerIntervalMs > 0) scheduler.start();
    },
    /** Stops the scheduler (abandoning a close at its next wait) and the Kafka admin client. */
    async stop(): Promise<void> {
      await scheduler.stop();
      await progress.close();
      await rewards.stop();
    },
  };
}

export type SeasonJobs = ReturnType<typeof createSeasonJobs>;
