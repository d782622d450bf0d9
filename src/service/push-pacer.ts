import { systemClock, type Clock } from './clock.js';

/** The most pushes of ranks moved by others in one slice, and how often a slice goes out. */
export const PUSH_SLICE = 200;
const SLICE_EVERY_MS = 10;

/** A period of pushes: when it started and how many of its slices went out. */
export interface Period {
  start: number;
  done: number;
}

/** What the pacer does next, and when: push the next slice of this period, or start the next period. */
export type PacerStep = { run: 'slice' | 'period'; at: number } | undefined;

/** The slices a period of `everyMs` is cut into (at least one). */
export const slicesPerPeriod = (everyMs: number): number => Math.max(1, Math.floor(everyMs / SLICE_EVERY_MS));

/** How many of the `waiting` pushes the next slice sends: an even share of the slices left, at most PUSH_SLICE. */
export const sliceQuota = (waiting: number, slices: number, done: number): number =>
  Math.min(PUSH_SLICE, Math.ceil(waiting / Math.max(1, slices - done)));

/**
 * After a slice went out: the next slice at its place in the period while pushes of this period
 * wait, else the next period once its time comes if any push waits for it, else nothing (idle).
 */
export function nextStep(
  period: Period,
  s: { everyMs: number; slices: number; pushing: number; later: number; blocksPending: boolean },
): PacerStep {
  if (s.pushing > 0) return { run: 'slice', at: period.start + (period.done * s.everyMs) / s.slices };
  if (s.later > 0 || s.blocksPending) return { run: 'period', at: period.start + s.everyMs };
  return undefined;
}

/**
 * Paces rankChanged pushes (rank-watcher.ts): a player's own new score goes out at the end of the
 * event loop turn; a rank moved by others at most once per period (periods start `everyMs` apart),
 * in slices spread evenly over the period, not at once. On a busy board nearly every watched
 * player moves each second: thousands of pushes in one go held a core for a large part of every
 * second, and every other process on the machine (and the own-score pushes) waited behind them
 * (bench:live). A player is pushed at most once per period: one shifted again after its push waits
 * in `later` for the next period, where it comes about where it came in this one (the order of
 * `later`). `push` decides whether anything changed since the last push; the pacer only decides when.
 */
export function createPushPacer<K, V>(opts: {
  everyMs: number;
  push(key: K, value: V): void;
  /** The keys shifted as whole blocks since the last call (collected when a period begins). */
  takeShifted(): Iterable<readonly [K, V]>;
  clock?: Clock;
}) {
  const clock = opts.clock ?? systemClock;
  const { everyMs } = opts;
  const soon = new Map<K, V>();
  /** Ranks moved by others: `pushing` goes out in this period's slices, `later` in the next period's. */
  let pushing = new Map<K, V>();
  let later = new Map<K, V>();
  /** Whole blocks shifted since the last period began (their keys are collected when it begins). */
  let blocksPending = false;
  let soonScheduled = false;
  let cancelTimer: (() => void) | undefined;
  const slices = slicesPerPeriod(everyMs);
  const period: Period = { start: -Infinity, done: 0 };

  const at = (ms: number, fn: () => void) => {
    cancelTimer = clock.after(Math.max(0, ms - clock.now()), fn);
  };
  const waitLater = (k: K, v: V) => {
    if (!soon.has(k) && !pushing.has(k)) later.set(k, v);
  };

  function pushSoon(): void {
    soonScheduled = false;
    for (const [k, v] of soon) {
      pushing.delete(k);
      later.delete(k);
      opts.push(k, v);
    }
    soon.clear();
  }
  function collectShifted(): void {
    blocksPending = false;
    for (const [k, v] of opts.takeShifted()) waitLater(k, v);
  }
  function startPeriod(): void {
    collectShifted();
    [pushing, later] = [later, pushing]; // `pushing` is empty: the last period pushed all of it
    period.start = clock.now();
    period.done = 0;
    pushSlice();
  }
  function pushSlice(): void {
    cancelTimer = undefined;
    const quota = sliceQuota(pushing.size, slices, period.done);
    period.done++;
    let n = 0;
    for (const [k, v] of pushing) {
      if (n++ === quota) break;
      pushing.delete(k);
      opts.push(k, v);
    }
    const step = nextStep(period, { everyMs, slices, pushing: pushing.size, later: later.size, blocksPending });
    if (step) at(step.at, step.run === 'slice' ? pushSlice : startPeriod);
  }

  return {
    /** One event's pushes: `own` changed their own score, `shifted` (and whole blocks) were moved by others. */
    schedule(value: V, own: Iterable<K>, shifted: Iterable<K>, blocksShifted: boolean): void {
      for (const k of own) soon.set(k, value);
      for (const k of shifted) waitLater(k, value);
      blocksPending ||= blocksShifted;
      if (soon.size > 0 && !soonScheduled) {
        soonScheduled = true;
        clock.soon(pushSoon);
      }
      if ((later.size > 0 || blocksPending) && !cancelTimer) at(period.start + everyMs, startPeriod);
    },

    /** Pushes everything waiting now (tests; a stopping process). */
    flush(): void {
      pushSoon();
      cancelTimer?.();
      cancelTimer = undefined;
      collectShifted();
      for (const waiting of [pushing, later]) {
        for (const [k, v] of waiting) opts.push(k, v);
        waiting.clear();
      }
    },
  };
}
