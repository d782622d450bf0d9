import { boardId, LIMITS, type Board } from '../domain/board.js';
import { pageRanks } from '../domain/page-ranks.js';
import { compareEntries } from '../domain/rank-shift.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from '../domain/score-codec.js';
import type { Season } from '../domain/season.js';
import type { BoardEvent, BoardVersion, BoardVersions } from './board-events.js';

/** A board's first entries and its size, read at one instant, at the board's `version`. */
export interface TopSnapshot {
  version: number;
  size: number;
  entries: readonly RankedStanding[];
}

/** Where the cache reads a board's best entries from (Redis readTop-2, one instant). */
export interface TopSource {
  snapshot(board: Board, limit: number): Promise<TopSnapshot>;
}

/**
 * A TopSource that answers a finalized season's boards from its final standings (PostgreSQL):
 * a watched board (topChanged) outlives its season's close, and its slot keeps the season as it
 * was first read, so the season is looked up again (cached) at each read.
 */
export function finalOrLiveTops(deps: {
  seasonById(id: number): Promise<Season | undefined>;
  live: TopSource;
  final: {
    top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
    size(board: Board): Promise<number>;
  };
}): TopSource {
  return {
    async snapshot(b, limit) {
      const season = (await deps.seasonById(b.season.id)) ?? b.season;
      if (!season.finalizedAt) return deps.live.snapshot(b, limit);
      const board = { ...b, season };
      const [entries, size] = await Promise.all([deps.final.top(board, 0, limit), deps.final.size(board)]);
      return { version: 0, size, entries };
    },
  };
}

/** The composite scores of a snapshot's entries, made once per entries array (topAfter compares by them). */
const scoresOf = new WeakMap<readonly RankedStanding[], number[]>();

/**
 * The snapshot after a raise event, from the one before it (at the event's previous version),
 * without reading Redis; undefined when it cannot be known so (not a raise, not the next version,
 * a member removed or lowered). A raise only moves members up, so the first `capacity` entries
 * after it are those before it and the raised members that now sort among them, in Redis's order
 * (compareEntries); the ranks follow from that order (pageRanks), and the size grows by the
 * members new to the board. The one Lua call that raised the scores also raised the version and
 * published the event, so a snapshot read at a version holds none of the next event's changes:
 * not so for a sharded season (its shards are written before the version rises), which is read.
 */
export function topAfter(snap: TopSnapshot, e: BoardEvent, season: Season, capacity: number) {
  if (e.kind !== 'raise' || (e.previous ?? e.version - 1) !== snap.version || season.shards?.tags.length) return;
  const codec = codecOf(season);
  let scores = scoresOf.get(snap.entries);
  if (!scores) scoresOf.set(snap.entries, (scores = snap.entries.map((x) => codec.encode(x.points, x.achievedAt))));
  const full = snap.entries.length >= capacity; // else the entries are the whole board
  const last = snap.entries.length - 1;
  let size = snap.size;
  let moved = false;
  for (const c of e.changes) {
    const [old, score] = [c.old === null ? null : Number(c.old), c.score === null ? null : Number(c.score)];
    if (score === null || (old !== null && score < old)) return;
    if (old === null) size++;
    moved ||=
      !full ||
      compareEntries(score, c.playerId, scores[last]!, snap.entries[last]!.playerId) < 0 ||
      snap.entries.some((x) => x.playerId === c.playerId);
  }
  if (!moved) return { version: e.version, size, entries: snap.entries };
  // Entries that stay are kept as they are, or copied with their new rank.
  const list = snap.entries.map((entry, k) => ({ entry, score: scores[k]! }));
  for (const c of e.changes) {
    const score = Number(c.score);
    const at = list.findIndex((x) => x.entry.playerId === c.playerId);
    if (at >= 0) list.splice(at, 1);
    const i = list.findIndex((x) => compareEntries(score, c.playerId, x.score, x.entry.playerId) < 0);
    // Below a full list it is not in the top: unless it was in it (it only rose, so it is still).
    if (i < 0 && at < 0 && list.length >= capacity) continue;
    list.splice(i < 0 ? list.length : i, 0, {
      entry: { playerId: c.playerId, ...codec.decode(score), rank: 0 },
      score,
    });
    if (list.length > capacity) list.pop();
  }
  const points = list.map(({ entry }) => entry.points);
  const ranks = pageRanks(season.rankStyle, 0, 1, points);
  // Literals, not spreads: on Node 20 a spread copy costs several times as much, 1,000 times an event.
  const entries = list.map(({ entry: x }, k): RankedStanding => {
    const rank = ranks[k]!;
    return x.rank === rank ? x : { playerId: x.playerId, points: x.points, achievedAt: x.achievedAt, rank };
  });
  const sorted = list.map(({ score }) => score);
  scoresOf.set(entries, sorted);
  return { version: e.version, size, entries };
}

