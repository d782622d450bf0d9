import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyTally } from '../../src/domain/drift.js';
import type { Season } from '../../src/domain/season.js';
import { createReconcileJob, type ReconcileJobDeps } from '../../src/service/reconcile-job.js';
import type { ReconcileReport } from '../../src/service/reconcile-season.js';

const season = (id: number) => ({ id }) as Season;
const report = (seasonId: number): ReconcileReport => ({
  seasonId,
  repair: false,
  boards: [],
  total: emptyTally(),
  durationMs: 1,
});

function fakeDeps(overrides: Partial<ReconcileJobDeps> = {}) {
  const calls = {
    reconciled: [] as Array<[number, boolean]>,
    runs: [] as ReconcileReport[][],
    errors: [] as Array<number | undefined>,
  };
  const deps: ReconcileJobDeps = {
    intervalMs: 1_000,
    repair: true,
    activeSeasons: async () => [season(1), season(2), season(3)],
    reconcile: async (s, opts) => {
      calls.reconciled.push([s.id, opts.repair]);
      if (s.id === 2) throw new Error('boom');
      return report(s.id);
    },
    exclusive: async (fn) => {
      await fn();
      return { acquired: true };
    },
    onRun: (reports) => {
      calls.runs.push(reports);
    },
    onError: (_err, seasonId) => {
      calls.errors.push(seasonId);
    },
    now: Date.now,
    ...overrides,
  };
  return { deps, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the scheduled reconcile', () => {
  it('runs on multiples of the interval, reconciles every active season and reports a failing one without stopping', async () => {
    vi.useFakeTimers({ now: 10_400 });
    const { deps, calls } = fakeDeps();
    const job = createReconcileJob(deps);
    job.start();
    await vi.advanceTimersByTimeAsync(599);
    expect(calls.reconciled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1); // 11,000: the next multiple of 1,000
    expect(calls.reconciled).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(calls.errors).toEqual([2]);
    expect(calls.runs).toEqual([[report(1), report(3)]]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.runs.length).toBe(2);
    await job.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls.runs.length).toBe(2);
  });

  it('skips its turn when another instance holds the lock', async () => {
    const { deps, calls } = fakeDeps({ exclusive: async () => ({ acquired: false }) });
    expect(await createReconcileJob(deps).runOnce()).toBe(false);
    expect(calls.reconciled).toEqual([]);
    expect(calls.runs).toEqual([]);
  });

  it('does nothing when the interval is 0', async () => {
    vi.useFakeTimers();
    const { deps, calls } = fakeDeps({ intervalMs: 0 });
    createReconcileJob(deps).start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.reconciled).toEqual([]);
  });

  it('stops a run in progress: the running season sees its signal aborted and no later season starts', async () => {
    vi.useFakeTimers({ now: 0 });
    let signal: AbortSignal | undefined;
    let release!: () => void;
    const { deps, calls } = fakeDeps({
      reconcile: async (s, opts) => {
        calls.reconciled.push([s.id, opts.repair]);
        signal = opts.signal;
        await new Promise<void>((r) => {
          release = r;
        });
        return report(s.id);
      },
    });
    const job = createReconcileJob(deps);
    job.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.reconciled).toEqual([[1, true]]);
    const stopped = job.stop();
    expect(signal?.aborted).toBe(true);
    release();
    await stopped;
    expect(calls.reconciled).toEqual([[1, true]]);
    expect(calls.runs).toEqual([]);
  });
});
