import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** The location of a Redis Cluster in the redisUrl setting: `redis-cluster://host:port,host:port,...`. */
export const CLUSTER_SCHEME = 'redis-cluster://';

/** The `redisUrl` setting for a Redis Cluster reached through these seed nodes (`host:port`, comma-separated). */
export function clusterUrl(nodes: string): string {
  return CLUSTER_SCHEME + nodes;
}

/** Every setting of the service, parsed once from the environment. */
const schema = z.object({
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/ladder'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  // host:port,host:port,... of a Redis Cluster's seed nodes; when set, it is used instead of REDIS_URL.
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, 'host:port,host:port,...')
    .optional(),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  KAFKA_CLIENT_ID: z.string().min(1).default('ladder'),
  KAFKA_TOPIC: z.string().min(1).default('match-results'),
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
  KAFKA_GROUP_ID: z.string().min(1).default('ladder-ingest'),
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(300_000).default(30_000),
  INGEST_APPLIES_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(3),
  // Renamed INGEST_APPLIES_IN_FLIGHT (2026-12): a setting that would be ignored fails instead.
  KAFKA_PARTITIONS_CONCURRENTLY: z.undefined({ error: 'renamed INGEST_APPLIES_IN_FLIGHT' }).optional(),
  WINDOW_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(2 * 24 * 3600),
  SUBMIT_SKEW_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  SUBMIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  RATE_LIMIT_READS_PER_SEC: z.coerce.number().positive().default(50),
  RATE_LIMIT_READS_BURST: z.coerce.number().min(1).default(100),
  RATE_LIMIT_SUBMITS_PER_SEC: z.coerce.number().positive().default(2_000),
  RATE_LIMIT_SUBMITS_BURST: z.coerce.number().min(1).default(4_000),
  TOP_CACHE_MAX_BOARDS: z.coerce.number().int().min(1).default(200),
  RESPONSE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  RESPONSE_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  HTTP_CACHE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(1),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(100).default(10_000),
  GRAPHQL_JIT: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  RANK_SHIFT_PUSH_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  RANK_RESYNC_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(10_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(5_000),
  HTTP_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(256),
  HTTP_DRAIN_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  GRAPHIQL: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  GRAPHIQL_LOADS_PER_MINUTE: z.coerce.number().positive().default(6),
  CORS_ORIGINS: z
    .string()
    .default('*')
    .transform((v) =>
      v.trim() === '*'
        ? ('*' as const)
        : v
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean),
    ),
  WS_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  WS_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).default(20),
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  CONSOLE_SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(8 * 3600),
  BLOCKED_PLAYERS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  SEASON_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  SEASON_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  SEASON_CLOSE_GRACE_MS: z.coerce.number().int().min(0).max(300_000).optional(),
  SEASON_CLOSE_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
  BOARD_RESTORE_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
  HISTORY_ARCHIVE_AFTER_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  HISTORY_ARCHIVE_DIR: z.string().min(1).default('archives'),
  RECONCILE_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(0),
  RECONCILE_AUTO_REPAIR: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  API_WORKERS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
  STARTUP_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  LADDER_ROLES: z
    .string()
    .default('api,ingest')
    .transform((s) => s.split(',').map((r) => r.trim()))
    .pipe(z.array(z.enum(['api', 'ingest'])).min(1)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  /** What this process runs: the GraphQL API, the ingest consumer, or both. */
  readonly roles: readonly ('api' | 'ingest')[];
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  /** How long a request waits on PostgreSQL before answering UNAVAILABLE. */
  readonly databaseTimeoutMs: number;
  /** REDIS_URL, or `redis-cluster://h:p,...` when REDIS_CLUSTER_NODES is set (redis/client.ts). */
  readonly redisUrl: string;
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly topic: string;
    readonly dlqTopic: string;
    /** Where granted rewards go for the game's economy service, keyed by their idempotency key. */
    readonly rewardsTopic: string;
    readonly partitions: number;
    readonly groupId: string;
    /**
     * Chunks applied side by side at most (PostgreSQL statements and Redis calls in flight).
     * Every partition a process holds is consumed at once; what is ready together is applied as one.
     */
    readonly appliesInFlight: number;
    /** A consumer silent this long is evicted from the group and its partitions reassigned. */
    readonly sessionTimeoutMs: number;
  };
  /** DAY and WEEK boards expire this long after their window closes. */
  readonly windowTtlSeconds: number;
  /** How far in the future a match's endedAt may be (clock skew of game servers). */
  readonly submitSkewMs: number;
  /** How long submitMatchResult waits for Kafka's acknowledgement before answering UNAVAILABLE. */
  readonly submitTimeoutMs: number;
  /** Token buckets: reads per client address, submissions per API key (per process). */
  readonly rateLimits: {
    readonly reads: { readonly ratePerSec: number; readonly burst: number };
    readonly submits: { readonly ratePerSec: number; readonly burst: number };
  };
  /**
   * Serving: the response cache's memory budget and the longest it keeps an answer without news
   * (a safety net: answers are dropped when a board they read changes); the Cache-Control max-age
   * of cacheable GET answers; how often rankChanged re-reads every watched player (0: never).
   */
  readonly serving: {
    readonly responseCacheMaxBytes: number;
    /** Boards whose top 1,000 this process keeps in RAM (least recently used go first). */
    readonly topCacheMaxBoards: number;
    readonly responseCacheMaxAgeMs: number;
    readonly httpCacheMaxAgeSeconds: number;
    readonly rankResyncIntervalMs: number;
    /** rankChanged: how often a rank moved by other players is pushed (a player's own score: at once). */
    readonly rankShiftPushIntervalMs: number;
    /** Compile queries with graphql-jit. */
    readonly jit: boolean;
    /** The largest cost of an operation: fields selected, each list's counted once per item it can hold. */
    readonly maxCost: number;
  };
  /**
   * HTTP limits: how long a client may take to send a whole request and its headers; open
   * connections (HTTP and WebSocket) per client address and process (0: no cap).
   */
  readonly http: {
    readonly requestTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly connectionsPerAddress: number;
    /** On stop: how long open connections are still served (each answer closing its connection). */
    readonly drainGraceMs: number;
  };
  /** Origins browsers may call the API from: '*' (any, without credentials) or a list (echoed, with credentials). */
  readonly corsOrigins: '*' | readonly string[];
  /** GraphiQL at /graphql for browsers, and the full loads an address may make per minute (burst 5). */
  readonly graphiql: { readonly enabled: boolean; readonly loadsPerMinute: number };
  /** WebSocket limits: open sockets per client address, subscriptions per socket. */
  readonly ws: { readonly socketsPerAddress: number; readonly subscriptionsPerSocket: number };
  /** How long an API key lookup is cached: a revoked key works this much longer on a running server. */
  readonly apiKeyCacheMs: number;
  /** How long a console session lasts after its sign-in (src/console/sessions.ts). */
  readonly consoleSessionTtlSeconds: number;
  /** How long a season's blocked players are cached: a block made elsewhere is enforced this much later. */
  readonly blockedPlayersCacheMs: number;
  /**
   * Season lifecycle: how often the scheduler runs (0: never in this process); how long a season
   * stays cached (a close waits this long twice, so every process sees it); how long after that
   * a validated submission may still be acknowledged by Kafka (default: submitTimeoutMs); the
   * longest a close waits for the ingest group to apply what Kafka held at the close.
   */
  readonly seasons: {
    readonly schedulerIntervalMs: number;
    readonly cacheTtlMs: number;
    readonly closeGraceMs: number;
    readonly closeDrainTimeoutMs: number;
  };
  /** How often Redis is checked for lost boards (service/board-restore.ts); 0: never. */
  readonly boardRestoreIntervalMs: number;
  /**
   * Raw history (docs/design.md#retention-and-archives): a season's results are archived to
   * `archiveDir` and their partitions dropped `archiveAfterDays` after its close (0: never by
   * the scheduler; `npm run cli -- history archive` still can).
   */
  readonly history: { readonly archiveAfterDays: number; readonly archiveDir: string };
  /** Scheduled reconcile of every ACTIVE season (0: off), and whether it repairs what it finds. */
  readonly reconcile: { readonly intervalSeconds: number; readonly autoRepair: boolean };
  readonly port: number;
  readonly host: string;
  /**
   * API processes (node:cluster workers sharing the port) when the roles include `api`;
   * 1 keeps everything in one process.
   */
  readonly apiWorkers: number;
  /** How long start-up may wait for PostgreSQL, Redis and Kafka before the process gives up. */
  readonly startupTimeoutMs: number;
  readonly logLevel: z.infer<typeof schema>['LOG_LEVEL'];
}

