import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Readiness } from './service/readiness.js';

/** The outcomes of a submission, as the `outcome` label of ladder_submissions_total. */
const SUBMISSION_OUTCOMES = ['accepted', 'rejected', 'unavailable'] as const;

/**
 * A fresh registry with every instrument of the service. Nothing touches prom-client's global
 * registry, so tests (and several apps in one process) can each create their own.
 *
 * With API_WORKERS > 1 every process has one, and /metrics aggregates them (src/app/cluster.ts):
 * counters and histograms add up; a gauge adds up unless its `aggregator` says otherwise.
 */
export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const submissions = new Counter({
    name: 'ladder_submissions_total',
    help: 'submitMatchResult calls by outcome: accepted (acked by Kafka), rejected (client error), unavailable (retryable)',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Export every outcome from the start: rate() over a series that appears late misses its first hits.
  for (const outcome of SUBMISSION_OUTCOMES) submissions.inc({ outcome }, 0);
  // What /ready checks, run again at each scrape (each check bounded in time: service/readiness.ts).
  let readiness: (() => Promise<Readiness>) | undefined;
  const ready = new Gauge({
    name: 'ladder_ready',
    help: 'What /ready checks, at the scrape: 1 ok, 0 failing, by check (postgres, redis, ingest: its Kafka consumer)',
    labelNames: ['check'] as const,
    aggregator: 'min', // several processes: a check failing in any of them
    registers,
    async collect() {
      if (!readiness) return;
      const { checks } = await readiness();
      this.reset();
      for (const [check, state] of Object.entries(checks)) this.set({ check }, state === 'ok' ? 1 : 0);
    },
  });
  return {
    registry,
    /** Has `ladder_ready` report these checks at every scrape. */
    reportReadiness(source: () => Promise<Readiness>): void {
      readiness = source;
    },
    ready,
    /** inc({ outcome }) with one of SUBMISSION_OUTCOMES. */
    submissions,
    resultsIngested: new Counter({
      name: 'ladder_results_ingested_total',
      help: 'Player results stored in PostgreSQL for the first time',
      registers,
    }),
    resultsDuplicate: new Counter({
      name: 'ladder_results_duplicate_total',
      help: 'Player results consumed again (replays, producer retries) and ignored',
      registers,
    }),
    poisonMessages: new Counter({
      name: 'ladder_poison_messages_total',
      help: 'Messages sent to the dead-letter topic, by error code',
      labelNames: ['code'] as const,
      registers,
    }),
    recordUpdates: new Counter({
      name: 'ladder_record_updates_total',
      help: 'Board entries whose score rose in Redis',
      registers,
    }),
    consumerLagSeconds: new Gauge({
      name: 'ladder_consumer_lag_seconds',
      help: 'Age of the newest consumed message when its batch was applied, in seconds',
      // Only a process running the ingest role sets it; the others' 0 must not hide it.
      aggregator: 'max',
      registers,
    }),
    graphqlErrors: new Counter({
      name: 'ladder_graphql_errors_total',
      help: 'Errors answered to GraphQL clients, by extensions.code (client mistakes, UNAVAILABLE, INTERNAL_SERVER_ERROR)',
      labelNames: ['code'] as const,
      registers,
    }),
    topCacheAgeSeconds: new Gauge({
      name: 'ladder_top_cache_age_seconds',
      help: 'Age of the cached top of a board',
      labelNames: ['board'] as const,
      aggregator: 'max', // each API process caches on its own: the stalest one
      registers,
    }),
    subscriptions: new Gauge({
      name: 'ladder_subscriptions',
      help: 'Open GraphQL subscription executions by kind (clients asking the same topChanged or rankChanged share one)',
      labelNames: ['kind'] as const,
      registers,
    }),
    responseCache: new Counter({
      name: 'ladder_response_cache_requests_total',
      help: 'Cacheable reads answered from the response cache (hit) or executed (miss)',
      labelNames: ['result'] as const,
      registers,
    }),
    responseCacheBytes: new Gauge({
      name: 'ladder_response_cache_bytes',
      help: 'Bytes of serialised answers held by the response cache',
      registers,
    }),
    responseCacheEntries: new Gauge({
      name: 'ladder_response_cache_entries',
      help: 'Answers held by the response cache',
      registers,
    }),
    liveRedisReads: new Counter({
      name: 'ladder_live_redis_reads_total',
      help: 'Redis reads made for the top cache and for rankChanged (first reads and resyncs), by source',
      labelNames: ['source'] as const,
      registers,
    }),
    rankDrift: new Counter({
      name: 'ladder_rank_drift_total',
      help: 'Watched players whose rank a resync found different from what the events implied',
      registers,
    }),
    graphqlDuration: new Histogram({
      name: 'ladder_graphql_duration_seconds',
      help: 'GraphQL operation duration',
      labelNames: ['operation_type'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    ingestBatchDuration: new Histogram({
      name: 'ladder_ingest_batch_duration_seconds',
      help: 'Time to apply one consumed batch to PostgreSQL and Redis',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    reconcileDrift: new Gauge({
      name: 'ladder_reconcile_drift',
      help: 'Board entries the last reconcile of a season found differing from PostgreSQL, by kind (missing, extra, different)',
      labelNames: ['season', 'kind'] as const,
      // The same finding may be reported by the primary's schedule and a worker's mutation: not a sum.
      aggregator: 'max',
      registers,
    }),
    reconcileLastRun: new Gauge({
      name: 'ladder_reconcile_last_run_timestamp_seconds',
      help: 'When this instance last finished a reconcile (scheduled, mutation)',
      aggregator: 'max',
      registers,
    }),
    reconcileRepaired: new Counter({
      name: 'ladder_reconcile_repaired_total',
      help: 'Board entries written or removed by reconcile repairs',
      registers,
    }),
    apiWorkers: new Gauge({
      name: 'ladder_api_workers',
      help: 'API worker processes running (API_WORKERS > 1; 0 when the API runs in the main process)',
      registers,
    }),
    apiWorkerRestarts: new Counter({
      name: 'ladder_api_worker_restarts_total',
      help: 'API workers forked again after exiting unexpectedly',
      registers,
    }),
  };
}

/** The registry and instruments of one app. */
export type Metrics = ReturnType<typeof createMetrics>;
