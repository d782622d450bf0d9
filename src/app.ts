// buildApp(config): the one place that creates clients and wires them together.
import { createApi } from './api.js';
import type { Config } from './config.js';
import { createKafka, ensureTopicsExist } from './kafka/client.js';
import { createIngestConsumer } from './kafka/ingest-consumer.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './metrics.js';
import { createPostgres, migrateDatabase } from './postgres/client.js';
import { createResultsStore } from './postgres/results-store.js';
import { createSeasonsRepo } from './postgres/seasons-repo.js';
import { createStandingsReader } from './postgres/standings-reader.js';
import { createPlayerAdmin } from './player-admin.js';
import { createReconcile } from './reconcile.js';
import { createSeasonLifecycle } from './season-lifecycle.js';
import { createBoardRebuilder } from './redis/board-rebuilder.js';
import { placeShards } from './redis/shard-placement.js';
import { boardExpireAt } from './domain/board.js';
import { createBoardWriter } from './redis/board-writer.js';
import { assertNoBoardEviction, createRedis } from './redis/client.js';
import { applyResults } from './service/apply-results.js';
import { rebuildSeason } from './service/rebuild-season.js';
import { createSeasonCache } from './service/season-cache.js';
import { requireSeason } from './service/seasons.js';
import {
  beforeDeadline,
  listenFailure,
  messageOf,
  openStartupListener,
  probeKafka,
  StartupError,
  waitForDependencies,
  whereOf,
  type Dependency,
} from './startup.js';

export type Role = 'api' | 'ingest';

/** What /ready reports: ready when every check is 'ok'. */
export interface Readiness {
  ok: boolean;
  checks: Record<string, string>;
}

