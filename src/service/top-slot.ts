import type { Board } from '../domain/board.js';
import type { BoardVersion } from './board-events.js';
import type { TopSnapshot } from './top-snapshot.js';

/** One board in the top cache: its snapshot, when it was read, who watches it, what is in flight. */
export interface Slot {
  board: Board;
  snap?: TopSnapshot;
  /** The epoch the snapshot was read under (see BoardVersion). */
  epoch?: BoardVersion;
  fetchedAt: number;
  /** When the last Redis read started (successful or not): watched re-reads keep `minGapMs` apart. */
  readAt: number;
  lastUsed: number;
  refreshing?: Promise<void>;
  /** Cancels a watched re-read waiting for `minGapMs` to pass. */
  following?: () => void;
  listeners: Set<(snap: TopSnapshot) => void>;
}

/** A board not read yet. */
export const newSlot = (board: Board, now: number): Slot => ({
  board,
  fetchedAt: 0,
  readAt: -Infinity,
  lastUsed: now,
  listeners: new Set(),
});

/** The snapshot reflects every change this process heard of that could touch it (`epoch`: the board's now). */
export const isCurrent = (s: Pick<Slot, 'snap' | 'epoch'>, epoch: BoardVersion): boolean =>
  s.snap !== undefined && s.epoch === epoch && s.snap.version >= epoch.topSeen;

/** The snapshot was read `ageMs` or more ago. */
export const isOld = (s: Pick<Slot, 'fetchedAt'>, now: number, ageMs: number): boolean => now - s.fetchedAt >= ageMs;

/**
 * Whether a board that heard news is read again: not when nobody watches it, a read is out or
 * waiting, or it is current; else now ('read'), or in the returned ms once `minGapMs` passed since
 * the last read started. `current` is asked last: it looks the board's epoch up (and makes one).
 */
export function followStep(
  s: Pick<Slot, 'listeners' | 'refreshing' | 'following' | 'readAt'>,
  current: () => boolean,
  now: number,
  minGapMs: number,
): 'none' | 'read' | number {
  if (s.listeners.size === 0 || s.refreshing || s.following || current()) return 'none';
  const wait = s.readAt + minGapMs - now;
  return wait > 0 ? wait : 'read';
}

/**
 * What a tick does with a board: a watched one is read again when behind or older than
 * `watchedMaxAgeMs`; an unwatched one is dropped once unused for longer than `idleEvictMs`.
 */
export function tickStep(
  s: Pick<Slot, 'listeners' | 'fetchedAt' | 'lastUsed'>,
  current: () => boolean,
  now: number,
  limits: { watchedMaxAgeMs: number; idleEvictMs: number },
): 'refresh' | 'evict' | 'keep' {
  if (s.listeners.size > 0) return !current() || isOld(s, now, limits.watchedMaxAgeMs) ? 'refresh' : 'keep';
  return now - s.lastUsed > limits.idleEvictMs ? 'evict' : 'keep';
}

/**
 * The board to drop when the cache is full: the least recently used one nobody watches. Watched
 * boards stay (topChanged needs them); their number is bounded by the live boards.
 */
export function evictionCandidate(slots: Iterable<[string, Pick<Slot, 'listeners' | 'lastUsed'>]>): string | undefined {
  let oldest: [string, Pick<Slot, 'lastUsed'>] | undefined;
  for (const entry of slots) {
    if (entry[1].listeners.size === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
  }
  return oldest?.[0];
}

/**
 * Can the snapshot move to an event in memory (topAfter)? Not while a read is out (what it returns
 * may already hold the change), nor from a snapshot of another epoch.
 */
export const canAdvance = (s: Pick<Slot, 'snap' | 'refreshing' | 'epoch'>, epoch: BoardVersion): boolean =>
  s.snap !== undefined && !s.refreshing && s.epoch === epoch;
