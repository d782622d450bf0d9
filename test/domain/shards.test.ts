import { describe, expect, it } from 'vitest';
import { codecOf } from '../../src/domain/score-codec.js';
import type { Season } from '../../src/domain/season.js';
import { boundsFromHistogram, shardLowers, shardOf, validateShardBounds } from '../../src/domain/shards.js';
import { isDomainError } from '../../src/domain/errors.js';

const season = (
  order: 'DESC' | 'ASC',
  bounds: number[],
): Season & { shards: { bounds: number[]; tags: string[] } } => ({
  id: 1,
  name: 's',
  startsAt: new Date('2026-01-01T00:00:00Z'),
  endsAt: new Date('2026-03-01T00:00:00Z'),
  status: 'ACTIVE',
  scoring: 'BEST',
  order,
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
  split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 },
  shards: { bounds, tags: bounds.concat(0).map((_, k) => `s1.${k}`) },
});

describe('shardOf: a points value picks one shard, whatever the time part', () => {
  it.each([
    // order, bounds, points, expected shard (0: worst range)
    ['DESC', [10, 100], 0, 0],
    ['DESC', [10, 100], 9, 0],
    ['DESC', [10, 100], 10, 1],
    ['DESC', [10, 100], 99, 1],
    ['DESC', [10, 100], 100, 2],
    ['DESC', [10, 100], 2 ** 21 - 1, 2],
    ['DESC', [], 500, 0],
    // ASC: fewer points rank better; points < bound reach the better shard
    ['ASC', [10, 100], 0, 2],
    ['ASC', [10, 100], 9, 2],
    ['ASC', [10, 100], 10, 1],
    ['ASC', [10, 100], 99, 1],
    ['ASC', [10, 100], 100, 0],
    ['ASC', [1], 0, 1],
    ['ASC', [1], 1, 0],
  ] as const)('%s bounds %j: %i points -> shard %i', (order, bounds, points, expected) => {
    const s = season(order, [...bounds]);
    const codec = codecOf(s);
    const lowers = shardLowers(s);
    // Earliest and latest instants of the season: the time part never moves a player across a bound.
    for (const at of [s.startsAt, new Date(s.endsAt.getTime() - 1000)]) {
      expect(shardOf(lowers, codec.encode(points, at))).toBe(expected);
    }
  });

  it('better composites never land on a worse shard (monotone)', () => {
    const s = season('DESC', [3, 7, 20]);
    const codec = codecOf(s);
    const lowers = shardLowers(s);
    let last = 0;
    for (let p = 0; p < 30; p++) {
      const k = shardOf(lowers, codec.encode(p, s.startsAt));
      expect(k).toBeGreaterThanOrEqual(last);
      last = k;
    }
    expect(last).toBe(3);
  });
});

describe('validateShardBounds: BAD_USER_INPUT on shardBounds', () => {
  it.each([
    [[0], 'integer in 1..'],
    [[5, 5], 'strictly ascending'],
    [[7, 3], 'strictly ascending'],
    [[1.5], 'integer in 1..'],
    [[1001], 'integer in 1..'],
    [Array.from({ length: 64 }, (_, i) => i + 1), 'at most 64 shards'],
  ])('%j is refused (%s)', (bounds, message) => {
    try {
      validateShardBounds(bounds, 1000);
      expect.unreachable();
    } catch (err) {
      expect(isDomainError(err) && err.code === 'BAD_USER_INPUT' && err.field === 'shardBounds').toBe(true);
      expect((err as Error).message).toContain(message);
    }
  });

  it.each([[[]], [[1]], [[1, 2, 1000]], [Array.from({ length: 63 }, (_, i) => i + 1)]])('%j is accepted', (bounds) => {
    expect(() => validateShardBounds(bounds, 1000)).not.toThrow();
  });
});

describe('boundsFromHistogram: shards of about equal size from a previous season', () => {
  it.each([
    // histogram (points: players), shards, order, expected bounds
    [{ 1: 10, 2: 10, 3: 10, 4: 10 }, 2, 'DESC', [3]],
    [{ 1: 10, 2: 10, 3: 10, 4: 10 }, 4, 'DESC', [2, 3, 4]],
    [{ 1: 10, 2: 10, 3: 10, 4: 10 }, 1, 'DESC', []],
    // a heavy value is never split: fewer, uneven shards
    [{ 5: 100, 6: 1 }, 3, 'DESC', [6]],
    [{ 5: 100 }, 4, 'DESC', []],
    // ASC: the better shard holds the fewer points; a bound b sends points < b up
    [{ 1: 10, 2: 10, 3: 10, 4: 10 }, 2, 'ASC', [3]],
    [{ 10: 1, 20: 1, 30: 1 }, 3, 'ASC', [20, 30]],
    [{}, 3, 'DESC', []],
  ] as const)('%j in %i shards (%s) -> %j', (histogram, count, order, expected) => {
    const rows = Object.entries(histogram).map(([points, players]) => ({ points: Number(points), players }));
    expect(boundsFromHistogram(rows, count, order)).toEqual(expected);
  });

  it('refuses a shard count outside 1..64', () => {
    expect(() => boundsFromHistogram([], 0, 'DESC')).toThrow(/shards must be an integer/);
    expect(() => boundsFromHistogram([], 65, 'DESC')).toThrow(/shards must be an integer/);
  });
});
