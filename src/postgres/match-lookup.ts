import { eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { matchResults } from './schema.js';

/** Reads what PostgreSQL already holds of a match (a primary-key prefix scan). */
export function createMatchLookup(db: Db) {
  return {
    async find(matchId: string): Promise<Array<{ seasonId: number; playerId: string; points: number; endedAt: Date }>> {
      const rows = await db.select({
        seasonId: matchResults.seasonId, playerId: matchResults.playerId, points: matchResults.points, endedAt: matchResults.endedAt,
      }).from(matchResults).where(eq(matchResults.matchId, matchId));
      return rows.map((r) => ({ ...r, playerId: r.playerId.toString() }));
    },
  };
}
