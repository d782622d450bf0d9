import type { Sql } from './client.js';

/**
 * Every PostgreSQL advisory lock id ladder takes, in one place so that two never collide. (The
 * ingest benchmark's two-key lock (7272, 1) lives in another key space.)
 */
export const ADVISORY_LOCKS = {
  /** Serialises concurrent migrators (parallel test workers, several instances starting). */
  migrations: 727_274,
  /** The scheduled reconcile: one instance at a time. */
  reconcile: 727_275,
  /** The season scheduler: one instance acts per tick. */
  seasonScheduler: 727_276,
  /** A season's rank snapshot (two-key, with the season id): one taker at a time. */
  rankSnapshot: 727_277,
  /** A league season's placements (two-key, with the season id): one placer at a time. */
  leaguePlace: 727_278,
} as const;

/**
 * Runs `fn` while this process holds the session advisory lock `key`, on a connection reserved
 * for it: a session lock belongs to one connection, and a pooled query could land elsewhere.
 * Returns { acquired: false } at once when another session holds it. If this process dies, its
 * connection closes and PostgreSQL releases the lock: no stale lock to clean up.
 */
export async function withTryAdvisoryLock<T>(
  sql: Sql,
  key: number,
  fn: () => Promise<T>,
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