interface Slot {
  board: Board;
  snap?: TopSnapshot;
  /** The epoch the snapshot was read under (see BoardVersion). */
  epoch?: BoardVersion;
  fetchedAt: number;
  /** When the last Redis read started (successful or not): watched re-reads keep `minGapMs` apart. */
  readAt: number;
  lastUsed: number;
  refreshing?: Promise<void>;
  /** A watched re-read waiting for `minGapMs` to pass. */
  followTimer?: ReturnType<typeof setTimeout>;
  listeners: Set<(snap: TopSnapshot) => void>;
}

/**
 * The first LIMITS.topLimit entries and the size of every board this instance serves, in RAM,
 * one snapshot per board. Consistency: once this process has heard of a change that could touch
 * the top or the size (board-events.ts `topSeen`), no read returns a snapshot older than it:
 * readers wait for the refresh, and all readers of a board share one Redis read in flight.
 * Without news a snapshot is served for `maxAgeMs`, then refreshed behind the readers (a safety
 * net for a lost event: pub/sub is at most once). A raise event that follows the snapshot's version
 * moves it in memory (topAfter), with no read: pushed to topChanged and served at once. Any other
 * news makes a board that is only watched (topChanged) read again as soon as it is heard
 * (`heard`), at most once per `minGapMs` (a board whose top changes all the time costs at most
 * 1000 / minGapMs reads a second, and a push waits at most that long), and without news only
 * every `watchedMaxAgeMs`: a lost event is seen as a skipped version
 * by the next one (board-events.ts) and a dropped connection ends every epoch, so an idle board
 * costs Redis nothing.
 */
