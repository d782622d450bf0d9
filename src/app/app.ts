// buildApp(config): the one place that creates clients and wires the parts together
// (src/app/<part>.ts, each a factory with start/stop); start() brings a process up in order.
import type { Config } from '../config.js';
import { createKafka, ensureTopicsExist } from '../kafka/client.js';
import { createLogger, type Logger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createPostgres, migrateDatabase } from '../postgres/client.js';
import { createSeasonsRepo } from '../postgres/seasons-repo.js';
import { createBoardsMarker } from '../redis/boards-marker.js';
import { assertNoBoardEviction, createRedis } from '../redis/client.js';
import { placeShards } from '../redis/shard-placement.js';
import { createBoardRestore } from '../service/board-restore.js';
import { checkReadiness, withChecksOf, type Readiness } from '../service/readiness.js';
import { createSeasonCache } from '../service/season-cache.js';
import { listSeasons } from '../service/seasons.js';
import { createApi } from './api.js';
import { createBoardMaintenance } from './board-maintenance.js';
import type { ClusterLink } from './cluster.js';
import { createIngest } from './ingest.js';
import { createPlayerAdmin } from './player-admin.js';
import { createSeasonJobs } from './season-jobs.js';
import {
  beforeDeadline,
  createApiServer,
  messageOf,
  probeKafka,
  StartupError,
  waitForDependencies,
  whereOf,
  type Dependency,
} from './startup.js';

