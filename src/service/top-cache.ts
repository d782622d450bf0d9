import { idOfBoard, LIMITS, type Board } from '../domain/board.js';
import type { BoardEvent, BoardVersions } from './board-events.js';
import { systemClock, type Clock } from './clock.js';
import { sameEntries, topAfter, type TopSnapshot, type TopSource } from './top-snapshot.js';
import {
  canAdvance,
  evictionCandidate,
  followStep,
  isCurrent,
  isOld,
  newSlot,
  tickStep,
  type Slot,
} from './top-slot.js';

export { finalOrLiveTops } from './final-or-live-tops.js';
export type { TopSnapshot, TopSource } from './top-snapshot.js';

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
 * costs Redis nothing. The decisions about a board are in top-slot.ts; this owner holds the
 * boards and does the reads.
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
  clock?: Clock;
  onError?: (err: unknown) => void;
  /** Called once per Redis read (metrics). */
  onFetch?: () => void;
}) {
  const capacity = LIMITS.topLimit;
  const maxAgeMs = opts.maxAgeMs ?? 1_000;
  const limits = { watchedMaxAgeMs: opts.watchedMaxAgeMs ?? 60_000, idleEvictMs: opts.idleEvictMs ?? 60_000 };
  const minGapMs = opts.minGapMs ?? 50;
  const maxBoards = opts.maxBoards ?? 200;
  const clock = opts.clock ?? systemClock;
  const slots = new Map<string, Slot>();
  const onError = (err: unknown) => opts.onError?.(err);

  function slotOf(board: Board): Slot {
    const key = idOfBoard(board);
    let slot = slots.get(key);
    if (!slot) {
      // Each slot holds up to LIMITS.topLimit entries: their number is what bounds this cache's memory.
      if (slots.size >= maxBoards) {
        const evicted = evictionCandidate(slots);
        if (evicted !== undefined) slots.delete(evicted);
      }
      slots.set(key, (slot = newSlot(board, clock.now())));
    }
    return slot;
  }

  const current = (s: Slot) => isCurrent(s, opts.versions.of(s.board));
  const pushTo = (slot: Slot, snap: TopSnapshot) => {
    for (const l of slot.listeners) l(snap);
  };

  function refresh(slot: Slot): Promise<void> {
    slot.refreshing ??= (async () => {
      const fetchedAt = (slot.readAt = clock.now());
      try {
        opts.onFetch?.();
        const snap = await opts.source.snapshot(slot.board, capacity);
        const changed = !slot.snap || !sameEntries(slot.snap.entries, snap.entries);
        slot.epoch = opts.versions.observe(slot.board, snap.version);
        slot.snap = snap;
        slot.fetchedAt = fetchedAt;
        if (changed) pushTo(slot, snap);
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
    const step = followStep(slot, () => current(slot), clock.now(), minGapMs);
    if (step === 'none') return;
    if (step === 'read') refresh(slot).catch(onError);
    else
      slot.following = clock.after(step, () => {
        slot.following = undefined;
        follow(slot);
      });
  }

  /** Moves the snapshot to the event's version in memory when it can: a raise into the top is pushed at once. */
  function advance(slot: Slot, e: BoardEvent): void {
    const before = slot.snap;
    if (!before || !canAdvance(slot, opts.versions.of(slot.board))) return;
    const snap = topAfter(before, e, slot.board.season, capacity);
    if (!snap) return;
    slot.snap = snap;
    if (!sameEntries(before.entries, snap.entries)) pushTo(slot, snap);
  }

  /** A current snapshot: the one held, or the next refresh that started after what we heard. */
  async function currentSnapshot(slot: Slot): Promise<TopSnapshot> {
    // A refresh in flight may have started before the news: then one more, which cannot have.
    for (let i = 0; i < 2 && !current(slot); i++) await refresh(slot);
    if (isOld(slot, clock.now(), maxAgeMs)) refresh(slot).catch(onError);
    return slot.snap!;
  }

  return {
    /** The board's top snapshot (first LIMITS.topLimit entries and size), current for this process. */
    snapshot(board: Board): Promise<TopSnapshot> {
      const slot = slotOf(board);
      slot.lastUsed = clock.now();
      return currentSnapshot(slot);
    },

    /**
     * Calls `listener` with the board's snapshot now and whenever its entries change (topChanged);
     * returns the unsubscribe.
     */
    watch(board: Board, listener: (snap: TopSnapshot) => void): () => void {
      const slot = slotOf(board);
      slot.listeners.add(listener);
      currentSnapshot(slot)
        .then((snap) => {
          if (slot.listeners.has(listener)) listener(snap);
        })
        .catch(onError);
      return () => {
        slot.listeners.delete(listener);
        slot.lastUsed = clock.now();
      };
    },

    /**
     * An update event, after board-events.ts noted it: its board's snapshot moves to it in memory
     * when it can (advance); watched boards of the season still behind are read again.
     */
    heard(e: BoardEvent): void {
      for (const slot of slots.values()) {
        if (slot.board.season.id !== e.seasonId) continue;
        if (slot.board.window === e.window && slot.board.period === e.period && slot.board.scope === e.scope)
          advance(slot, e);
        follow(slot);
      }
    },

    /** Refreshes watched boards that fell behind or aged; drops boards nobody used for a while. */
    async tick(): Promise<void> {
      const due: Promise<void>[] = [];
      for (const [key, slot] of slots) {
        const step = tickStep(slot, () => current(slot), clock.now(), limits);
        if (step === 'refresh') due.push(refresh(slot).catch(onError));
        else if (step === 'evict') slots.delete(key);
      }
      await Promise.all(due);
    },

    /** Age in seconds of each cached board, for /metrics. */
    ages(): Array<{ board: Board; ageSeconds: number }> {
      return [...slots.values()]
        .filter((s) => s.fetchedAt > 0)
        .map((s) => ({ board: s.board, ageSeconds: (clock.now() - s.fetchedAt) / 1000 }));
    },

    watchers(): number {
      let n = 0;
      for (const s of slots.values()) n += s.listeners.size;
      return n;
    },
  };
}
