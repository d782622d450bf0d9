/**
 * A push stream's values by callback instead of next() (shared-subscriptions.ts): `onValue` gets
 * each value as it is pushed, queued ones first (latestOnly thins only what waits for a reader: a
 * listener gets every value). Resolves once the stream started; rejects when its start failed. A
 * stream consumed this way keeps no promise waiting between values.
 */
export const listen = Symbol('listen');

export interface Listenable<T> {
  /** `onError`: a value that could not be made (a mapped stream's); the stream gives no more. */
  [listen](onValue: (value: T) => void, onError?: (err: unknown) => void): Promise<void>;
}

/**
 * An async iterator fed by callbacks. `start` subscribes and returns its cleanup, which runs
 * exactly once when the consumer stops (return()), even while it waits for the next value:
 * an async generator would sit in its `await` and leak the subscription on disconnect.
 * `latestOnly` keeps just the newest pending value (snapshots such as a top-N or a rank), so a
 * slow reader never builds a backlog; otherwise at most `maxBuffered` values wait, oldest dropped.
 */
export function pushStream<T>(
  start: (push: (value: T) => void) => Promise<() => void> | (() => void),
  opts: { latestOnly?: boolean; maxBuffered?: number } = {},
): AsyncIterableIterator<T> & Listenable<T> {
  const maxBuffered = opts.latestOnly ? 1 : (opts.maxBuffered ?? 1_000);
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let done = false;
  let cleanup: (() => void) | undefined;
  let listener: ((value: T) => void) | undefined;

  const push = (value: T) => {
    if (done) return;
    if (listener) {
      listener(value);
      return;
    }
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w({ value, done: false });
      return;
    }
    queue.push(value);
    if (queue.length > maxBuffered) queue.shift();
  };
  const started = Promise.resolve(start(push)).then((c) => {
    if (done) c();
    else cleanup = c;
  });
  // A failed start reaches the consumer through next(); if it already left, nobody waits for it.
  started.catch(() => {});

  const finish = async (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      queue.length = 0;
      await started.catch(() => {});
      cleanup?.();
      waiting?.({ value: undefined, done: true });
      waiting = undefined;
    }
    return { value: undefined, done: true };
  };

  return {
    async next() {
      await started;
      if (queue.length > 0) return { value: queue.shift()!, done: false };
      if (done) return { value: undefined, done: true };
      return new Promise<IteratorResult<T>>((resolve) => {
        waiting = resolve;
      });
    },
    return: finish,
    async [listen](onValue: (value: T) => void) {
      listener = onValue;
      for (const value of queue.splice(0)) onValue(value);
      await started;
    },
    async throw(err: unknown) {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
