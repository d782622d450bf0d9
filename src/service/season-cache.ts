import type { Season } from '../domain/season.js';

/**
 * Caches seasons by id for `ttlMs`. A season's score split never changes, so a stale entry can
 * only lag on status; misses are never cached, so a season is usable the moment it exists.
 */
export function createSeasonCache(load: (id: number) => Promise<Season | undefined>, ttlMs = 5_000) {
  const entries = new Map<number, { season: Season; expires: number }>();
  // One load per season at a time: a burst of subscriptions (thousands of sockets opened at once)
  // or an expiry under load asks PostgreSQL once, not once per caller.
  const loading = new Map<number, Promise<Season | undefined>>();
  return {
    async get(id: number): Promise<Season | undefined> {
      const hit = entries.get(id);
      if (hit && hit.expires > Date.now()) return hit.season;
      let pending = loading.get(id);
      if (!pending) {
        pending = load(id).finally(() => loading.delete(id));
        loading.set(id, pending);
      }
      const season = await pending;
      if (season) entries.set(id, { season, expires: Date.now() + ttlMs });
      else entries.delete(id);
      return season;
    },
    /** The cached season if fresh, without loading (no promise: the hot path of every read). */
    peek(id: number): Season | undefined {
      const hit = entries.get(id);
      return hit && hit.expires > Date.now() ? hit.season : undefined;
    },
    invalidate(id: number): void {
      entries.delete(id);
      loading.delete(id);
    },
  };
}

export type SeasonCache = ReturnType<typeof createSeasonCache>;
