import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { createBoardVersions } from '../../src/service/board-events.js';
import { createTopCache } from '../../src/service/top-cache.js';
import { manualClock } from '../support/manual-clock.js';

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
      clock: { ...manualClock(), now: () => ++t },
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

  it('read a watched board again only on news: an idle board costs no reads, a skipped version counts as news', async () => {
    let t = 0;
    let version = 1;
    let reads = 0;
    const versions = createBoardVersions();
    const board = day(1);
    const cache = createTopCache({
      source: {
        snapshot: async () => {
          reads++;
          return { version, size: 0, entries: [] };
        },
      },
      versions,
      clock: { ...manualClock(), now: () => t },
    });
    const pushes: number[] = [];
    cache.watch(board, (snap) => pushes.push(snap.version));
    await cache.tick();
    expect(reads).toBe(1);
    // Idle for 59 s, ticking every 50 ms: no read.
    for (; t < 59_000; t += 50) await cache.tick();
    expect(reads).toBe(1);
    const event = (v: number, rank: number) => ({
      seasonId: 1,
      window: 'DAY' as const,
      period: board.period,
      version: v,
      kind: 'raise' as const,
      changes: [{ playerId: '7', old: '1', score: '2', rank }],
    });
    // Version 2 below the top (rank 5,000): nothing to re-read.
    version = 2;
    versions.note(event(2, 5_000));
    await cache.tick();
    expect(reads).toBe(1);
    // Version 4 below the top too, but version 3 was never heard: it may have changed the top.
    version = 4;
    versions.note(event(4, 5_000));
    await cache.tick();
    expect(reads).toBe(2);
    // The backstop: a minute without news.
    t += 60_000;
    await cache.tick();
    expect(reads).toBe(3);
  });

  it('read a watched board again as soon as news is heard, at most once per minGapMs, without a tick', async () => {
    const clock = manualClock(1_000);
    const settle = () => new Promise((r) => setImmediate(r)); // the reads' promises, not time
    let version = 1;
    const readsAt: number[] = [];
    const versions = createBoardVersions();
    const board = day(1);
    const cache = createTopCache({
      source: {
        snapshot: async () => {
          readsAt.push(clock.now());
          return {
            version,
            size: 1,
            entries: [{ playerId: String(version), points: version, achievedAt: new Date(0), rank: 1 }],
          };
        },
      },
      versions,
      minGapMs: 200,
      clock,
    });
    const pushes: number[] = [];
    cache.watch(board, (snap) => pushes.push(snap.version));
    await settle();
    expect(pushes.at(-1)).toBe(1);
    // Resets: news that cannot be applied in memory (topAfter), so each is read.
    const topEvent = (v: number, seasonId = 1) => ({
      seasonId,
      window: 'DAY' as const,
      period: board.period,
      version: v,
      kind: 'reset' as const,
      changes: [{ playerId: String(v), old: null, score: String(v), rank: 1 }],
    });
    // News within the gap of the first read: read once the gap has passed, not before.
    version = 2;
    versions.note(topEvent(2));
    cache.heard(topEvent(2));
    clock.advance(199);
    await settle();
    expect(readsAt).toEqual([1_000]);
    clock.advance(1);
    await settle();
    expect(readsAt).toEqual([1_000, 1_200]);
    expect(pushes.at(-1)).toBe(2);
    // News after the gap: read at once. Two events heard together: one read.
    clock.advance(250);
    version = 4;
    versions.note(topEvent(3));
    versions.note(topEvent(4));
    cache.heard(topEvent(3));
    cache.heard(topEvent(4));
    expect(readsAt).toEqual([1_000, 1_200, 1_450]);
    await settle();
    expect(pushes.at(-1)).toBe(4);
    expect(new Set(pushes)).toEqual(new Set([1, 2, 4]));
    // News of another season, or of nothing new: no read.
    cache.heard(topEvent(5, 2));
    cache.heard(topEvent(4));
    clock.advance(250);
    await settle();
    expect(readsAt).toHaveLength(3);
  });
});
