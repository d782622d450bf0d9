import { describe, expect, it } from 'vitest';
import type { BoardStanding } from '../../src/domain/board-deltas.js';
import type { Window } from '../../src/domain/season.js';
import { rebuildSeason, type RebuildTarget } from '../../src/service/rebuild-season.js';
import { testSeason } from '../support/season.js';

const season = testSeason();

const row = (window: Window, period: string, playerId: string): BoardStanding => ({
  seasonId: 7,
  window,
  period,
  playerId,
  points: 1,
  achievedAt: new Date(1000),
});

/** A target that logs every effect; `fill` may be held or made to fail by the test. */
function fakeTarget(fill?: (rows: readonly BoardStanding[]) => Promise<void>) {
  const log: string[] = [];
  const target: RebuildTarget = {
    acquire: async () => true,
    fill: async (_s, w, p, rows) => {
      log.push(`fill ${w}${p} ${rows.map((r) => r.playerId).join(',')}`);
      await fill?.(rows);
      log.push(`filled ${w}${p}`);
    },
    swap: async (_s, w, p) => {
      log.push(`swap ${w}${p}`);
    },
    release: async () => {
      log.push('release');
    },
  };
  return { log, target };
}

function rebuild(pages: BoardStanding[][], target: RebuildTarget, log?: string[]) {
  return rebuildSeason(
    {
      source: {
        async *seasonPages() {
          for (const [i, page] of pages.entries()) {
            log?.push(`read page ${i}`);
            yield page;
          }
        },
      },
      target,
      expireAt: () => 0, // never expires
      now: () => 1,
    },
    season,
  );
}

describe('rebuildSeason', () => {
  it('writes every board in order, swapping each after its last page', async () => {
    const { log, target } = fakeTarget();
    const report = await rebuild(
      [
        [row('DAY', '2026-01-01', '1'), row('DAY', '2026-01-01', '2')],
        [row('DAY', '2026-01-01', '3'), row('SEASON', '', '1')],
        [row('SEASON', '', '2')],
      ],
      target,
    );
    expect(log).toEqual([
      'fill DAY2026-01-01 1,2',
      'filled DAY2026-01-01',
      'fill DAY2026-01-01 3',
      'filled DAY2026-01-01',
      'swap DAY2026-01-01',
      'fill SEASON 1',
      'filled SEASON',
      'fill SEASON 2',
      'filled SEASON',
      'swap SEASON',
      'release',
    ]);
    expect(report).toMatchObject({ boards: 2, members: 5 });
  });

  it('reads the next page while the previous one is written, one write at a time', async () => {
    const held: Array<() => void> = [];
    const { log, target } = fakeTarget(() => new Promise<void>((resolve) => held.push(resolve)));
    const done = rebuild([[row('SEASON', '', '1')], [row('SEASON', '', '2')], [row('SEASON', '', '3')]], target, log);
    while (held.length === 0) await new Promise((r) => setImmediate(r));
    // Page 0 is being written: page 1 has been read meanwhile, page 2 waits for that write.
    expect(log).toEqual(['read page 0', 'fill SEASON 1', 'read page 1']);
    for (let i = 0; i < 3; i++) {
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      held.shift()!();
    }
    expect(await done).toMatchObject({ members: 3 });
    expect(log.filter((l) => l.startsWith('fill '))).toEqual(['fill SEASON 1', 'fill SEASON 2', 'fill SEASON 3']);
    expect(log.indexOf('read page 2')).toBeGreaterThan(log.indexOf('filled SEASON'));
  });

  it('fails when a write fails, swapping nothing and still releasing the marker', async () => {
    const { log, target } = fakeTarget(async (rows) => {
      if (rows[0]!.playerId === '2') throw new Error('redis down');
    });
    await expect(
      rebuild([[row('SEASON', '', '1')], [row('SEASON', '', '2')], [row('SEASON', '', '3')]], target),
    ).rejects.toThrow('redis down');
    expect(log.some((l) => l.startsWith('swap'))).toBe(false);
    expect(log.at(-1)).toBe('release');
    expect(log).not.toContain('fill SEASON 3');
  });
});
