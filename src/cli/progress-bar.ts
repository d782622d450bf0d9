// A one-line progress bar for long CLI jobs: rewritten in place with \r, no dependency.

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** Seconds as "42s", "3m05s" or "1h02m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** "[#####-----] 1,234/5,000  24%  1,000/s  ETA 4s"; `done` may pass `total` (work added meanwhile). */
export function formatProgress(done: number, total: number, elapsedMs: number, width = 30): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(fraction * width);
  const rate = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const eta = rate > 0 ? formatDuration(Math.max(0, total - done) / rate) : '?';
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count(done)}/${count(total)}` +
    `  ${Math.floor(fraction * 100)}%  ${count(rate)}/s  ETA ${eta}`
  );
}

/**
 * Draws `label` and the progress towards `total` on one line, at most every `intervalMs`
 * (a 10M-member job reports thousands of pages; the terminal needs a few frames a second).
 */
export function createProgressBar(opts: {
  label: string;
  total: number;
  write(s: string): void;
  now(): number;
  intervalMs?: number;
}) {
  const started = opts.now();
  const interval = opts.intervalMs ?? 200;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let width = 0;
  let drawn = false;

  function draw(done: number): void {
    const line = `${opts.label} ${formatProgress(done, opts.total, opts.now() - started)}`;
    // Pad over the tail of a longer previous frame.
    opts.write(`\r${line.padEnd(width)}`);
    width = line.length;
    drawn = true;
  }

  return {
    /** Reports progress; redraws only when the last frame is old enough. */
    update(done: number): void {
      if (opts.now() - lastDraw < interval) return;
      lastDraw = opts.now();
      draw(done);
    },
    /** Draws the final frame and ends the line. */
    finish(done: number): void {
      draw(done);
      opts.write('\n');
      drawn = false;
    },
    /** Ends the line after a failure, so the error message starts on its own line. */
    abandon(): void {
      if (drawn) opts.write('\n');
      drawn = false;
    },
  };
}
