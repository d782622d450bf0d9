import { inArray, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { players } from './schema.js';

/** Display names: personal data, kept in PostgreSQL only and joined at read time. */
export function createPlayersRepo(db: Db) {
  return {
    /** One query for a whole request's entries (DataLoader batches into this). */
    async names(ids: readonly string[]): Promise<Map<string, string | null>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .select({ id: players.id, displayName: players.displayName })
        .from(players)
        .where(
          inArray(
            players.id,
            ids.map((id) => BigInt(id)),
          ),
        );
      return new Map(rows.map((r) => [r.id.toString(), r.displayName]));
    },

    /** Stores names; returns the ids whose stored name changed (new or different). */
    async upsert(names: ReadonlyArray<{ id: string; displayName: string }>): Promise<string[]> {
      // Sorted: concurrent upserts lock rows in one order and cannot deadlock.
      const sorted = [...names].sort((a, b) => a.id.length - b.id.length || (a.id < b.id ? -1 : 1));
      const changed = await db
        .insert(players)
        // NFC, as validated (domain/submission.ts normalizeDisplayName): one stored spelling per look.
        .values(sorted.map((n) => ({ id: BigInt(n.id), displayName: n.displayName.normalize('NFC') })))
        .onConflictDoUpdate({
          target: players.id,
          set: { displayName: sql`excluded.display_name`, updatedAt: sql`now()` },
          setWhere: sql`${players.displayName} is distinct from excluded.display_name`,
        })
        .returning({ id: players.id });
      return changed.map((r) => r.id.toString());
    },
  };
}
