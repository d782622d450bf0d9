import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { apiKeys } from './schema.js';

// Every query selects these columns only, so the hash never leaves this file.
const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  revokedAt: apiKeys.revokedAt,
  lastUsedAt: apiKeys.lastUsedAt,
};

/** Not revoked, or revoked at a time still to come (a rotation's grace period). */
const active = or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`));

/** An API key as listed: never the key, never its hash. */
export interface ApiKeyInfo {
  id: number;
  name: string;
  scopes: string[];
  createdAt: Date;
  /** When it stops (stopped) working; null: never. */
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** API keys in PostgreSQL, addressed by the SHA-256 of the key. */
export function createApiKeysRepo(db: Db) {
  return {
    async insert(key: { name: string; keyHash: string; scopes: readonly string[] }): Promise<ApiKeyInfo> {
      const [row] = await db
        .insert(apiKeys)
        .values({ name: key.name, keyHash: key.keyHash, scopes: [...key.scopes] })
        .returning(publicColumns);
      return row!;
    },

    /**
     * The key with this hash while it works, marking it used: last_used_at is written at most once
     * a minute per key (the authenticator asks once per API_KEY_CACHE_MS per process).
     */
    async findActiveByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
      const [row] = await db
        .select(publicColumns)
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, keyHash), active))
        .limit(1);
      if (row && !(row.lastUsedAt && row.lastUsedAt.getTime() > Date.now() - 60_000))
        await db
          .update(apiKeys)
          .set({ lastUsedAt: sql`now()` })
          .where(
            and(
              eq(apiKeys.id, row.id),
              or(isNull(apiKeys.lastUsedAt), sql`${apiKeys.lastUsedAt} < now() - interval '1 minute'`),
            ),
          );
      return row;
    },

    async list(): Promise<ApiKeyInfo[]> {
      return db.select(publicColumns).from(apiKeys).orderBy(asc(apiKeys.id));
    },

    /**
     * True when a working key was revoked (at once, or after `graceSeconds`); false when it does
     * not exist or already stopped. A key in a grace period may be revoked again, sooner.
     */
    async revoke(id: number, graceSeconds = 0): Promise<boolean> {
      // now() of the server, so revoked_at and created_at come from one clock.
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: sql`now() + make_interval(secs => ${graceSeconds})` })
        .where(and(eq(apiKeys.id, id), active))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },

    async get(id: number): Promise<ApiKeyInfo | undefined> {
      const [row] = await db.select(publicColumns).from(apiKeys).where(eq(apiKeys.id, id));
      return row;
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