export type Role = 'api' | 'ingest';

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
  let redisError: string | undefined;
  redis.on('error', (err: Error) => {
    redisError = err.message;
  });
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger });
  const seasonsRepo = createSeasonsRepo(pg.db, (id, count) => placeShards(redis, id, count));
  const seasons = createSeasonCache((id) => seasonsRepo.get(id), config.seasons.cacheTtlMs);
  const playerAdmin = createPlayerAdmin({
    sql: pg.sql,
    redis,
    seasonById: (id) => seasons.get(id),
    windowTtlSeconds: config.windowTtlSeconds,
    blockedPlayersCacheMs: config.blockedPlayersCacheMs,
    logger,
  });
  const boards = createBoardMaintenance({ config, logger, metrics, sql: pg.sql, redis, seasonStore: seasonsRepo });
  const restoreLog = logger.child({ component: 'board-restore' });
  const boardRestore = createBoardRestore({
    marker: createBoardsMarker(redis),
    intervalMs: config.boardRestoreIntervalMs,
    leaseMs: 60_000,
    activeSeasons: () => listSeasons(seasonsRepo, 'ACTIVE', new Date()),
    rebuild: (seasonId) => boards.rebuild(seasonId),
    onRestored: (r) => restoreLog.warn(r, 'Redis held no boards: rebuilt them from PostgreSQL'),
    onError: (err) => restoreLog.warn({ err }, 'restoring the boards failed; retried at the next check'),
    now: Date.now,
  });
  const seasonJobs = createSeasonJobs({
    config,
    logger,
    pg,
    redis,
    kafka,
    invalidate: (id) => seasons.invalidate(id),
  });
  const ingest = opts.roles.includes('ingest')
    ? createIngest({ config, logger, metrics, kafka, sql: pg.sql, redis, seasons, blocked: playerAdmin.blocked })
    : undefined;

  async function readiness(): Promise<Readiness> {
    const own = await checkReadiness(
      {
        postgres: () => pg.sql`select 1`,
        redis: () => redis.ping(),
        ...(ingest && {
          ingest: async () => {
            const r = ingest.readiness();
            if (!r.ok) throw new Error(r.reason);
          },
        }),
      },
      2_000,
    );
    if (!opts.cluster) return own;
    // The ingest consumer runs in the primary: part of this API's readiness, as in one process.
    const primary = await opts.cluster
      .readiness()
      .catch((err: unknown) => ({ ok: false, checks: { primary: messageOf(err) } }));
    return withChecksOf(own, primary);
  }

  const apiServer = opts.roles.includes('api') ? createApiServer(config.http) : undefined;
  const api = apiServer
    ? createApi({
        config,
        server: apiServer,
        logger,
        metrics,
        db: pg.db,
        sql: pg.sql,
        redis,
        kafka,
        seasonStore: seasonsRepo,
        seasons,
        boards,
        seasonJobs,
        playerAdmin,
        readiness,
        cluster: opts.cluster,
      })
    : undefined;

  const dependencies: Dependency[] = [
    { name: 'postgres', where: whereOf(config.databaseUrl, 'DATABASE_URL'), probe: () => pg.sql`select 1` },
    // ioredis answers an unreachable server with "max retries per request"; its connection error says why.
    {
      name: 'redis',
      where: whereOf(config.redisUrl, 'REDIS_URL'),
      probe: () =>
        redis.ping().catch((err: unknown) => {
          throw new Error(redisError ?? messageOf(err));
        }),
    },
    {
      name: 'kafka',
      where: `${config.kafka.brokers.join(',')} (KAFKA_BROKERS)`,
      probe: () => probeKafka(config.kafka.brokers, config.kafka.clientId),
    },
  ];
  /** While start() runs: what /ready reports, how stop() cuts it short. */
  type Starting = { status: Record<string, string>; abort: AbortController };
  let starting: Starting | undefined;

  const createTopics = () => ensureTopicsExist(kafka, config.kafka);

  return {
    logger,
    metrics,
    pg,
    redis,
    kafka,
    seasonsRepo,
    seasons,
    ingest,
    api,
    readiness,
    boards,
    seasonJobs,
    playerAdmin,
    /**
     * Listens (API role), waits for PostgreSQL, Redis and Kafka, prepares them, starts the roles.
     * Rejects with a StartupError (a one-line message) when the port is taken or
     * STARTUP_TIMEOUT_MS passes first. `onWaiting` gets each "waiting for ..." line (default: warn log).
     */
    async start(hooks: { onWaiting?(line: string): void } = {}): Promise<void> {
      const timeoutMs = config.startupTimeoutMs;
      const deadline = Date.now() + timeoutMs;
      const run: Starting = (starting = { status: {}, abort: new AbortController() });
      // Listen first: a busy port fails at once, and /health answers while dependencies come up.
      // The same server serves the API once it starts (startup.ts createApiServer).
      if (apiServer) {
        apiServer.starting(() => ({ ok: false, checks: { ...run.status, startup: 'in progress' } }));
        await apiServer.listen(config.port, config.host);
      }
      await waitForDependencies(dependencies, {
        deadline,
        timeoutMs,
        signal: run.abort.signal,
        status: run.status,
        report: hooks.onWaiting ?? ((line) => logger.warn(line)),
      });
      redisLog.level = logger.level;
      type Step = readonly [doing: string, step: () => Promise<unknown>];
      const steps: Step[] = [
        [
          'checking the Redis eviction policy',
          () =>
            assertNoBoardEviction(redis).catch((err: unknown) => {
              throw new StartupError(messageOf(err));
            }),
        ],
        ['migrating PostgreSQL', () => migrateDatabase(config.databaseUrl)],
        ['creating the Kafka topics', createTopics],
        ...(ingest ? [['joining the ingest consumer group', () => ingest.start()] as Step] : []),
        ...(api ? [['starting the API', () => api.start()] as Step] : []),
      ];
      for (const [doing, step] of steps) {
        if (run.abort.signal.aborted) throw new StartupError('start-up cancelled: the process is stopping');
        await beforeDeadline(step(), deadline, timeoutMs, () => doing);
      }
      if (opts.jobs ?? true) {
        boardRestore.start();
        boards.reconcileJob.start();
        seasonJobs.start();
      }
      starting = undefined;
      logger.info({ roles: opts.roles }, 'ladder started');
    },
    /** Graceful: close sockets, stop consuming (the running chunk finishes or stays unresolved), close clients. */
    async stop(): Promise<void> {
      // Stopping while starting: the dependency wait ends (the API's stop lets the port go).
      starting?.abort.abort();
      await seasonJobs.stop();
      await boards.reconcileJob.stop();
      await boardRestore.stop();
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
