import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import type { Season } from '../../src/domain/season.js';
import { closeSeason, waitForIngest, type CloseDeps, type IngestProgress } from '../../src/service/close-season.js';
import { testSeason } from '../support/season.js';

const season = testSeason();

/** Fake dependencies on a fake clock; `log` records every effect in order. */
function fakes(over: { stored?: Season; committed?: bigint[]; keysLeft?: boolean } = {}) {
  const log: string[] = [];
  let clock = 1_000_000;
  let stored: Season | undefined = over.stored ?? season;
  const ingest: IngestProgress = {
    endOffsets: async () => [
      { partition: 0, end: 10n, start: 0n },
      { partition: 1, end: 5n, start: 5n },
    ],
    committedOffsets: async () => new Map([[0, over.committed?.shift() ?? 10n]]),
  };
  const deps: CloseDeps = {
    store: {
      get: async () => stored,
      markClosed: async () => {
        log.push('markClosed');
        stored = { ...stored!, status: 'CLOSED' };
      },
      finalize: async () => {
        log.push('finalize');
        return { boards: 3, rows: 30 };
      },
    },
    ingest,
    keys: {
      remaining: async () => over.keysLeft ?? false,
      remove: async () => {
        log.push('remove');
        return 3;
      },
    },
    invalidate: () => log.push('invalidate'),
    cacheTtlMs: 5_000,
    graceMs: 10_000,
    drainTimeoutMs: 60_000,
    pollMs: 200,
    now: () => clock,
    sleep: async (ms) => {
      log.push(`sleep ${ms}`);
      clock += ms;
    },
  };
  return { deps, log };
}

const by = { actor: 'test', reason: 'unit' };

describe('the close procedure', () => {
  it('marks CLOSED, waits out caches and in-flight sends, drains ingest, finalizes, waits out caches again, removes the keys', async () => {
    const { deps, log } = fakes({ committed: [3n, 9n, 10n] });
    const report = await closeSeason(deps, 7, by);
    expect(log).toEqual([
      'markClosed',
      'invalidate',
      'sleep 15000',
      'sleep 200',
      'sleep 200',
      'finalize',
      'invalidate',
      'sleep 5000',
      'remove',
    ]);
    expect(report).toMatchObject({
      seasonId: 7,
      finalized: true,
      boards: 3,
      rows: 30,
      keysRemoved: 3,
      durationMs: 20_400,
    });
    expect(report.steps).toEqual({
      waitInFlight: 15_000,
      drain: 400,
      finalize: 0,
      publishRewards: 0,
      waitReaders: 5_000,
      removeKeys: 0,
    });
  });

  it('does nothing to a finalized season but check its keys', async () => {
    const { deps, log } = fakes({ stored: { ...season, status: 'CLOSED', finalizedAt: new Date(999_000) } });
    expect(await closeSeason(deps, 7, by)).toMatchObject({ finalized: false, keysRemoved: 0 });
    expect(log).toEqual([]);
  });

  it('finishes the key cleanup of a finalized season once the caches saw it final', async () => {
    const { deps, log } = fakes({
      stored: { ...season, status: 'CLOSED', finalizedAt: new Date(998_000) },
      keysLeft: true,
    });
    expect(await closeSeason(deps, 7, by)).toMatchObject({ finalized: false, keysRemoved: 3 });
    expect(log).toEqual(['sleep 3000', 'remove']);
  });

  it('answers SEASON_NOT_FOUND for an unknown season', async () => {
    const { deps } = fakes();
    deps.store.get = async () => undefined;
    await expect(closeSeason(deps, 8, by)).rejects.toMatchObject({ code: 'SEASON_NOT_FOUND' });
  });
});

describe('waiting for ingest', () => {
  const clock = { t: 0 };
  const opts = {
    timeoutMs: 1_000,
    pollMs: 250,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.t += ms;
    },
  };

  it('gives up with UNAVAILABLE naming the partitions behind', async () => {
    const stuck: IngestProgress = {
      endOffsets: async () => [
        { partition: 0, end: 10n, start: 0n },
        { partition: 2, end: 4n, start: 0n },
      ],
      committedOffsets: async () => new Map([[0, 10n]]),
    };
    const err = await waitForIngest(stuck, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('2 (at -1 of 4)') });
    expect(clock.t).toBe(1_000);
  });

  it('counts a partition whose kept log is empty as caught up, even with nothing committed', async () => {
    const empty: IngestProgress = {
      endOffsets: async () => [{ partition: 0, end: 7n, start: 7n }],
      committedOffsets: async () => new Map(),
    };
    await expect(waitForIngest(empty, opts)).resolves.toBeUndefined();
  });
});