/** How an API worker reaches the cluster primary (src/cluster.ts). */
export interface ClusterLink {
  /** The metrics of every process of the cluster, aggregated by the primary (Prometheus text). */
  metrics(): Promise<string>;
  /** The primary's readiness, its ingest consumer's among others. */
  readiness(): Promise<Readiness>;
}

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
  const store = createResultsStore(pg.sql);
  const boards = createBoardWriter(redis, config.windowTtlSeconds);

  const rebuild = async (seasonId: number, onProgress?: (members: number) => void) =>
    rebuildSeason(
      {
        source: createStandingsReader(pg.sql),
        target: createBoardRebuilder(redis, config.windowTtlSeconds),
        expireAt: (season, window, period) => boardExpireAt(season, window, period, config.windowTtlSeconds),
        now: Date.now,
        onProgress,
      },
      await requireSeason(seasonsRepo, seasonId),
    );
  const reconcile = createReconcile({ config, logger, metrics, sql: pg.sql, seasonStore: seasonsRepo });
  const playerAdmin = createPlayerAdmin({
    sql: pg.sql,
    redis,
    seasonById: (id) => seasons.get(id),
    windowTtlSeconds: config.windowTtlSeconds,
    blockedPlayersCacheMs: config.blockedPlayersCacheMs,
    logger,
  });
  const lifecycle = createSeasonLifecycle({
    config,
    logger,
    pg,
    redis,
    kafka,
    invalidate: (id) => seasons.invalidate(id),
  });

  const ingest = opts.roles.includes('ingest')
    ? createIngestConsumer({
        kafka,
        topic: config.kafka.topic,
        dlqTopic: config.kafka.dlqTopic,
        groupId: config.kafka.groupId,
        partitionsConsumedConcurrently: config.kafka.partitionsConsumedConcurrently,
        sessionTimeoutMs: config.kafka.sessionTimeoutMs,
        seasonById: (id) => seasons.get(id),
        // Fails closed: a list that cannot be read retries the chunk, never lets a blocked player in.
        blockedIn: (seasonId) => playerAdmin.blocked.blockedIn(seasonId),
        apply: (results, seasonOf) => applyResults({ store, boards, seasonOf, now: Date.now }, results),
        logger,
        onApplied: (r) => {
          metrics.resultsIngested.inc(r.inserted);
          metrics.recordUpdates.inc(r.changed);
          metrics.consumerLagMs.set(r.lagMs);
        },
        onPoison: (code) => metrics.poisonMessages.inc({ code }),
      })
    : undefined;

  async function readiness(): Promise<Readiness> {
    const checks: Record<string, string> = {};
    // Each probe answers within 2 s: a readiness check must not hang on the outage it reports.
    const probe = async (name: string, fn: () => Promise<unknown>) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out after 2 s')), 2_000);
      });
      try {
        await Promise.race([fn(), timeout]);
        checks[name] = 'ok';
      } catch (err) {
        checks[name] = (err as Error).message;
      }
      clearTimeout(timer);
    };
    await Promise.all([probe('postgres', () => pg.sql`select 1`), probe('redis', () => redis.ping())]);
    if (ingest) {
      const r = ingest.readiness();
      checks.ingest = r.ok ? 'ok' : r.reason!;
    }
    if (opts.cluster) {
      // The ingest consumer runs in the primary: part of this API's readiness, as in one process.
      const primary = await opts.cluster
        .readiness()
        .catch((err: unknown) => ({ ok: false, checks: { primary: messageOf(err) } }));
      for (const [name, check] of Object.entries(primary.checks)) checks[name] ??= check;
    }
    return { ok: Object.values(checks).every((c) => c === 'ok'), checks };
  }

  const api = opts.roles.includes('api')
    ? createApi({
        config,
        logger,
        metrics,
        db: pg.db,
        redis,
        kafka,
        seasonStore: seasonsRepo,
        seasons,
        rebuild,
        sql: pg.sql,
        closeSeason: lifecycle.close,
        reconcile: reconcile.runAndRecord,
        playerAdmin,
        routes: {
          '/ready': async () => {
            const r = await readiness();
            // In an API worker, also which process answered: a client can tell the workers apart.
            const body = opts.cluster ? { ...r, pid: process.pid } : r;
            return { status: r.ok ? 200 : 503, contentType: 'application/json', body: JSON.stringify(body) };
          },
          '/metrics': async () => {
            if (opts.cluster)
              return { status: 200, contentType: metrics.registry.contentType, body: await opts.cluster.metrics() };
            api?.collectGauges();
            return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
          },
        },
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
  /** While start() runs: what /ready reports, how stop() cuts it short, the listener holding the port. */
  type Starting = { status: Record<string, string>; abort: AbortController; listener?: { close(): Promise<void> } };
  let starting: Starting | undefined;

  const createTopics = () => ensureTopicsExist(kafka, config.kafka);

  async function startApi(a: NonNullable<typeof api>): Promise<void> {
    // Hands the port over. Connections in between are refused for the moment the API's Kafka
    // producer takes to connect; /ready has said "not ready" all along.
    await starting?.listener?.close();
    // The API's listen() leaves a listen error to an 'error' event: make it this start's failure.
    const server = a.server.server;
    let onError!: (err: Error) => void;
    const failed = new Promise<never>((_, reject) => {
      onError = (err) => reject(listenFailure(err, config.host, config.port));
      server.once('error', onError);
    });
    try {
      await Promise.race([a.start(), failed]);
    } finally {
      server.off('error', onError);
    }
  }

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
    rebuild,
    readiness,
    reconcile,
    lifecycle,
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
      // PORT=0 (tests) binds any free port, a different one for the API: nothing to hold then.
      if (api && config.port !== 0) {
        run.listener = await openStartupListener({
          port: config.port,
          host: config.host,
          readiness: () => ({ ok: false, checks: { ...run.status, startup: 'in progress' } }),
        });
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
        ...(api ? [['starting the API', () => startApi(api)] as Step] : []),
      ];
      for (const [doing, step] of steps) {
        if (run.abort.signal.aborted) throw new StartupError('start-up cancelled: the process is stopping');
        await beforeDeadline(step(), deadline, timeoutMs, () => doing);
      }
      if (opts.jobs ?? true) {
        reconcile.job.start();
        lifecycle.start();
      }
      starting = undefined;
      logger.info({ roles: opts.roles }, 'ladder started');
    },
    /** Graceful: close sockets, stop consuming (the running chunk finishes or stays unresolved), close clients. */
    async stop(): Promise<void> {
      // Stopping while starting: the dependency wait ends, the port is let go.
      starting?.abort.abort();
      await starting?.listener?.close();
      await lifecycle.stop();
      await reconcile.job.stop();
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
