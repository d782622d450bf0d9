import type { Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';

/** Where the cache reads a board's best entries from (Redis). */
export interface TopSource {
  top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
}

interface Slot {
  board: Board;
  entries: RankedStanding[];
  fetchedAt: number;
  dirty: boolean;
  lastUsed: number;
  refreshing?: Promise<void>;
  listeners: Set<(entries: readonly RankedStanding[]) => void>;
}

const keyOf = (b: Board) => `${b.season.id}|${b.window}|${b.period}`;

/**
 * The top `capacity` entries of every board this instance serves, in RAM. A slot is refreshed
 * when an update lands inside it (markDirty) and at least every `maxAgeMs`, but never more often
 * than every `minIntervalMs`: Redis sees O(instances) top reads per board per second, however
 * many clients ask. Reads past `capacity` go to Redis directly.
 */
export function createTopCache(opts: {
  source: TopSource;
  capacity?: number;
  maxAgeMs?: number;
  minIntervalMs?: number;
  idleEvictMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}) {
  const capacity = opts.capacity ?? 1_000;
  const maxAgeMs = opts.maxAgeMs ?? 1_000;
  const minIntervalMs = opts.minIntervalMs ?? 100;
  const idleEvictMs = opts.idleEvictMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const slots = new Map<string, Slot>();

  function slotOf(board: Board): Slot {
    const key = keyOf(board);
    let slot = slots.get(key);
    if (!slot) {
      slot = { board, entries: [], fetchedAt: 0, dirty: true, lastUsed: now(), listeners: new Set() };
      slots.set(key, slot);
    }
    return slot;
  }

  const isCold = (s: Slot) => s.fetchedAt === 0 || now() - s.fetchedAt >= 2 * maxAgeMs;
  const isStale = (s: Slot) => (s.dirty || now() - s.fetchedAt >= maxAgeMs) && now() - s.fetchedAt >= minIntervalMs;

  function refresh(slot: Slot): Promise<void> {
    slot.refreshing ??= (async () => {
      slot.dirty = false;
      const fetchedAt = now();
      try {
        const entries = await opts.source.top(slot.board, 0, capacity);
        // The first fetch always notifies: a watcher waits for its initial snapshot, even an empty one.
        const changed = slot.fetchedAt === 0 || !sameEntries(slot.entries, entries);
        slot.entries = entries;
        slot.fetchedAt = fetchedAt;
        if (changed) for (const l of slot.listeners) l(entries);
      } catch (err) {
        slot.dirty = true;
        throw err;
      } finally {
        slot.refreshing = undefined;
      }
    })();
    return slot.refreshing;
  }

  return {
    /** Entries offset..offset+limit-1 of a board, best first. */
    async top(board: Board, offset: number, limit: number): Promise<RankedStanding[]> {
      if (offset + limit > capacity) return opts.source.top(board, offset, limit);
      const slot = slotOf(board);
      slot.lastUsed = now();
      // A slot nobody kept warm may be far behind: wait for it. A warm one is served at once
      // and refreshed behind the reader, so a read is never more than ~2 x maxAgeMs old.
      if (isCold(slot)) await refresh(slot);
      else if (isStale(slot)) refresh(slot).catch((err) => opts.onError?.(err));
      return slot.entries.slice(offset, offset + limit);
    },

    /** An update landed on a board: refresh it if the new score could enter the cached top. */
    noteUpdate(seasonId: number, window: Board['window'], period: string, rank: number): void {
      const slot = slots.get(`${seasonId}|${window}|${period}`);
      // rank 0: a member was removed (setStandings-3.lua); anywhere in the board can shift.
      if (slot && rank <= capacity) slot.dirty = true;
    },

    /** Calls `listener` with the board's top whenever it changes (topChanged); returns the unsubscribe. */
    watch(board: Board, listener: (entries: readonly RankedStanding[]) => void): () => void {
      const slot = slotOf(board);
      slot.listeners.add(listener);
      // The first message is a snapshot; an old one would be worse than waiting for a fresh one.
      if (!isCold(slot)) listener(slot.entries);
      else refresh(slot).then(() => { if (slot.fetchedAt > 0 && slot.listeners.has(listener)) listener(slot.entries); })
        .catch((err) => opts.onError?.(err));
      return () => { slot.listeners.delete(listener); slot.lastUsed = now(); };
    },

    /** Refreshes watched boards that are stale and drops boards nobody used for a while. */
    async tick(): Promise<void> {
      const due: Promise<void>[] = [];
      for (const [key, slot] of slots) {
        if (slot.listeners.size > 0) {
          if (isStale(slot)) due.push(refresh(slot).catch((err) => opts.onError?.(err)));
        } else if (now() - slot.lastUsed > idleEvictMs) {
          slots.delete(key);
        }
      }
      await Promise.all(due);
    },

    /** Age in seconds of each cached board, for /metrics. */
    ages(): Array<{ board: Board; ageSeconds: number }> {
      return [...slots.values()].filter((s) => s.fetchedAt > 0)
        .map((s) => ({ board: s.board, ageSeconds: (now() - s.fetchedAt) / 1000 }));
    },

    watchers(): number {
      let n = 0;
      for (const s of slots.values()) n += s.listeners.size;
      return n;
    },
  };
}

export type TopCache = ReturnType<typeof createTopCache>;

function sameEntries(a: readonly RankedStanding[], b: readonly RankedStanding[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.playerId !== y.playerId || x.points !== y.points || x.rank !== y.rank || x.achievedAt.getTime() !== y.achievedAt.getTime()) return false;
  }
  return true;
}
