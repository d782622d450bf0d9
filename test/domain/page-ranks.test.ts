import { describe, expect, it } from 'vitest';
import { pageRanks } from '../../src/domain/page-ranks.js';

describe('pageRanks', () => {
  it.each([
    // style, first position, rank of first, points (best first), expected ranks
    ['ORDINAL', 0, 1, [50, 40, 40, 30], [1, 2, 3, 4]],
    ['COMPETITION', 0, 1, [50, 40, 40, 30], [1, 2, 2, 4]],
    ['COMPETITION', 0, 1, [40, 40, 40], [1, 1, 1]],
    ['ORDINAL', 10, 11, [40, 40, 39], [11, 12, 13]],
    // a page starting inside a tie: its first rank comes from Redis (ZCOUNT), not its position
    ['COMPETITION', 10, 8, [40, 40, 39, 39, 38], [8, 8, 13, 13, 15]],
    ['COMPETITION', 3, 4, [], []],
  ] as const)('%s from position %i (rank %i) of %j ranks %j', (style, position, rank, points, expected) => {
    expect(pageRanks(style, position, rank, points)).toEqual(expected);
  });
});
