// The API role: GraphQL server, top-N cache, live updates. Wired by app.ts.
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import { isDomainError, rateLimited } from '../domain/errors.js';
import { createGraphQLServer } from '../graphql/server.js';
import { useOperationMetrics } from '../graphql/use-operation-metrics.js';
import type { Services } from '../graphql/context.js';
import { createResultProducer } from '../kafka/producer.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Db, Sql } from '../postgres/client.js';
import { createFinalStandingsReader } from '../postgres/final-standings-reader.js';
import { createStandingsRanker } from '../postgres/ranked-standings.js';
import { boardPeriods } from '../postgres/standings-reader.js';
import { createApiKeysRepo } from '../postgres/api-keys-repo.js';
import { createMatchClaims } from '../postgres/match-claims.js';
import { createPlayersRepo } from '../postgres/players-repo.js';
import { bounded, createDeadline } from '../postgres/deadline.js';
import { createBoardReader } from '../redis/board-reader.js';
import { turnBatchedConnection } from '../redis/client.js';
import { boardExpireAt } from '../domain/board.js';
import { createLivePubSub } from '../redis/live-pubsub.js';
import { createPersistedQueries } from '../redis/persisted-queries.js';
import { defineScripts } from '../redis/scripts.js';
import { createBoardVersions } from '../service/board-events.js';
import { createNameCache } from '../service/name-cache.js';
import { createResponseCache } from '../graphql/response-cache.js';
import { createAuthenticator } from '../service/api-keys.js';
import { createLeaderboardReads } from '../service/leaderboard-reads.js';
import { createLiveUpdates } from '../service/live-updates.js';
import { createRankWatcher } from '../service/rank-watcher.js';
import { createRateLimiter } from '../service/rate-limiter.js';
import { routeBoardEvents } from '../service/route-board-events.js';
import type { Readiness } from '../service/readiness.js';
import type { SeasonCache } from '../service/season-cache.js';
import { createSeason, listSeasons, requireSeason, withCurrentStatus, type SeasonStore } from '../service/seasons.js';
import { submitMatchResult } from '../service/submit-match-result.js';
import { createSubmissionBatcher } from '../service/submission-batcher.js';
import { createTopCache, finalOrLiveTops } from '../service/top-cache.js';
import type { BoardMaintenance } from './board-maintenance.js';
import type { ClusterLink } from './cluster.js';
import type { PlayerAdmin } from './player-admin.js';
import type { SeasonJobs } from './season-jobs.js';
import type { ApiServer } from './startup.js';
import { createPageHandler } from '../page.js';
import { createRankSnapshots } from '../postgres/rank-snapshots.js';

export interface ApiDeps {
  config: Config;
  /** The HTTP server the API answers on once started (startup.ts: it listens, answering 503, before). */
  server: ApiServer;
  logger: Logger;
  metrics: Metrics;
  db: Db;
  /** Raw PostgreSQL, for reads of closed seasons and expired boards. */
  sql: Sql;
  redis: Redis;
  kafka: Kafka;
  seasonStore: SeasonStore;
  seasons: SeasonCache;
  boards: BoardMaintenance;
  seasonJobs: Pick<SeasonJobs, 'close'>;
  /** Removing and blocking players; its block cache also guards submissions. */
  playerAdmin: PlayerAdmin;
  /** What /ready reports. */
  readiness(): Promise<Readiness>;
  /** Set in an API worker: /metrics then covers the whole cluster. */
  cluster?: ClusterLink;
}

/** How long an automatic persisted query stays in Redis after its last registration or lookup. */
const PERSISTED_QUERY_TTL_SECONDS = 7 * 24 * 3600;

