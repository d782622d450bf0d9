/**
 * Display names in RAM, so a cached top with names costs no PostgreSQL query per request.
 * Names change only through submissions (players-repo upsert), which announce the ids they
 * changed; `invalidate` drops those and raises the epoch when any was held, so answers that
 * showed an old name stop being served (graphql/response-cache.ts). Least recently used names
 * go first past `maxEntries`.
 */
export function createNameCache(opts: {
  load(ids: readonly string[]): Promise<Map<string, string | null>>;
  maxEntries?: number;
}) {
  const maxEntries = opts.maxEntries ?? 200_000;
  const names = new Map<string, string | null>();
  const loading = new Map<string, number>();
  let epoch = 0;
  let loads = 0;

  return {
    /** Names of `ids` (null: none stored); one PostgreSQL query for the ones not held. */
    async names(ids: readonly string[]): Promise<Map<string, string | null>> {
      const out = new Map<string, string | null>();
      const missing: string[] = [];
      for (const id of ids) {
        const name = names.get(id);
        if (name === undefined) missing.push(id);
        else out.set(id, name);
      }
      if (missing.length === 0) return out;
      const loadedAt = epoch;
      for (const id of missing) loading.set(id, (loading.get(id) ?? 0) + 1);
      let loaded: Map<string, string | null>;
      try {
        loads++;
        loaded = await opts.load(missing);
      } finally {
        for (const id of missing) {
          const n = loading.get(id)! - 1;
          if (n === 0) loading.delete(id);
          else loading.set(id, n);
        }
      }
      for (const id of missing) {
        const name = loaded.get(id) ?? null;
        out.set(id, name);
        // A change announced while we read may not be in what we read: do not keep it.
        if (epoch === loadedAt) names.set(id, name);
      }
      for (const id of names.keys()) {
        if (names.size <= maxEntries) break;
        names.delete(id);
      }
      return out;
    },

    /** Names of these players changed. */
    invalidate(ids: readonly string[]): void {
      let seen = false;
      for (const id of ids) seen = names.delete(id) || loading.has(id) || seen;
      // Only a name this process may have shown (or is reading now) makes cached answers stale.
      if (seen) epoch++;
    },

    /** Everything may be stale (the announcements' connection dropped). */
    clear(): void {
      names.clear();
      epoch++;
    },

    epoch: () => epoch,
    /** Names held, and PostgreSQL reads made so far. */
    stats: () => ({ size: names.size, loads }),
  };
}
