import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { apiKeys } from './schema.js';

// Every query selects these columns only, so the hash never leaves this file.
const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  revokedAt: apiKeys.revokedAt,
};

/** An API key as listed: never the key, never its hash. */
export interface ApiKeyInfo {
  id: number;
  name: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
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

    async findActiveByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
      const [row] = await db
        .select(publicColumns)
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
        .limit(1);
      return row;
    },

    async list(): Promise<ApiKeyInfo[]> {
      return db.select(publicColumns).from(apiKeys).orderBy(asc(apiKeys.id));
    },

    /** True when an active key was revoked; false when it does not exist or was already revoked. */
    async revoke(id: number): Promise<boolean> {
      // now() of the server, so revoked_at and created_at come from one clock.
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
