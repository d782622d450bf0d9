import { describe, expect, it } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import type { BoardEvent } from '../../src/service/board-events.js';
import { sameEntries, topAfter, type TopSnapshot } from '../../src/service/top-snapshot.js';
import { smallSeason } from '../domain/helpers.js';

describe('topAfter', () => {
  const real = smallSeason('ORDINAL'); // score = points * 16 + (15 - t)
  const entry = (playerId: string, points: number, rank: number) => ({
    playerId,
    points,
    achievedAt: real.startsAt,
    rank,
  });
  const snap: TopSnapshot = { version: 5, size: 3, entries: [entry('a', 30, 1), entry('b', 20, 2), entry('c', 10, 3)] };
  const change = (playerId: string, old: number | null, score: number | null) => ({
    playerId,
    old: old === null ? null : String(old),
    score: score === null ? null : String(score),
    rank: 1,
  });
  const event = (over: Partial<BoardEvent>): BoardEvent => ({
    seasonId: 1,
    window: 'SEASON',
    period: '',
    version: 6,
    previous: 5,
    kind: 'raise',
    changes: [change('c', 10 * 16 + 15, 40 * 16 + 15)],
    ...over,
  });

  it.each<[string, Partial<BoardEvent>, Season]>([
    ['a reset', { kind: 'reset' }, real],
    ['a swap', { kind: 'swap' }, real],
    ['a version after a gap', { version: 7, previous: 6 }, real],
    ['an event the snapshot already holds', { version: 5, previous: 4 }, real],
    ['a member removed', { changes: [change('b', 20 * 16 + 15, null)] }, real],
    ['a member lowered', { changes: [change('a', 30 * 16 + 15, 5 * 16 + 15)] }, real],
    ['a sharded season', {}, { ...real, shards: { tags: ['x', 'y'], bounds: [20] } }],
  ])('is not known from the snapshot after %s: the board is read', (_, over, season) => {
    expect(topAfter(snap, event(over), season, 3)).toBeUndefined();
  });

  it('moves a raised member up, drops the last of a full list, and counts new members in the size', () => {
    const after = topAfter(
      snap,
      event({ changes: [change('c', 10 * 16 + 15, 40 * 16 + 15), change('d', null, 25 * 16 + 15)] }),
      real,
      3,
    );
    expect(after).toEqual({
      version: 6,
      size: 4,
      entries: [entry('c', 40, 1), entry('a', 30, 2), entry('d', 25, 3)],
    });
    // Below the last of a full list: the same entries, the next version.
    const below = topAfter(snap, event({ changes: [change('e', null, 5 * 16 + 15)] }), real, 3);
    expect(below).toEqual({ version: 6, size: 4, entries: snap.entries });
  });
});

describe('sameEntries', () => {
  const at = (ms: number) => new Date(ms);
  const a = { playerId: 'a', points: 3, achievedAt: at(1), rank: 1 };
  const b = { playerId: 'b', points: 2, achievedAt: at(2), rank: 2 };
  it.each([
    ['the same entries, copied', [a, b], [{ ...a, achievedAt: at(1) }, { ...b }], true],
    ['no entries', [], [], true],
    ['one entry more', [a], [a, b], false],
    ['the same entries in another order', [a, b], [b, a], false],
    ['another rank', [a], [{ ...a, rank: 2 }], false],
    ['other points', [a], [{ ...a, points: 4 }], false],
    ['another time', [a], [{ ...a, achievedAt: at(5) }], false],
    ['another player', [a], [{ ...a, playerId: 'c' }], false],
  ])('%s: %s', (_, x, y, same) => {
    expect(sameEntries(x, y)).toBe(same);
  });
});