/** Builds the API role; it answers on its server from start() on. */
export function createApi(deps: ApiDeps) {
  const { config, logger, metrics } = deps;
  const log = logger.child({ component: 'api' });
  const onError = (err: unknown) => log.warn({ err }, 'background refresh failed');
  const producer = createResultProducer(deps.kafka, config.kafka.topic);
  // Reads get a connection of their own that sends the commands of one event-loop turn in one
  // write (redis/client.ts): under load most of a read's cost was the write syscall per command.
  // Connections of its own connect on first use, once start-up found Redis: connecting at once,
  // each would report every reconnect attempt while Redis is still down.
  const readConnection = defineScripts(turnBatchedConnection(deps.redis));
  readConnection.on('error', (err: Error) => log.warn({ err: err.message }, 'redis read connection error'));
  const reader = createBoardReader(readConnection);
  // Every PostgreSQL call a request makes is bounded (DATABASE_TIMEOUT_MS): UNAVAILABLE rather
  // than a hang while PostgreSQL is unreachable. The long admin jobs (close, rebuild, reconcile,
  // player removal) are not: they run for minutes by design.
  // Calls in flight: a burst queues (a few hundred milliseconds of short queries), an outage cannot pile up.
  const deadline = createDeadline(config.databaseTimeoutMs, { maxInFlight: 100 * config.databasePoolSize });
  const seasonStore = bounded(deps.seasonStore, deadline);
  const seasonById = (id: number) => {
    const cached = deps.seasons.peek(id);
    return cached ? Promise.resolve(cached) : deadline(() => deps.seasons.get(id));
  };
  const archive = bounded(createFinalStandingsReader(deps.sql), deadline);
  const topSource = finalOrLiveTops({ seasonById, live: reader, final: archive });
  const versions = createBoardVersions();
  const topCache = createTopCache({
    source: topSource,
    versions,
    onError,
    onFetch: () => metrics.liveRedisReads.inc({ source: 'top_cache' }),
    maxBoards: config.serving.topCacheMaxBoards,
  });
  const rankWatcher = createRankWatcher({
    othersEveryMs: config.serving.rankShiftPushIntervalMs,
    source: { entries: (b, ids) => reader.versioned.entries(b, ids) },
    onError,
    onRead: () => metrics.liveRedisReads.inc({ source: 'rank_watcher' }),
    onDrift: (n) => metrics.rankDrift.inc(n),
  });
  // A subscribed connection can run no other command: pub/sub gets two of its own.
  const [publisher, subscriber] = [
    deps.redis.duplicate({ lazyConnect: true }),
    deps.redis.duplicate({ lazyConnect: true }),
  ];
  for (const c of [publisher, subscriber])
    c.on('error', (err: Error) => log.warn({ err: err.message }, 'redis pub/sub connection error'));
  const livePubSub = createLivePubSub(publisher, subscriber);
  const live = createLiveUpdates({ tops: topCache, ranks: rankWatcher, usable: livePubSub.usable });
  const players = bounded(createPlayersRepo(deps.db), deadline);
  const names = createNameCache({ load: (ids) => players.names(ids) });
  const responseCache = createResponseCache({
    versions,
    namesEpoch: names.epoch,
    maxBytes: config.serving.responseCacheMaxBytes,
    maxAgeMs: config.serving.responseCacheMaxAgeMs,
  });
  // Concurrent submissions share one matchId claim statement and one produce request.
  const submissions = createSubmissionBatcher({
    queue: producer,
    claims: bounded(createMatchClaims(deps.sql), deadline),
  });
  const authenticator = createAuthenticator(bounded(createApiKeysRepo(deps.db), deadline), {
    cacheTtlMs: config.apiKeyCacheMs,
  });
  const limiters = {
    read: createRateLimiter(config.rateLimits.reads),
    submit: createRateLimiter(config.rateLimits.submits),
  };
  const now = () => new Date();
  const rankSnapshots = createRankSnapshots(deps.sql);
  const periods = boardPeriods(deps.sql);

  const services: Services = {
    now,
    season: async (id) => {
      const s = await seasonById(id);
      return s && withCurrentStatus(s, now());
    },
    seasons: (status) => listSeasons(seasonStore, status, now()),
    createSeason: (def) => createSeason(seasonStore, def, now()),
    closeSeason: async (id, by) => {
      await deps.seasonJobs.close(id, by);
      return withCurrentStatus(await requireSeason(seasonStore, id), now());
    },
    rebuild: async (seasonId) => {
      // Looked up within DATABASE_TIMEOUT_MS first: an unknown season or an outage answers at once.
      await requireSeason(seasonStore, seasonId);
      return deps.boards.rebuild(seasonId);
    },
    reconcile: deps.boards.reconcileAndRecord,
    playerAdmin: deps.playerAdmin,
    submit: async (input) => {
      try {
        const result = await submitMatchResult(
          {
            seasonById,
            queue: submissions,
            names: {
              upsert: async (n) => livePubSub.publishNames(await players.upsert(n)),
            },
            now,
            skewMs: config.submitSkewMs,
            sendTimeoutMs: config.submitTimeoutMs,
            onNamesFailed: (err) => log.warn({ err }, 'display names not stored'),
            blocked: { blockedAmong: (s, ids) => deadline(() => deps.playerAdmin.blocked.blockedAmong(s, ids)) },
            onBlockedCheckFailed: (err) => log.warn({ err }, 'blocked players not checked; the consumer checks again'),
          },
          input,
        );
        metrics.submissions.inc({ outcome: 'accepted' });
        return result;
      } catch (err) {
        const unavailable = isDomainError(err) && err.code === 'UNAVAILABLE';
        metrics.submissions.inc({ outcome: unavailable ? 'unavailable' : 'rejected' });
        throw err;
      }
    },
    boards: createLeaderboardReads({
      live: reader,
      top: topCache,
      archive,
      history: bounded(createStandingsRanker(deps.sql), deadline),
      expiresAt: (b) => boardExpireAt(b.season, b.window, b.period, config.windowTtlSeconds),
    }),
    live,
    playerNames: (ids) => names.names(ids),
    periods: (seasonId, window, first, before) => deadline(() => periods(seasonId, window, first, before)),
    rankHistory: (seasonId, ids, last) => deadline(() => rankSnapshots.history(seasonId, ids, last)),
    rateLimit: (kind, key) => {
      if (!limiters[kind].take(key)) throw rateLimited(`too many ${kind} requests; slow down`);
    },
  };

  let reported = { hits: 0, misses: 0 };
  /** Refreshes metrics that are read, not counted. */
  function collectGauges(): void {
    metrics.topCacheAgeSeconds.reset();
    for (const { board, ageSeconds } of topCache.ages()) {
      metrics.topCacheAgeSeconds.set({ board: `${board.season.id}:${board.window}:${board.period}` }, ageSeconds);
    }
    for (const [kind, n] of Object.entries(live.openSubscriptions())) metrics.subscriptions.set({ kind }, n);
    const stats = responseCache.stats();
    metrics.responseCache.inc({ result: 'hit' }, stats.hits - reported.hits);
    metrics.responseCache.inc({ result: 'miss' }, stats.misses - reported.misses);
    reported = stats;
    metrics.responseCacheBytes.set(stats.bytes);
    metrics.responseCacheEntries.set(stats.entries);
  }

  const server = createGraphQLServer({
    server: deps.server.server,
    services,
    authenticate: (header) => authenticator.authenticate(header),
    logger,
    routes: {
      '/ready': async () => {
        const r = await deps.readiness();
        // In an API worker, also which process answered: a client can tell the workers apart.
        const body = deps.cluster ? { ...r, pid: process.pid } : r;
        return { status: r.ok ? 200 : 503, contentType: 'application/json', body: JSON.stringify(body) };
      },
      '/metrics': async () => {
        const { contentType } = metrics.registry;
        if (deps.cluster) return { status: 200, contentType, body: await deps.cluster.metrics() };
        collectGauges();
        return { status: 200, contentType, body: await metrics.registry.metrics() };
      },
    },
    page: createPageHandler(),
    limits: {
      ...config.ws,
      ...config.http,
      maxCost: config.serving.maxCost,
      graphiql: config.graphiql.enabled,
      graphiqlLoadsPerMinute: config.graphiql.loadsPerMinute,
      corsOrigins: config.corsOrigins,
    },
    jit: config.serving.jit,
    onErrorCode: (code) => metrics.graphqlErrors.inc({ code }),
    onMutationExecuted: (seconds) => metrics.graphqlDuration.observe({ operation_type: 'mutation' }, seconds),
    persistedQueries: createPersistedQueries(deps.redis, {
      ttlSeconds: PERSISTED_QUERY_TTL_SECONDS,
      onError: (err) => log.warn({ err }, 'persisted query store: redis failed'),
    }),
    responses: {
      cache: responseCache,
      maxAgeSeconds: config.serving.httpCacheMaxAgeSeconds,
      onExecuted: (seconds) => metrics.graphqlDuration.observe({ operation_type: 'query' }, seconds),
    },
    plugins: [
      useOperationMetrics((type, seconds) => metrics.graphqlDuration.observe({ operation_type: type }, seconds)),
    ],
  });

  let timers: NodeJS.Timeout[] = [];
  let unsubscribeUpdates: (() => void) | undefined;

  return {
    server,
    services,
    topCache,
    rankWatcher,
    responseCache,
    names,
    producer,
    collectGauges,
    async start(): Promise<void> {
      await producer.start();
      unsubscribeUpdates = await livePubSub.subscribe(
        routeBoardEvents({ versions, rankWatcher, topCache, live, seasons: deps.seasons, names }),
      );
      // A raise event moves a cached top in memory; other news makes watched tops (topChanged) be
      // re-read (topCache.heard, at most 20 reads a second per board); the tick catches what no event
      // announced (a reconnect) and ages them out.
      timers = [setInterval(() => void topCache.tick(), 1_000)];
      if (config.serving.rankResyncIntervalMs > 0) {
        timers.push(setInterval(() => void rankWatcher.resync(), config.serving.rankResyncIntervalMs));
      }
      deps.server.serve(server.handlers);
      const address = deps.server.server.address() as AddressInfo;
      log.info({ url: `http://${address.address}:${address.port}/graphql` }, 'GraphQL API listening');
    },
    async stop(): Promise<void> {
      for (const t of timers) clearInterval(t);
      await server.close();
      unsubscribeUpdates?.();
      await livePubSub.close();
      readConnection.disconnect();
      await producer.stop();
    },
  };
}

export type Api = ReturnType<typeof createApi>;
