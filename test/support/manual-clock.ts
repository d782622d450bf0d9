import type { Clock } from '../../src/service/clock.js';

/**
 * A Clock whose time moves only when a test says so: `turn()` runs what `soon` queued, `advance(ms)`
 * runs every timer due by then in time order (and what they queue), with `now()` at each one's time.
 */
export function manualClock(start = 0) {
  let t = start;
  let seq = 0;
  const timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  let queued: Array<() => void> = [];

  const turn = () => {
    while (queued.length > 0) {
      const run = queued;
      queued = [];
      for (const fn of run) fn();
    }
  };

  const clock: Clock & { turn(): void; advance(ms: number): void; pending(): number } = {
    now: () => t,
    after(ms, fn) {
      const timer = { at: t + Math.max(0, ms), seq: seq++, fn };
      timers.push(timer);
      return () => {
        const i = timers.indexOf(timer);
        if (i >= 0) timers.splice(i, 1);
      };
    },
    soon(fn) {
      queued.push(fn);
    },
    turn,
    advance(ms) {
      const end = t + ms;
      turn();
      for (;;) {
        const due = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        t = due.at;
        due.fn();
        turn();
      }
      t = end;
    },
    /** Timers set and not yet run or cancelled. */
    pending: () => timers.length,
  };
  return clock;
}
