/**
 * The time and the timers a stateful service runs on: the process's own by default, a manual one
 * in unit tests (test/support/manual-clock.ts), so timing is tested without sleeping.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms` without keeping the process alive; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** Calls `fn` at the end of this event loop turn (after the I/O callbacks already due). */
  soon(fn: () => void): void;
}

/**
 * Date.now, setTimeout and setImmediate, looked up at each call: vitest's fake timers replace the
 * globals after this module is loaded.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
  soon(fn) {
    setImmediate(fn);
  },
};
