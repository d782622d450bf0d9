// The API's read side: the board reader on its own connection, bounded PostgreSQL reads, the
// top-N cache, the rank watcher, live updates over Redis pub/sub, display names and the response
// cache. Built by api.ts.
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { createFinalStandingsReader } from '../postgres/final-standings-reader.js';
import { createPlayersRepo } from '../postgres/players-repo.js';
import { bounded, createDeadline } from '../postgres/deadline.js';
import { createBoardReader } from '../redis/board-reader.js';
import { turnBatchedConnection } from '../redis/client.js';
import { createLivePubSub } from '../redis/live-pubsub.js';
import { createResponseCache } from '../graphql/response-cache.js';
import { createBoardVersions } from '../service/board-events.js';
import { createLiveUpdates } from '../service/live-updates.js';
import { createNameCache } from '../service/name-cache.js';
import { createRankWatcher } from '../service/rank-watcher.js';
import { createTopCache, finalOrLiveTops } from '../service/top-cache.js';
import type { ApiDeps } from './api.js';

export function createReadSide(deps: ApiDeps, log: Logger, metrics: Metrics) {
  const { config } = deps;
  const onError = (err: unknown) => log.warn({ err }, 'background refresh failed');
  // Reads get a connection of their own that sends the commands of one event-loop turn in one
  // write (redis/client.ts): under load most of a read's cost was the write syscall per command.
  // Connections of its own connect on first use, once start-up found Redis: connecting at once,
  // each would report every reconnect attempt while Redis is still down.
  const readConnection = turnBatchedConnection(deps.redis);
  readConnection.on('error', (err: Error) => log.warn({ err: err.message }, 'redis read connection error'));
  const reader = createBoardReader(readConnection);
  // Every PostgreSQL call a request makes is bounded (DATABASE_TIMEOUT_MS): UNAVAILABLE rather
  // than a hang while PostgreSQL is unreachable. The long admin jobs (close, rebuild, reconcile,
  // player removal) are not: they run for minutes by design.
  // Calls in flight: a burst queues (a few hundred milliseconds of short queries), an outage cannot pile up.
  const deadline = createDeadline(config.databaseTimeoutMs, { maxInFlight: 100 * config.databasePoolSize });
  const seasonById = (id: number) => {
    const cached = deps.seasons.peek(id);
    return cached ? Promise.resolve(cached) : deadline(() => deps.seasons.get(id));
  };
  const archive = bounded(createFinalStandingsReader(deps.sql), deadline);
  const versions = createBoardVersions();
  const topCache = createTopCache({
    source: finalOrLiveTops({ seasonById, live: reader, final: archive }),
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
  return {
    readConnection,
    reader,
    deadline,
    seasonById,
    archive,
    versions,
    topCache,
    rankWatcher,
    livePubSub,
    live,
    players,
    names,
    responseCache,
  };
}

export type ReadSide = ReturnType<typeof createReadSide>;
