import { describe, expect, it } from 'vitest';
import type { Window } from '../../src/domain/season.js';
import type { StandingsPage, StandingsRows } from '../../src/domain/standings-page.js';
import { readAhead, rebuildSeason, type RebuildTarget } from '../../src/service/rebuild-season.js';
import { testSeason } from '../support/season.js';

const season = testSeason();

/** A page of one board: these players, 1 point each. */
const page = (window: Window, period: string, ...playerIds: string[]): StandingsPage => ({
  window,
  period,
  playerIds,
  points: new Float64Array(playerIds.length).fill(1),
  achievedMs: new Float64Array(playerIds.length).fill(1000),
});

/** A target that logs every effect; `fill` may be held or made to fail by the test. */
function fakeTarget(fill?: (rows: StandingsRows) => Promise<void>) {
  const log: string[] = [];
  const target: RebuildTarget = {
    acquire: async () => true,
    fill: async ({ window: w, period: p }, rows) => {
      log.push(`fill ${w}${p} ${rows.playerIds.join(',')}`);
      await fill?.(rows);
      log.push(`filled ${w}${p}`);
    },
    swap: async ({ window: w, period: p }) => {
      log.push(`swap ${w}${p}`);
    },
    release: async () => {
      log.push('release');
    },
  };
  return { log, target };
}

function rebuild(pages: StandingsPage[], target: RebuildTarget, log?: string[]) {
  return rebuildSeason(
    {
      source: {
        async *seasonPages() {
          for (const [i, p] of pages.entries()) {
            log?.push(`read page ${i}`);
            yield p;
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
        page('DAY', '2026-01-01', '1', '2'),
        page('DAY', '2026-01-01', '3'),
        page('SEASON', '', '1'),
        page('SEASON', '', '2'),
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

  it('reads one page ahead while the previous ones are written, two writes at a time, in order', async () => {
    const held: Array<() => void> = [];
    const { log, target } = fakeTarget(() => new Promise<void>((resolve) => held.push(resolve)));
    const pages = [1, 2, 3, 4, 5].map((p) => page('SEASON', '', String(p)));
    const done = rebuild(pages, target, log);
    while (held.length < 2) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // Pages 0 and 1 are being written; page 2 is in hand and waits for the first write; page 3 has
    // been asked for meanwhile (readAhead); page 4 waits until page 3 is taken.
    expect(log).toEqual(['read page 0', 'read page 1', 'fill SEASON 1', 'read page 2', 'fill SEASON 2', 'read page 3']);
    for (let i = 0; i < 5; i++) {
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      held.shift()!();
    }
    expect(await done).toMatchObject({ members: 5 });
    const fills = log.filter((l) => l.startsWith('fill') && !l.startsWith('filled'));
    expect(fills).toEqual(['fill SEASON 1', 'fill SEASON 2', 'fill SEASON 3', 'fill SEASON 4', 'fill SEASON 5']);
    // Two writes at a time: each fill starts after the one two before it ended.
    const filled = log.flatMap((l, i) => (l === 'filled SEASON' ? [i] : []));
    for (let k = 3; k <= 5; k++) expect(log.indexOf(`fill SEASON ${k}`)).toBeGreaterThan(filled[k - 3]!);
    expect(log.indexOf('swap SEASON')).toBeGreaterThan(filled[4]!);
  });

  it('fails when a write fails, swapping nothing and still releasing the marker', async () => {
    const { log, target } = fakeTarget(async (rows) => {
      if (rows.playerIds[0] === '2') throw new Error('redis down');
    });
    await expect(
      rebuild(
        ['1', '2', '3', '4'].map((p) => page('SEASON', '', p)),
        target,
      ),
    ).rejects.toThrow('redis down');
    expect(log.some((l) => l.startsWith('swap'))).toBe(false);
    expect(log.at(-1)).toBe('release');
    // Page 3 was sent with page 2 in flight; nothing is sent once the failure is known.
    expect(log).not.toContain('fill SEASON 4');
  });
});

describe('readAhead', () => {
  /** A source of `n` pages that logs when each is asked for and when it ends. */
  function source(n: number, log: string[], failAt?: number): AsyncIterable<number> {
    return {
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          async next() {
            log.push(`ask ${i}`);
            if (i === failAt) throw new Error(`page ${i} failed`);
            return i < n ? { value: i++, done: false } : { value: undefined, done: true };
          },
          async return() {
            log.push('closed');
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  it('asks for the next page before the current one is used, and yields every page in order', async () => {
    const log: string[] = [];
    for await (const page of readAhead(source(3, log))) log.push(`use ${page}`);
    expect(log).toEqual(['ask 0', 'ask 1', 'use 0', 'ask 2', 'use 1', 'ask 3', 'use 2', 'closed']);
  });

  it('throws a failed page where it would have been used, and closes the source', async () => {
    const log: string[] = [];
    const used: number[] = [];
    await expect(async () => {
      for await (const page of readAhead(source(5, log, 2))) used.push(page);
    }).rejects.toThrow('page 2 failed');
    expect(used).toEqual([0, 1]);
    expect(log.at(-1)).toBe('closed');
  });

  it('closes the source when the consumer stops early, after the page in flight', async () => {
    const log: string[] = [];
    for await (const page of readAhead(source(5, log))) if (page === 1) break;
    expect(log).toEqual(['ask 0', 'ask 1', 'ask 2', 'closed']);
  });
});