/** Parses the environment; throws one error whose one-line message lists every problem. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    // Names, not values: a value may hold a password (DATABASE_URL).
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return Object.freeze({
    roles: Object.freeze(e.LADDER_ROLES),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    redisUrl: e.REDIS_CLUSTER_NODES ? clusterUrl(e.REDIS_CLUSTER_NODES) : e.REDIS_URL,
    kafka: Object.freeze({
      brokers: Object.freeze(e.KAFKA_BROKERS.split(',').map((b) => b.trim())),
      clientId: e.KAFKA_CLIENT_ID,
      topic: e.KAFKA_TOPIC,
      dlqTopic: `${e.KAFKA_TOPIC}.dlq`,
      rewardsTopic: `${e.KAFKA_TOPIC}.rewards`,
      partitions: e.KAFKA_PARTITIONS,
      groupId: e.KAFKA_GROUP_ID,
      appliesInFlight: e.INGEST_APPLIES_IN_FLIGHT,
      sessionTimeoutMs: e.KAFKA_SESSION_TIMEOUT_MS,
    }),
    windowTtlSeconds: e.WINDOW_TTL_SECONDS,
    submitSkewMs: e.SUBMIT_SKEW_SECONDS * 1000,
    submitTimeoutMs: e.SUBMIT_TIMEOUT_MS,
    rateLimits: Object.freeze({
      reads: Object.freeze({ ratePerSec: e.RATE_LIMIT_READS_PER_SEC, burst: e.RATE_LIMIT_READS_BURST }),
      submits: Object.freeze({ ratePerSec: e.RATE_LIMIT_SUBMITS_PER_SEC, burst: e.RATE_LIMIT_SUBMITS_BURST }),
    }),
    serving: Object.freeze({
      responseCacheMaxBytes: e.RESPONSE_CACHE_MAX_BYTES,
      topCacheMaxBoards: e.TOP_CACHE_MAX_BOARDS,
      responseCacheMaxAgeMs: e.RESPONSE_CACHE_MAX_AGE_MS,
      httpCacheMaxAgeSeconds: e.HTTP_CACHE_MAX_AGE_SECONDS,
      rankResyncIntervalMs: e.RANK_RESYNC_INTERVAL_MS,
      rankShiftPushIntervalMs: e.RANK_SHIFT_PUSH_INTERVAL_MS,
      jit: e.GRAPHQL_JIT,
      maxCost: e.GRAPHQL_MAX_COST,
    }),
    http: Object.freeze({
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      connectionsPerAddress: e.HTTP_CONNECTIONS_PER_ADDRESS,
      drainGraceMs: e.HTTP_DRAIN_GRACE_MS,
    }),
    corsOrigins: e.CORS_ORIGINS === '*' ? '*' : Object.freeze(e.CORS_ORIGINS),
    graphiql: Object.freeze({ enabled: e.GRAPHIQL, loadsPerMinute: e.GRAPHIQL_LOADS_PER_MINUTE }),
    ws: Object.freeze({
      socketsPerAddress: e.WS_SOCKETS_PER_ADDRESS,
      subscriptionsPerSocket: e.WS_SUBSCRIPTIONS_PER_SOCKET,
    }),
    apiKeyCacheMs: e.API_KEY_CACHE_MS,
    consoleSessionTtlSeconds: e.CONSOLE_SESSION_TTL_SECONDS,
    blockedPlayersCacheMs: e.BLOCKED_PLAYERS_CACHE_MS,
    seasons: Object.freeze({
      schedulerIntervalMs: e.SEASON_SCHEDULER_INTERVAL_MS,
      cacheTtlMs: e.SEASON_CACHE_TTL_MS,
      closeGraceMs: e.SEASON_CLOSE_GRACE_MS ?? e.SUBMIT_TIMEOUT_MS,
      closeDrainTimeoutMs: e.SEASON_CLOSE_DRAIN_TIMEOUT_MS,
    }),
    boardRestoreIntervalMs: e.BOARD_RESTORE_INTERVAL_MS,
    history: Object.freeze({ archiveAfterDays: e.HISTORY_ARCHIVE_AFTER_DAYS, archiveDir: e.HISTORY_ARCHIVE_DIR }),
    reconcile: Object.freeze({ intervalSeconds: e.RECONCILE_INTERVAL_SECONDS, autoRepair: e.RECONCILE_AUTO_REPAIR }),
    port: e.PORT,
    host: e.HOST,
    apiWorkers: e.API_WORKERS,
    startupTimeoutMs: e.STARTUP_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  });
}

/** The config of this process: exits listing every problem when the environment is invalid. */
export function loadConfig(): Config {
  try {
    return parseConfig(process.env);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
