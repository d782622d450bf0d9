// buildApp(config): the one place that creates clients and wires the parts together
// (src/app/<part>.ts, each a factory with start/stop); start() brings a process up in order.
import type { Config } from '../config.js';
import { createKafka } from '../kafka/client.js';
import { createLogger, type Logger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createPostgres } from '../postgres/client.js';
import { createSeasonsRepo } from '../postgres/seasons-repo.js';
import { createRedis } from '../redis/client.js';
import { placeShards } from '../redis/shard-placement.js';
import { createSeasonCache } from '../service/season-cache.js';
import { createApi } from './api.js';
import { createBoardMaintenance } from './board-maintenance.js';
import type { ClusterLink } from './cluster.js';
import { createIngest } from './ingest.js';
import { createPlayerAdmin } from './player-admin.js';
import { dependenciesOf, readinessOf } from './process-checks.js';
import { createSeasonJobs } from './season-jobs.js';
import { startProcess, type Starting } from './start-process.js';
import { createApiServer } from './startup.js';

type Role = 'api' | 'ingest';

export interface BuildOptions {
  roles: readonly Role[];
  logger?: Logger;
  /** Runs the season scheduler and the scheduled reconcile (default true); API workers leave them to the primary. */
  jobs?: boolean;
  /** Set in an API worker: /metrics and /ready then cover the whole cluster. */
  cluster?: ClusterLink;
}

/** Wires the service; nothing connects until start(). */
export function buildApp(config: Config, opts: BuildOptions) {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics();
  const pg = createPostgres(config.databaseUrl, config.databasePoolSize);
  // ioredis reports every reconnect attempt; while starting, the dependency wait reports Redis
  // once per attempt instead, so this client's own reports stay quiet until start-up is over.
  const redisLog = logger.child({}, { level: 'error' });
  const redis = createRedis(config.redisUrl, redisLog);
  const dependencies = dependenciesOf(config, pg, redis);
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger });
  const seasonsRepo = createSeasonsRepo(pg.db, (id, count) => placeShards(redis, id, count));
  const seasons = createSeasonCache((id) => seasonsRepo.get(id), config.seasons.cacheTtlMs);
  const { windowTtlSeconds, blockedPlayersCacheMs } = config;
  const seasonById = (id: number) => seasons.get(id);
  const playerAdmin = createPlayerAdmin({
    sql: pg.sql,
    redis,
    seasonById,
    windowTtlSeconds,
    blockedPlayersCacheMs,
    logger,
  });
  const boards = createBoardMaintenance({ config, logger, metrics, sql: pg.sql, redis, seasonStore: seasonsRepo });
  const invalidate = (id: number) => seasons.invalidate(id);
  const seasonJobs = createSeasonJobs({ config, logger, pg, redis, kafka, invalidate, seasonStore: seasonsRepo });
  const ingest = opts.roles.includes('ingest')
    ? createIngest({
        config,
        logger,
        metrics,
        kafka,
        sql: pg.sql,
        redis,
        seasons,
        seasonsRepo,
        blocked: playerAdmin.blocked,
        hidden: playerAdmin.hidden,
      })
    : undefined;
  const readiness = readinessOf({ pg, redis, ingest, cluster: opts.cluster });
  metrics.reportReadiness(readiness);
  const apiServer = opts.roles.includes('api') ? createApiServer(config.http) : undefined;
  const api =
    apiServer &&
    createApi({
      ...{ config, server: apiServer, logger, metrics, db: pg.db, sql: pg.sql, redis, kafka, seasons, boards },
      ...{ seasonStore: seasonsRepo, seasonJobs, playerAdmin, readiness, cluster: opts.cluster },
    });
  const jobs = [boards.restoreJob, boards.reconcileJob, seasonJobs];
  let starting: Starting | undefined;

  return {
    ...{ logger, metrics, pg, redis, kafka, seasonsRepo, seasons, ingest, api, readiness, boards, seasonJobs },
    playerAdmin,
    /** Brings the process up in order (start-process.ts); rejects with a one-line StartupError. */
    async start(hooks: { onWaiting?(line: string): void } = {}): Promise<void> {
      const run = (starting = { status: {}, abort: new AbortController() });
      const roles = [
        ...(ingest ? [['joining the ingest consumer group', () => ingest.start()] as const] : []),
        ...(api ? [['starting the API', () => api.start()] as const] : []),
      ];
      const onDependencies = () => void (redisLog.level = logger.level);
      await startProcess(
        run,
        { config, logger, redis, kafka, apiServer, dependencies, onDependencies, roles },
        hooks.onWaiting,
      );
      if (opts.jobs ?? true) for (const job of jobs) job.start();
      starting = undefined;
      logger.info({ roles: opts.roles }, 'ladder started');
    },
    /** Graceful: close sockets, stop consuming (the running chunk finishes or stays unresolved), close clients. */
    async stop(): Promise<void> {
      // Stopping while starting: the dependency wait ends (the API's stop lets the port go).
      starting?.abort.abort();
      for (const job of [...jobs].reverse()) await job.stop();
      await api?.stop();
      playerAdmin.stop();
      await ingest?.stop();
      redis.disconnect();
      await pg.close();
      logger.info('ladder stopped');
    },
  };
}

export type App = ReturnType<typeof buildApp>;
