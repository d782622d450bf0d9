import { describe, expect, it } from 'vitest';
import { friendsCursor, friendsOrder, friendsPage, percentile } from '../../src/domain/placing.js';
import type { RankedStanding } from '../../src/domain/ranking.js';
import { thrown } from './helpers.js';

describe('percentile', () => {
  it.each([
    [1, 1, 100],
    [1, 250, 0.4],
    [4, 1000, 0.4],
    [3, 4, 75],
    [1000, 1000, 100],
    [1, 3, 100 / 3],
  ])('rank %i of %i: top %d%%', (rank, size, want) => {
    expect(percentile(rank, size)).toBe(want);
  });

  it('a rank past the size (a size read later than the rank) is the top 100%, not more', () => {
    expect(percentile(12, 10)).toBe(100);
  });

  it.each([
    [0, 10],
    [1, 0],
    [1.5, 10],
  ])('refuses rank %d of %d', (rank, size) => {
    expect(() => percentile(rank, size)).toThrow(RangeError);
  });
});

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const e = (rank: number, playerId: string, s = 0): RankedStanding => ({
  rank,
  playerId,
  points: 100 - rank,
  achievedAt: at(s),
});

describe('friendsOrder', () => {
  it.each<[string, RankedStanding, RankedStanding]>([
    ['a better rank first', e(1, '9'), e(2, '1')],
    ['a shared rank: earlier first', e(2, '1', 5), e(2, '9', 6)],
    ['a shared rank and time: playerId bytes descending, as ZREVRANGE', e(2, '9', 5), e(2, '10', 5)],
  ])('%s', (_name, first, second) => {
    expect(friendsOrder(first, second)).toBeLessThan(0);
    expect(friendsOrder(second, first)).toBeGreaterThan(0);
  });
});

describe('friendsPage', () => {
  const list = [e(1, '7'), e(2, '3', 1), e(2, '5', 2), e(4, '1'), e(9, '2')];
  const ids = (p: { entries: RankedStanding[] }) => p.entries.map((x) => x.playerId);

  it('walks the list `first` at a time by endCursor', () => {
    const p1 = friendsPage(list, 2, null);
    expect([ids(p1), p1.hasNextPage, p1.ranked]).toEqual([['7', '3'], true, 5]);
    const p2 = friendsPage(list, 2, p1.endCursor);
    expect([ids(p2), p2.hasNextPage]).toEqual([['5', '1'], true]);
    const p3 = friendsPage(list, 2, p2.endCursor);
    expect([ids(p3), p3.hasNextPage]).toEqual([['2'], false]);
    expect(friendsPage(list, 2, p3.endCursor)).toEqual({ entries: [], endCursor: null, hasNextPage: false, ranked: 5 });
  });

  it('a cursor names a place: after ranks moved, the next page starts after it, not at an index', () => {
    const p1 = friendsPage(list, 2, null); // ends at '3' (rank 2, time 1)
    // '7' fell to rank 3 and '1' climbed to rank 1 since: both now sit on either side of the place.
    const moved = [e(1, '1'), e(2, '3', 1), e(2, '5', 2), e(3, '7'), e(9, '2')];
    expect(ids(friendsPage(moved, 2, p1.endCursor))).toEqual(['5', '7']);
  });

  it('an empty list: one empty page', () => {
    expect(friendsPage([], 10, null)).toEqual({ entries: [], endCursor: null, hasNextPage: false, ranked: 0 });
  });

  it.each(['', 'garbage', Buffer.from('0:1:2').toString('base64url'), Buffer.from('1:x:2').toString('base64url')])(
    'refuses the cursor %j with BAD_USER_INPUT on after',
    (cursor) => {
      expect(thrown(() => friendsPage(list, 2, cursor))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    },
  );

  it('a cursor round-trips the place of an entry with a 20-digit id and a time before 1970', () => {
    const far: RankedStanding = {
      rank: 1234567,
      playerId: '18446744073709551615',
      points: 0,
      achievedAt: new Date(-5000),
    };
    expect(friendsPage([far, e(1234568, '1')], 1, friendsCursor(far)).entries.map((x) => x.playerId)).toEqual(['1']);
  });
});
