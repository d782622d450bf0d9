import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.js';
import { ADVISORY_LOCKS } from './advisory-lock.js';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;
export type Db = PostgresJsDatabase<typeof schema>;

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Opens a pooled PostgreSQL client; raw `sql` for hot paths, `db` (Drizzle) for the rest. */
export function createPostgres(url: string, max = 10): { sql: Sql; db: Db; close(): Promise<void> } {
  // int8 stays a string (postgres.js default): player ids exceed 2^53.
  // connect_timeout 5 s (default 30): during an outage a request should fail fast and retry,
  // not hold its caller for half a minute.
  const sql = postgres(url, {
    max,
    connect_timeout: 5,
    onnotice: () => {},
    // Custom plans only: postgres.js prepares its statements, and PostgreSQL 15 locks every
    // partition of a partitioned table a generic plan covers before pruning it at run time. With
    // a partition per season and day that is thousands of locks per statement, and past
    // max_locks_per_transaction x max_connections "out of shared memory" (met at 16,000 partitions).
    // A custom plan prunes while planning and locks only the partitions it reads.
    connection: { application_name: 'ladder', plan_cache_mode: 'force_custom_plan' },
  });
  const db = drizzle(sql, { schema });
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

/** Applies drizzle/ migrations; safe to run concurrently and repeatedly. */
export async function migrateDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Serialise concurrent migrators (parallel test workers, several API instances).
    await sql`select pg_advisory_lock(${ADVISORY_LOCKS.migrations})`;
    await migrate(drizzle(sql), { migrationsFolder });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * A timestamptz column as epoch milliseconds, for raw queries: Drizzle replaces postgres.js's
 * date parsers on the shared client, so a raw `timestamptz` arrives as text, not a Date.
 */
export function epochMs(sql: Sql | Tx, column: string) {
  return sql.unsafe(`floor(extract(epoch from ${column}) * 1000)::int8`);
}
