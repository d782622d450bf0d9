import { describe, expect, it } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import { createBoardRestore, type BoardsMarker } from '../../src/service/board-restore.js';

/** The marker as Redis keeps it: absent, 'restoring' or 'complete'; `lose()` is a Redis restart. */
function fakeMarker(initial?: 'complete') {
  let value: string | undefined = initial;
  const marker: BoardsMarker = {
    claim: async () => (value === undefined ? ((value = 'restoring'), true) : false),
    renew: async () => {},
    complete: async () => (value !== undefined ? ((value = 'complete'), true) : false),
    release: async () => {
      value = undefined;
    },
  };
  return {
    marker,
    get value() {
      return value;
    },
    lose: () => {
      value = undefined;
    },
  };
}

const seasons = [1, 2, 3].map((id) => ({ id }) as Season);

function restoreWith(m: ReturnType<typeof fakeMarker>, rebuild: (id: number) => Promise<{ members: number }>) {
  const reports: unknown[] = [];
  const job = createBoardRestore({
    marker: m.marker,
    intervalMs: 0,
    leaseMs: 60_000,
    activeSeasons: async () => seasons,
    rebuild,
    onRestored: (r) => reports.push(r),
    onError: () => {},
    now: () => 0,
  });
  return { job, reports };
}

describe('board restore', () => {
  it.each([
    {
      case: 'Redis holds the boards: nothing to do',
      initial: 'complete' as const,
      lostAt: undefined,
      failAt: undefined,
      restored: false,
      rebuilt: [],
      after: 'complete',
    },
    {
      case: 'an empty Redis: every ACTIVE season rebuilt, then marked complete',
      initial: undefined,
      lostAt: undefined,
      failAt: undefined,
      restored: true,
      rebuilt: [1, 2, 3],
      after: 'complete',
    },
    {
      case: 'Redis emptied again during the restore: not marked, the next check starts over',
      initial: undefined,
      lostAt: 2,
      failAt: undefined,
      restored: false,
      rebuilt: [1, 2, 3],
      after: undefined,
    },
    {
      case: 'a season fails: the claim is released for the next check',
      initial: undefined,
      lostAt: undefined,
      failAt: 2,
      restored: 'throws',
      rebuilt: [1],
      after: undefined,
    },
  ])('$case', async ({ initial, lostAt, failAt, restored, rebuilt, after }) => {
    const m = fakeMarker(initial);
    const done: number[] = [];
    const { job, reports } = restoreWith(m, async (id) => {
      if (id === failAt) throw new Error('redis down');
      if (id === lostAt) m.lose();
      done.push(id);
      return { members: 10 };
    });
    if (restored === 'throws') await expect(job.runOnce()).rejects.toThrow('redis down');
    else expect(await job.runOnce()).toBe(restored);
    expect(done).toEqual(rebuilt);
    expect(m.value).toBe(after);
    expect(reports).toHaveLength(restored === true ? 1 : 0);
  });

  it('a second check after a restore finds the boards marked and does nothing', async () => {
    const m = fakeMarker();
    let rebuilds = 0;
    const { job } = restoreWith(m, async () => ({ members: rebuilds++ }));
    expect(await job.runOnce()).toBe(true);
    expect(await job.runOnce()).toBe(false);
    expect(rebuilds).toBe(3);
  });
});
