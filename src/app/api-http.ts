// The API's HTTP side: the GraphQL server with its routes (/ready, /metrics), limits and caches,
// and the gauges /metrics refreshes. Built by api.ts.
import { createConsole } from '../console/wiring.js';
import { createGraphQLServer } from '../graphql/server.js';
import type { Services } from '../graphql/context.js';
import { useOperationMetrics } from '../graphql/use-operation-metrics.js';
import type { Logger } from '../logger.js';
import { createPageHandler } from '../page.js';
import { createPersistedQueries } from '../redis/persisted-queries.js';
import { createAuthenticator } from '../service/api-keys.js';
import { bounded } from '../postgres/deadline.js';
import { createApiKeysRepo } from '../postgres/api-keys-repo.js';
import type { ApiDeps } from './api.js';
import type { ReadSide } from './api-reads.js';

/** How long an automatic persisted query stays in Redis after its last registration or lookup. */
const PERSISTED_QUERY_TTL_SECONDS = 7 * 24 * 3600;

/** Refreshes the metrics that are read, not counted (the top cache's ages, subscriptions, the response cache). */
export function createGauges({ metrics }: Pick<ApiDeps, 'metrics'>, reads: ReadSide) {
  let reported = { hits: 0, misses: 0 };
  return function collectGauges(): void {
    metrics.topCacheAgeSeconds.reset();
    for (const { board, ageSeconds } of reads.topCache.ages()) {
      metrics.topCacheAgeSeconds.set({ board: `${board.season.id}:${board.window}:${board.period}` }, ageSeconds);
    }
    for (const [kind, n] of Object.entries(reads.live.openSubscriptions())) metrics.subscriptions.set({ kind }, n);
    const stats = reads.responseCache.stats();
    metrics.responseCache.inc({ result: 'hit' }, stats.hits - reported.hits);
    metrics.responseCache.inc({ result: 'miss' }, stats.misses - reported.misses);
    reported = stats;
    metrics.responseCacheBytes.set(stats.bytes);
    metrics.responseCacheEntries.set(stats.entries);
  };
}

export function createApiHttp(
  deps: ApiDeps,
  services: Services,
  reads: ReadSide,
  collectGauges: () => void,
  log: Logger,
) {
  const { config, metrics } = deps;
  // What /metrics answers: in an API worker the whole cluster's, aggregated by the primary. The
  // console's live charts read the same text.
  async function metricsText(): Promise<string> {
    if (deps.cluster) return deps.cluster.metrics();
    collectGauges();
    return metrics.registry.metrics();
  }
  const authenticator = createAuthenticator(bounded(createApiKeysRepo(deps.db), reads.deadline), {
    cacheTtlMs: config.apiKeyCacheMs,
  });
  return createGraphQLServer({
    server: deps.server.server,
    services,
    authenticate: (header) => authenticator.authenticate(header),
    logger: deps.logger,
    routes: {
      '/ready': async () => {
        const r = await deps.readiness();
        // In an API worker, also which process answered: a client can tell the workers apart.
        const body = deps.cluster ? { ...r, pid: process.pid } : r;
        return { status: r.ok ? 200 : 503, contentType: 'application/json', body: JSON.stringify(body) };
      },
      '/metrics': async () => ({ status: 200, contentType: metrics.registry.contentType, body: await metricsText() }),
    },
    // The board page, and the console at /console (src/console/).
    page: createConsole(
      { ...deps, services, metricsText, sessionTtlSeconds: config.consoleSessionTtlSeconds },
      createPageHandler(),
    ),
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
      cache: reads.responseCache,
      maxAgeSeconds: config.serving.httpCacheMaxAgeSeconds,
      onExecuted: (seconds) => metrics.graphqlDuration.observe({ operation_type: 'query' }, seconds),
    },
    plugins: [
      useOperationMetrics((type, seconds) => metrics.graphqlDuration.observe({ operation_type: type }, seconds)),
    ],
  });
}
