// Builds the console (handler.ts, http.ts, actions.ts, sessions.ts) from the API's parts: sessions
// in Redis, API keys and the audit trail in PostgreSQL, seasons (and rebuild, reconcile, the audit
// view: operations.ts, audit-view.ts) through the GraphQL services.
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import type { Services } from '../graphql/context.js';
import type { Logger } from '../logger.js';
import { createApiKeysRepo } from '../postgres/api-keys-repo.js';
import { createAuditLog } from '../postgres/audit-log.js';
import { createDlqReplays } from '../postgres/dlq-replays.js';
import { createIngestInspector } from '../kafka/dead-letters.js';
import type { Db, Sql } from '../postgres/client.js';
import { createAuthenticator } from '../service/api-keys.js';
import { createRateLimiter } from '../service/rate-limiter.js';
import { createConsoleActions } from './actions.js';
import { auditRoutes, createAuditView } from './audit-view.js';
import { withConsole } from './handler.js';
import { createConsoleApi } from './http.js';
import { createConsoleJobs } from './jobs.js';
import { createConsoleOperations, operationRoutes, type ConsoleOperationDeps } from './operations.js';
import { createIngestConsole, ingestRoutes } from './ingest.js';
import { createConsolePlayers, playerRoutes } from './players.js';
import { createPlayerLookup } from '../postgres/player-lookup.js';
import { chartRoutes, keyRoutes, seasonRoutes } from './routes.js';
import { createConsoleSessions } from './sessions.js';

export function createConsole(
  deps: {
    db: Db;
    sql: Sql;
    redis: Redis;
    services: Services;
    logger: Logger;
    sessionTtlSeconds: number;
    /** A rebuild's or reconcile's progress total (app/board-maintenance.ts). */
    boards: Pick<ConsoleOperationDeps, 'liveMembers'>;
    /** Final standings exports (app/season-jobs.ts). */
    seasonJobs: Pick<ConsoleOperationDeps, 'exportFinal'>;
    /** The results topic, its DLQ and the ingest group, for the ingest page. */
    kafka: Kafka;
    config: { kafka: Pick<Config['kafka'], 'topic' | 'dlqTopic' | 'groupId'> };
    /** What /metrics answers (the cluster's aggregate in an API worker), for the live charts. */
    metricsText(): Promise<string>;
  },
  page: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => boolean,
) {
  const log = deps.logger.child({ component: 'console' });
  const keys = createApiKeysRepo(deps.db);
  // Uncached: a sign-in always asks PostgreSQL (and marks the key used).
  const authenticator = createAuthenticator(keys, { cacheTtlMs: 0 });
  const actions = createConsoleActions({
    services: deps.services,
    keys,
    audit: createAuditLog(deps.sql),
    onRecordFailed: (err, action) => log.error({ err, action }, 'admin action not recorded in the audit trail'),
  });
  const ingest = createIngestConsole({
    kafka: createIngestInspector(deps.kafka, deps.config.kafka),
    replays: createDlqReplays(deps.sql),
    audit: createAuditLog(deps.sql),
    onRecordFailed: (err, action) => log.error({ err, action }, 'admin action not recorded in the audit trail'),
  });
  const operations = createConsoleOperations({
    services: deps.services,
    liveMembers: (id) => deps.boards.liveMembers(id),
    exportFinal: (input, write) => deps.seasonJobs.exportFinal(input, write),
    jobs: createConsoleJobs(deps.redis, (err) => log.warn({ err }, 'console job status not stored')),
    audit: createAuditLog(deps.sql),
    onRecordFailed: (err, action) => log.error({ err, action }, 'admin action not recorded in the audit trail'),
  });
  const auditView = createAuditView({ list: (f) => deps.services.auditLog(f) });
  // A few sign-ins a minute per client address (every attempt counts): 10 at once, then one every 12 s.
  const signIns = createRateLimiter({ ratePerSec: 5 / 60, burst: 10, maxKeys: 10_000 });
  const players = createConsolePlayers({
    services: deps.services,
    lookup: createPlayerLookup(deps.sql),
    now: () => new Date(),
  });
  const api = createConsoleApi({
    sessions: createConsoleSessions(deps.redis, deps.sessionTtlSeconds),
    routes: [
      ...seasonRoutes(actions),
      ...keyRoutes(actions),
      ...chartRoutes(deps.metricsText),
      ...ingestRoutes(ingest),
      ...operationRoutes(operations),
      ...auditRoutes(auditView),
      ...playerRoutes(players),
    ],
    authenticate: (key) => authenticator.authenticate(`Bearer ${key}`),
    keyWorks: async (id) => {
      const key = await keys.get(id);
      return key !== undefined && (key.revokedAt === null || key.revokedAt.getTime() > Date.now());
    },
    signInAttempt: (address) => (signIns.take(address) ? 0 : signIns.retryAfterMs(address)),
    onError: (err) => log.error({ err }, 'console request failed'),
  });
  return withConsole(page, api);
}
