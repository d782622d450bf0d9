/**
 * Runs `run` on everything queued, at most `concurrency` batches at a time: items queued while
 * they run form the next batch (at most `max` by `size`, never splitting an item). `run` must
 * settle its items itself.
 */
export function coalesce<T>(
  run: (batch: T[]) => Promise<void>,
  size: (item: T) => number,
  max: number,
  concurrency = 1,
): (item: T) => void {
  const waiting: T[] = [];
  let running = 0;
  let scheduled = false;
  function next(): void {
    if (scheduled || running >= concurrency || waiting.length === 0) return;
    running++;
    scheduled = true;
    // setImmediate: items queued in this turn of the event loop join this batch.
    setImmediate(() => {
      scheduled = false;
      let total = 0;
      let n = 0;
      while (n < waiting.length && (n === 0 || total + size(waiting[n]!) <= max)) total += size(waiting[n++]!);
      void run(waiting.splice(0, n)).finally(() => {
        running--;
        next();
      });
      next();
    });
  }
  return (item) => {
    waiting.push(item);
    next();
  };
}
