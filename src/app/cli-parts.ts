// What the operator CLI (src/cli) gets from the composition root besides the whole app (command.ts
// withApp): the API keys alone, and the guard every process installs before touching PostgreSQL.
import type { Config } from '../config.js';
import { createApiKeysRepo, type ApiKeysRepo } from '../postgres/api-keys-repo.js';
import { createAuditLog } from '../postgres/audit-log.js';
import type { AuditLog } from '../service/audit-trail.js';
import { createPostgres, migrateDatabase } from '../postgres/client.js';
import { surviveTypeFetchFailures, TYPE_FETCH_WARNING } from '../postgres/type-fetch-guard.js';

/**
 * Runs `fn` with the API keys of a migrated database (so the `keys` commands work on a fresh one):
 * one PostgreSQL connection, none of Redis, Kafka or the service's other modules.
 */
export async function withApiKeys<T>(config: Config, fn: (keys: ApiKeysRepo) => Promise<T>): Promise<T> {
  await migrateDatabase(config.databaseUrl);
  const pg = createPostgres(config.databaseUrl, 1);
  try {
    return await fn(createApiKeysRepo(pg.db));
  } finally {
    await pg.close();
  }
}

/** The audit trail on a connection of its own, closed after `fn` (the `audit` command, every audited command). */
export async function withAuditLog<T>(config: Config, fn: (log: AuditLog) => Promise<T>): Promise<T> {
  const pg = createPostgres(config.databaseUrl, 1);
  try {
    return await fn(createAuditLog(pg.sql));
  } finally {
    await pg.close();
  }
}

/** postgres.js's type fetch failing on a connection is survived with a warning line (type-fetch-guard.ts). */
export function warnOnTypeFetchFailures(write: (line: string) => void): void {
  surviveTypeFetchFailures((err) => write(`warning: ${TYPE_FETCH_WARNING}: ${err.message}\n`));
}