export function createTopCache(opts: {
  source: TopSource;
  versions: BoardVersions;
  maxAgeMs?: number;
  watchedMaxAgeMs?: number;
  minGapMs?: number;
  idleEvictMs?: number;
  /** Most boards held; past it the least recently used unwatched board is dropped. */
  maxBoards?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Called once per Redis read (metrics). */
  onFetch?: () => void;
}) {
  const capacity = LIMITS.topLimit;
  const maxAgeMs = opts.maxAgeMs ?? 1_000;
  const watchedMaxAgeMs = opts.watchedMaxAgeMs ?? 60_000;
  const idleEvictMs = opts.idleEvictMs ?? 60_000;
  const minGapMs = opts.minGapMs ?? 50;
  const maxBoards = opts.maxBoards ?? 200;
  const now = opts.now ?? Date.now;
  const slots = new Map<string, Slot>();

  function slotOf(board: Board): Slot {
    const key = boardId(board.season.id, board.window, board.period);
    let slot = slots.get(key);
    if (!slot) {
      if (slots.size >= maxBoards) evictLeastRecentlyUsed();
      slots.set(key, (slot = { board, fetchedAt: 0, readAt: -Infinity, lastUsed: now(), listeners: new Set() }));
    }
    return slot;
  }

  /** Each slot holds up to LIMITS.topLimit entries: their number is what bounds this cache's memory. */
  function evictLeastRecentlyUsed(): void {
    let oldest: [string, Slot] | undefined;
    for (const entry of slots) {
      // Watched boards stay (topChanged needs them); their number is bounded by the live boards.
      if (entry[1].listeners.size === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    }
    if (oldest) slots.delete(oldest[0]);
  }

  /** The snapshot reflects every change this process heard of that could touch it. */
  const isCurrent = (s: Slot) =>
    s.snap !== undefined && s.epoch === opts.versions.of(s.board) && s.snap.version >= s.epoch.topSeen;
  const isOld = (s: Slot, age = maxAgeMs) => now() - s.fetchedAt >= age;

  function refresh(slot: Slot): Promise<void> {
    slot.refreshing ??= (async () => {
      const fetchedAt = (slot.readAt = now());
      try {
        opts.onFetch?.();
        const snap = await opts.source.snapshot(slot.board, capacity);
        const changed = !slot.snap || !sameEntries(slot.snap.entries, snap.entries);
        slot.epoch = opts.versions.observe(slot.board, snap.version);
        slot.snap = snap;
        slot.fetchedAt = fetchedAt;
        if (changed) for (const l of slot.listeners) l(snap);
      } finally {
        slot.refreshing = undefined;
      }
      // News heard while this read was in flight needs one more.
      follow(slot);
    })();
    return slot.refreshing;
  }

  /** A watched board that heard news is read again now, or once `minGapMs` passed since the last read. */
  function follow(slot: Slot): void {
    if (slot.listeners.size === 0 || slot.refreshing || slot.followTimer || isCurrent(slot)) return;
    const wait = slot.readAt + minGapMs - now();
    if (wait > 0) {
      slot.followTimer = setTimeout(() => {
        slot.followTimer = undefined;
        follow(slot);
      }, wait);
      slot.followTimer.unref?.();
      return;
    }
    refresh(slot).catch((err) => opts.onError?.(err));
  }

  /**
   * Moves the snapshot to the event's version in memory when it can (topAfter): a raise into the
   * top is pushed without waiting for a Redis read. Not while a read is out: what it returns may
   * already hold the change.
   */
  function advance(slot: Slot, e: BoardEvent): void {
    const before = slot.snap;
    if (!before || slot.refreshing || slot.epoch !== opts.versions.of(slot.board)) return;
    const snap = topAfter(before, e, slot.board.season, capacity);
    if (!snap) return;
    slot.snap = snap;
    if (!sameEntries(before.entries, snap.entries)) for (const l of slot.listeners) l(snap);
  }

  /** A current snapshot: the one held, or the next refresh that started after what we heard. */
  async function current(slot: Slot): Promise<TopSnapshot> {
    // A refresh in flight may have started before the news: then one more, which cannot have.
    for (let i = 0; i < 2 && !isCurrent(slot); i++) await refresh(slot);
    if (isOld(slot)) refresh(slot).catch((err) => opts.onError?.(err));
    return slot.snap!;
  }

  return {
    /** The board's top snapshot (first LIMITS.topLimit entries and size), current for this process. */
    snapshot(board: Board): Promise<TopSnapshot> {
      const slot = slotOf(board);
      slot.lastUsed = now();
      return current(slot);
    },

    /**
     * Calls `listener` with the board's snapshot now and whenever its entries change (topChanged);
     * returns the unsubscribe.
     */
    watch(board: Board, listener: (snap: TopSnapshot) => void): () => void {
      const slot = slotOf(board);
      slot.listeners.add(listener);
      current(slot)
        .then((snap) => {
          if (slot.listeners.has(listener)) listener(snap);
        })
        .catch((err) => opts.onError?.(err));
      return () => {
        slot.listeners.delete(listener);
        slot.lastUsed = now();
      };
    },

    /**
     * An update event, after board-events.ts noted it: its board's snapshot moves to it in memory
     * when it can (advance); watched boards of the season still behind are read again.
     */
    heard(e: BoardEvent): void {
      for (const slot of slots.values()) {
        if (slot.board.season.id !== e.seasonId) continue;
        if (slot.board.window === e.window && slot.board.period === e.period) advance(slot, e);
        follow(slot);
      }
    },

    /** Refreshes watched boards that fell behind or aged; drops boards nobody used for a while. */
    async tick(): Promise<void> {
      const due: Promise<void>[] = [];
      for (const [key, slot] of slots) {
        if (slot.listeners.size > 0) {
          if (!isCurrent(slot) || isOld(slot, watchedMaxAgeMs))
            due.push(refresh(slot).catch((err) => opts.onError?.(err)));
        } else if (now() - slot.lastUsed > idleEvictMs) {
          slots.delete(key);
        }
      }
      await Promise.all(due);
    },

    /** Age in seconds of each cached board, for /metrics. */
    ages(): Array<{ board: Board; ageSeconds: number }> {
      return [...slots.values()]
        .filter((s) => s.fetchedAt > 0)
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
    if (
      x.playerId !== y.playerId ||
      x.points !== y.points ||
      x.rank !== y.rank ||
      x.achievedAt.getTime() !== y.achievedAt.getTime()
    )
      return false;
  }
  return true;
}
