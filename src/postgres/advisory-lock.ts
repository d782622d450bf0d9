import type { Sql } from './client.js';

/** Advisory lock of the scheduled reconcile (727274 serialises migrations, src/postgres/client.ts). */
export const RECONCILE_LOCK = 727_275;

/**
 * Runs `fn` while this process holds the session advisory lock `key`, on a connection reserved
 * for it: a session lock belongs to one connection, and a pooled query could land elsewhere.
 * Returns { acquired: false } at once when another session holds it. If this process dies, its
 * connection closes and PostgreSQL releases the lock: no stale lock to clean up.
 */
export async function withTryAdvisoryLock<T>(
  sql: Sql, key: number, fn: () => Promise<T>,
): Promise<{ acquired: true; value: T } | { acquired: false }> {
  const conn = await sql.reserve();
  try {
    const [row] = await conn<Array<{ locked: boolean }>>`select pg_try_advisory_lock(${key}) as locked`;
    if (!row!.locked) return { acquired: false };
    try {
      return { acquired: true, value: await fn() };
    } finally {
      await conn`select pg_advisory_unlock(${key})`;
    }
  } finally {
    conn.release();
  }
}
