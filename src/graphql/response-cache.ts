import { createHash } from 'node:crypto';
import type { Board } from '../domain/board.js';
import { turnoverOf } from '../domain/season.js';
import { periodEnd } from '../domain/windows.js';
import type { BoardVersion, BoardVersions } from '../service/board-events.js';
import type { ReadTracker } from '../service/leaderboard-reads.js';

interface Dependency {
  board: Board;
  epoch: BoardVersion;
  depends: 'top' | 'all';
  version: number;
}

/** A serialised answer and what it was read from. */
export interface CachedResponse {
  body: Buffer;
  /** Strong validator of the body (HTTP ETag, quoted). */
  etag: string;
  deps: Dependency[];
  namesEpoch?: number;
  validUntil: number;
}

/** What one request read; becomes the entry's dependencies when the answer is cached. */
export interface RequestReads extends ReadTracker {
  readonly deps: Dependency[];
  cacheable: boolean;
  /** The display names' epoch when the request started, and whether the answer shows names. */
  readonly namesEpoch: number;
  usesNames: boolean;
}

/** Slots of the admission filter (one byte each); cleared once a quarter of them is set. */
const DOORKEEPER_SLOTS = 1 << 20;

/**
 * Serialised answers of reads that depend only on board state, keyed by the request (operation
 * and variables), valid while no board they read has changed since (board-events.ts versions)
 * and at most `maxAgeMs` (a safety net: pub/sub is at most once; a DAY or WEEK board read with
 * the default `at` is valid until its period ends). Least recently used entries go first once
 * the bodies exceed `maxBytes`.
 *
 * An answer that depends on a whole board (a player's entry, around, friends: any result
 * changes it) is stored from the second time its key is answered: most are asked for once
 * before the board moves, and storing each one kept it alive through the young generation's
 * collections, lengthening their pauses (docs/benchmarks.md). A player who polls is cached from the
 * second poll. The filter remembers hashes of keys seen in a byte array (no allocation per key).
 */
export function createResponseCache(opts: {
  versions: BoardVersions;
  /** Raised whenever a display name this process may have shown changed. */
  namesEpoch(): number;
  maxBytes: number;
  maxAgeMs: number;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, CachedResponse>();
  let bytes = 0;
  const stats = { hits: 0, misses: 0, evictions: 0, unadmitted: 0 };
  const doorkeeper = new Uint8Array(DOORKEEPER_SLOTS);
  let doorkept = 0;
  /** Was this key answered before (since the filter was last cleared)? Remembers it if not. */
  function seenBefore(key: string): boolean {
    let h = 0x811c9dc5; // FNV-1a
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    const slot = (h >>> 0) & (DOORKEEPER_SLOTS - 1);
    if (doorkeeper[slot] === 1) return true;
    doorkeeper[slot] = 1;
    if (++doorkept === DOORKEEPER_SLOTS / 4) {
      doorkeeper.fill(0);
      doorkept = 0;
    }
    return false;
  }

  const isValid = (e: CachedResponse) =>
    e.validUntil > now() &&
    (e.namesEpoch === undefined || e.namesEpoch === opts.namesEpoch()) &&
    e.deps.every((d) => {
      const current = opts.versions.of(d.board);
      return current === d.epoch && (d.depends === 'top' ? current.topSeen : current.seen) <= d.version;
    });

  function drop(key: string, e: CachedResponse): void {
    entries.delete(key);
    bytes -= e.body.length + key.length;
  }

  return {
    /** A fresh tracker for one request. */
    reads(): RequestReads {
      const deps: Dependency[] = [];
      return {
        deps,
        cacheable: true,
        namesEpoch: opts.namesEpoch(),
        usesNames: false,
        saw(board, depends, version) {
          deps.push({ board, epoch: opts.versions.observe(board, version), depends, version });
        },
        uncacheable() {
          this.cacheable = false;
        },
      };
    },

    /** The valid entry for `key`, if any (and marks it recently used). */
    get(key: string): CachedResponse | undefined {
      const e = entries.get(key);
      if (!e || !isValid(e)) {
        if (e) drop(key, e);
        stats.misses++;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, e);
      stats.hits++;
      return e;
    },

    /**
     * Stores an answer if what it read allows (and, for one that depends on a whole board, if its
     * key was answered before); returns the entry, stored or not yet admitted (its ETag is the
     * answer's), or undefined when the answer may not be cached.
     */
    set(key: string, body: Buffer, reads: RequestReads, startedAt: number): CachedResponse | undefined {
      if (!reads.cacheable || reads.deps.length === 0) return undefined;
      let validUntil = startedAt + opts.maxAgeMs;
      for (const d of reads.deps) {
        if (d.board.window !== 'SEASON')
          validUntil = Math.min(
            validUntil,
            periodEnd(d.board.window, d.board.period, d.board.season.endsAt, turnoverOf(d.board.season)).getTime(),
          );
      }
      const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
      const entry: CachedResponse = {
        body,
        etag,
        deps: reads.deps,
        namesEpoch: reads.usesNames ? reads.namesEpoch : undefined,
        validUntil,
      };
      if (reads.deps.some((d) => d.depends === 'all') && !seenBefore(key)) {
        stats.unadmitted++;
        return entry;
      }
      const old = entries.get(key);
      if (old) drop(key, old);
      entries.set(key, entry);
      bytes += body.length + key.length;
      for (const [k, e] of entries) {
        if (bytes <= opts.maxBytes) break;
        drop(k, e);
        stats.evictions++;
      }
      return entry;
    },

    /** Entries, bytes held, hits, misses, evictions and answers not stored (not asked for before) so far (metrics). */
    stats: () => ({ entries: entries.size, bytes, ...stats }),
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
