import { describe, expect, it } from 'vitest';
import { backoffMs, retryInPlace } from '../../src/kafka/retry-in-place.js';

describe('retry in place', () => {
  it.each([
    [0, 100],
    [1, 200],
    [5, 3_200],
    [6, 5_000],
    [40, 5_000],
  ])('waits before retry %i: %i ms', (attempt, ms) => {
    expect(backoffMs(attempt)).toBe(ms);
  });

  /** A batch scope and hooks that record what happened; `failures` steps fail before one succeeds. */
  function run(
    failures: number,
    scope: { running?: () => boolean; stale?: () => boolean; heartbeat?: () => Promise<void> } = {},
  ) {
    const log: string[] = [];
    let calls = 0;
    const done = retryInPlace(
      async () => {
        log.push('step');
        if (calls++ < failures) throw new Error(`down ${calls}`);
      },
      {
        isRunning: scope.running ?? (() => true),
        isStale: scope.stale ?? (() => false),
        heartbeat: scope.heartbeat ?? (async () => void log.push('heartbeat')),
      },
      {
        failed: (err, attempt) => log.push(`failed ${attempt}: ${(err as Error).message}`),
        succeeded: () => log.push('succeeded'),
        sleep: async (ms) => void log.push(`sleep ${ms}`),
      },
    );
    return { done, log };
  }

  it('retries a failing step with growing waits and a heartbeat after each, until it succeeds', async () => {
    const { done, log } = run(2);
    expect(await done).toBe(true);
    expect(log).toEqual([
      'step',
      'failed 0: down 1',
      'sleep 100',
      'heartbeat',
      'step',
      'failed 1: down 2',
      'sleep 200',
      'heartbeat',
      'step',
      'succeeded',
    ]);
  });

  it('gives up without running the step once the consumer stops or the partition went stale', async () => {
    for (const scope of [{ running: () => false }, { stale: () => true }]) {
      const { done, log } = run(0, scope);
      expect(await done).toBe(false);
      expect(log).toEqual([]);
    }
  });

  it('stops between retries when the consumer stops meanwhile', async () => {
    let running = true;
    const { done, log } = run(5, { running: () => running, heartbeat: async () => void (running = false) });
    expect(await done).toBe(false);
    expect(log).toEqual(['step', 'failed 0: down 1', 'sleep 100']);
  });

  it('lets a rebalance (a heartbeat that throws) end the retries, resolving nothing', async () => {
    const rebalance = new Error('The group is rebalancing');
    const { done, log } = run(5, { heartbeat: () => Promise.reject(rebalance) });
    await expect(done).rejects.toBe(rebalance);
    expect(log).not.toContain('succeeded');
  });
});
