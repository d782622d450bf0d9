import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { createBoardVersions } from '../../src/service/board-events.js';
import { createTopCache } from '../../src/service/top-cache.js';

const season = { id: 1 } as Board['season'];
const day = (d: number): Board => ({ season, window: 'DAY', period: `2026-11-${String(d).padStart(2, '0')}` });

describe('top cache slots', () => {
  it('hold at most maxBoards boards, dropping the least recently used one that nobody watches', async () => {
    let t = 0;
    const reads: string[] = [];
    const cache = createTopCache({
      source: {
        snapshot: async (b) => {
          reads.push(b.period);
          return { version: 1, size: 0, entries: [] };
        },
      },
      versions: createBoardVersions(),
      maxBoards: 3,
      now: () => ++t,
    });
    const unwatch = cache.watch(day(1), () => {});
    await cache.snapshot(day(2));
    await cache.snapshot(day(3));
    await cache.snapshot(day(2)); // day 3 is now the least recently used
    for (let d = 4; d <= 20; d++) await cache.snapshot(day(d));
    const held = cache
      .ages()
      .map((a) => a.board.period)
      .sort();
    expect(held).toEqual(['2026-11-01', '2026-11-19', '2026-11-20']);
    unwatch();
    reads.length = 0;
    await cache.snapshot(day(20));
    expect(reads).toEqual([]); // still held: no read
  });
});
