import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { createOffsetCommitter } from '../../src/kafka/offset-committer.js';

// The committer's bookkeeping, with a recording commit in place of the group coordinator; the
// ingest consumer's commits against the real broker are tested by test/kafka/*.int.test.ts (every
// one waits for the group's committed offsets to reach the log end).
describe('the background offset committer', () => {
  let commits: TopicPartitionOffsetAndMetadata[][];
  let failNext: number;
  let errors: number;
  let release: (() => void) | undefined;
  let hold: boolean;

  const committer = () =>
    createOffsetCommitter({
      topic: 't',
      delayMs: 200,
      commit: async (offsets) => {
        commits.push(offsets);
        if (hold) await new Promise<void>((r) => (release = r));
        if (failNext > 0) {
          failNext--;
          throw new Error('REBALANCE_IN_PROGRESS');
        }
      },
      onError: () => errors++,
    });
  const committed = () => commits.map((c) => c.map((o) => `${o.partition}:${o.offset}`).join(' '));

  beforeEach(() => {
    vi.useFakeTimers();
    commits = [];
    failNext = 0;
    errors = 0;
    hold = false;
    release = undefined;
  });
  afterEach(() => vi.useRealTimers());

  it('commits the next offset of each partition once, delayMs after the first applied chunk', async () => {
    const c = committer();
    c.applied(0, '4');
    c.applied(1, '10');
    c.applied(0, '9');
    c.applied(0, '7'); // an older one never moves a partition back
    await vi.advanceTimersByTimeAsync(199);
    expect(committed()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(committed()).toEqual(['0:10 1:11']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(committed()).toEqual(['0:10 1:11']); // nothing new, nothing sent
  });

  it('keeps one commit in flight; what is applied meanwhile goes in the next', async () => {
    const c = committer();
    hold = true;
    c.applied(0, '1');
    await vi.advanceTimersByTimeAsync(200);
    c.applied(0, '2');
    c.applied(2, '5');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(committed()).toEqual(['0:2']);
    hold = false;
    release!();
    await vi.advanceTimersByTimeAsync(0);
    expect(committed()).toEqual(['0:2', '0:3 2:6']);
  });

  it('retries a failed commit, unless a newer offset of the partition came meanwhile', async () => {
    const c = committer();
    failNext = 1;
    hold = true;
    c.applied(0, '1');
    c.applied(1, '1');
    await vi.advanceTimersByTimeAsync(200);
    c.applied(1, '5');
    hold = false;
    release!();
    await vi.advanceTimersByTimeAsync(200);
    expect(errors).toBe(1);
    expect(committed()).toEqual(['0:2 1:2', '1:6 0:2']);
  });

  it('drops the partitions a rebalance took away, and flush commits at once', async () => {
    const c = committer();
    c.applied(0, '1');
    c.applied(3, '8');
    c.retain(new Set([3]));
    await c.flush();
    expect(committed()).toEqual(['3:9']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(committed()).toEqual(['3:9']);
  });
});
