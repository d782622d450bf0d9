import { describe, expect, it } from 'vitest';
import { createProgressBar, formatDuration, formatProgress } from '../../src/cli/progress-bar.js';

describe('formatProgress', () => {
  it.each<[number, number, number, string]>([
    [0, 1000, 0, '[----------] 0/1,000  0%  0/s  ETA ?'],
    [250, 1000, 1000, '[###-------] 250/1,000  25%  250/s  ETA 3s'],
    [1000, 1000, 2000, '[##########] 1,000/1,000  100%  500/s  ETA 0s'],
    // Ingest added members while the job ran: the bar stays full.
    [1200, 1000, 1000, '[##########] 1,200/1,000  100%  1,200/s  ETA 0s'],
    [0, 0, 10, '[##########] 0/0  100%  0/s  ETA ?'],
    [1_000_000, 10_000_000, 10_000, '[#---------] 1,000,000/10,000,000  10%  100,000/s  ETA 1m30s'],
  ])('%i of %i after %i ms', (done, total, elapsed, line) => {
    expect(formatProgress(done, total, elapsed, 10)).toBe(line);
  });

  it.each([
    [0, '0s'],
    [59.4, '59s'],
    [65, '1m05s'],
    [3600 * 2 + 60 * 3, '2h03m'],
  ])('formats %s s as %s', (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });
});

describe('createProgressBar', () => {
  it('redraws in place at most once per interval, pads over longer frames and ends the line', () => {
    let t = 0;
    const out: string[] = [];
    const bar = createProgressBar({
      label: 'job',
      total: 100,
      write: (s) => out.push(s),
      now: () => t,
      intervalMs: 100,
    });
    bar.update(1);
    t = 50;
    bar.update(2); // too soon: skipped
    t = 100;
    bar.update(100);
    t = 200;
    bar.finish(100);
    expect(out.length).toBe(4);
    expect(out.every((s, i) => i === 3 || s.startsWith('\rjob ['))).toBe(true);
    expect(out[3]).toBe('\n');
    expect(out[2]!.length).toBeGreaterThanOrEqual(out[1]!.length);
  });

  it('ends a drawn line when the job fails, and writes nothing when nothing was drawn', () => {
    const out: string[] = [];
    const bar = createProgressBar({ label: 'job', total: 1, write: (s) => out.push(s), now: () => 0 });
    bar.abandon();
    expect(out).toEqual([]);
    bar.update(0);
    bar.abandon();
    expect(out.at(-1)).toBe('\n');
  });
});
