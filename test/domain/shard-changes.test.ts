import { describe, expect, it } from 'vitest';
import {
  aboveCounts,
  bestHeld,
  eventUpdates,
  mergeExactChanges,
  readChanges,
  shownScore,
  staying,
  type ShardChange,
} from '../../src/domain/shard-changes.js';

const change = (member: string, old: string, score: string, shard: number, localRank: number): ShardChange => ({
  member,
  old,
  score,
  shard,
  localRank,
});

describe('readChanges', () => {
  it('reads (member, old, score, local rank) quadruples of one shard', () => {
    const out: ShardChange[] = [change('x', '1', '2', 0, 9)];
    readChanges(['a', '', '5', 3, 'b', '4', '', 0], 2, out);
    expect(out).toEqual([change('x', '1', '2', 0, 9), change('a', '', '5', 2, 3), change('b', '4', '', 2, 0)]);
  });
});

describe('held scores over shards', () => {
  // held[k][i]: member i's score on shard k (shards worst range first).
  const held = [
    ['10', null, '30', null],
    [null, null, '70', '90'],
  ];
  it.each([
    [0, '10', '10'],
    [1, null, null],
    [2, '30,70', '70'], // on two shards: a mover died between its writes
    [3, '90', '90'],
  ])('member %i: shown %s, best %s', (i, shown, best) => {
    expect(shownScore(held, i)).toBe(shown);
    expect(bestHeld(held, i)).toBe(best);
  });
});

describe('aboveCounts', () => {
  it.each([
    [[], []],
    [[5], [0]],
    [
      [3, 2, 4],
      [6, 4, 0],
    ],
    [
      [0, 0, 7],
      [7, 7, 0],
    ],
  ])('sizes %j → members on better shards %j', (sizes, above) => {
    expect(aboveCounts(sizes)).toEqual(above);
  });
});

describe('eventUpdates', () => {
  it('turns local ranks into global ones; 0 stays 0 (left the board)', () => {
    // Shard 1 (the better one) holds 4 members: shard 0's local ranks move down by 4.
    const changes = [change('a', '', '5', 0, 2), change('b', '9', '12', 1, 1), change('c', '3', '', 0, 0)];
    expect(eventUpdates(changes, [6, 4])).toEqual(['a', '', '5', 6, 'b', '9', '12', 1, 'c', '3', '', 0]);
  });
});

describe('staying', () => {
  it('keeps the members written with a score, not the removed ones', () => {
    expect(
      staying([
        ['a', '5'],
        ['b', ''],
      ]),
    ).toEqual(new Set(['a']));
  });
});

describe('mergeExactChanges', () => {
  it.each([
    ['a plain set', [change('a', '5', '7', 1, 3)], [], 1, [change('a', '5', '7', 1, 3)]],
    [
      'a move: left shard 0, set on shard 1 with no old score there → one change from the old score',
      [change('a', '5', '', 0, 0), change('a', '', '9', 1, 1)],
      ['a'],
      1,
      [change('a', '5', '9', 1, 1)],
    ],
    ['a removal', [change('a', '5', '', 0, 0)], [], 1, [change('a', '5', '', 0, 0)]],
    ['a member on two shards that only left one: counts, not listed', [change('a', '5', '', 0, 0)], ['a'], 1, []],
    ['nothing', [], [], 0, []],
  ])('%s', (_name, changes, stays, count, listed) => {
    expect(mergeExactChanges(changes, new Set(stays))).toEqual({ count, listed });
  });
});
