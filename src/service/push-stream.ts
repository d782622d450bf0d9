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
): AsyncIterableIterator<T> {
  const maxBuffered = opts.latestOnly ? 1 : (opts.maxBuffered ?? 1_000);
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let done = false;
  let cleanup: (() => void) | undefined;

  const push = (value: T) => {
    if (done) return;
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
    async throw(err: unknown) {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
