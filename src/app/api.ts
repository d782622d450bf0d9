// The API role: GraphQL server, top-N cache, live updates. Wired by app.ts; its parts are built by
// api-reads.ts (the read side), api-services.ts (the use cases) and api-http.ts (the server).
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import { createResultProducer } from '../kafka/producer.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Db, Sql } from '../postgres/client.js';
import { routeBoardEvents } from '../service/route-board-events.js';
import type { Readiness } from '../service/readiness.js';
import type { SeasonCache } from '../service/season-cache.js';
import type { SeasonStore } from '../service/seasons.js';
import { createApiHttp, createGauges } from './api-http.js';
import { createReadSide } from './api-reads.js';
import { createServices } from './api-services.js';
import type { BoardMaintenance } from './board-maintenance.js';
import type { ClusterLink } from './cluster.js';
import type { PlayerAdmin } from './player-admin.js';
import type { SeasonJobs } from './season-jobs.js';
import type { ApiServer } from './startup.js';

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
  seasonJobs: Pick<SeasonJobs, 'close' | 'exportFinal'>;
  /** Removing and blocking players; its block cache also guards submissions. */
  playerAdmin: PlayerAdmin;
  /** What /ready reports. */
  readiness(): Promise<Readiness>;
  /** Set in an API worker: /metrics then covers the whole cluster. */
  cluster?: ClusterLink;
}

/** Builds the API role; it answers on its server from start() on. */
export function createApi(deps: ApiDeps) {
  const { config, metrics } = deps;
  const log = deps.logger.child({ component: 'api' });
  const producer = createResultProducer(deps.kafka, config.kafka.topic);
  const reads = createReadSide(deps, log, metrics);
  const services = createServices(deps, reads, producer, log, metrics);
  const collectGauges = createGauges(deps, reads);
  const server = createApiHttp(deps, services, reads, collectGauges, log);
  const { topCache, rankWatcher, live, livePubSub } = reads;

  let timers: NodeJS.Timeout[] = [];
  let unsubscribeUpdates: (() => void) | undefined;

  return {
    server,
    services,
    topCache,
    rankWatcher,
    responseCache: reads.responseCache,
    names: reads.names,
    producer,
    collectGauges,
    async start(): Promise<void> {
      await producer.start();
      unsubscribeUpdates = await livePubSub.subscribe(
        routeBoardEvents({
          versions: reads.versions,
          rankWatcher,
          topCache,
          live,
          seasons: deps.seasons,
          names: reads.names,
        }),
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
      reads.readConnection.disconnect();
      await producer.stop();
    },
  };
}
