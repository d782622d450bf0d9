import { describe, expect, it } from 'vitest';
import { compareEntries, rankShift } from '../../src/domain/rank-shift.js';
import type { RankStyle } from '../../src/domain/season.js';

// Composite scores with step 16: points = floor(score / 16) (see score-codec.ts).
const STEP = 16;

describe('compareEntries (Redis ZREVRANGE order)', () => {
  it.each<[string, number, string, number, string, '<' | '>' | '=']>([
    ['higher score first', 50, 'a', 40, 'b', '<'],
    ['lower score after', 40, 'a', 50, 'b', '>'],
    ['equal scores: greater member bytes first', 40, 'b', 40, 'a', '<'],
    ['equal scores: "9" before "10" (bytes, not numbers)', 40, '9', 40, '10', '<'],
    ['the same entry', 40, 'a', 40, 'a', '='],
  ])('%s', (_name, sa, ma, sb, mb, want) => {
    const c = compareEntries(sa, ma, sb, mb);
    expect(c < 0 ? '<' : c > 0 ? '>' : '=').toBe(want);
  });
});

describe('rankShift: how player x (score 100, points 6) moves when member m changes', () => {
  it.each<[string, RankStyle, string, number | null, number | null, -1 | 0 | 1]>([
    ['ORDINAL: m passes x from below', 'ORDINAL', 'm', 90, 110, 1],
    ['ORDINAL: m enters the board above x', 'ORDINAL', 'm', null, 110, 1],
    ['ORDINAL: m enters below x', 'ORDINAL', 'm', null, 90, 0],
    ['ORDINAL: m rises but stays below x', 'ORDINAL', 'm', 50, 99, 0],
    ['ORDINAL: m was already above x', 'ORDINAL', 'm', 101, 200, 0],
    ["ORDINAL: m reaches x's score with greater bytes: above", 'ORDINAL', 'y', 90, 100, 1],
    ["ORDINAL: m reaches x's score with smaller bytes: still below", 'ORDINAL', 'a', 90, 100, 0],
    ['ORDINAL: m lowered from above x to below (a removal)', 'ORDINAL', 'm', 110, 90, -1],
    ['ORDINAL: m removed from above x', 'ORDINAL', 'm', 110, null, -1],
    ['ORDINAL: m removed from below x', 'ORDINAL', 'm', 90, null, 0],
    ['COMPETITION: m gets more points than x', 'COMPETITION', 'm', 90, 112, 1],
    ["COMPETITION: m reaches x's points (a later time): a shared rank, no move", 'COMPETITION', 'm', 90, 99, 0],
    ["COMPETITION: m reaches x's points earlier (higher composite): still shared", 'COMPETITION', 'm', 90, 103, 0],
    ["COMPETITION: m with x's points gets more", 'COMPETITION', 'm', 100, 112, 1],
    ["COMPETITION: m above x falls to x's points", 'COMPETITION', 'm', 112, 97, -1],
    ['COMPETITION: new member with more points', 'COMPETITION', 'm', null, 130, 1],
  ])('%s', (_name, style, m, old, score, want) => {
    expect(rankShift(style, STEP, m, old, score, 'x', 100)).toBe(want);
  });
});
