import { describe, expect, it } from 'vitest';
import { applyResult, compareBytes, rankStandings } from '../../src/domain/ranking.js';
import type { RankStyle, ScoringMode, SortOrder } from '../../src/domain/season.js';
import { thrown, utc } from './helpers.js';

const startsAt = utc('2026-01-01T00:00:30.000Z');
const sec = (s: number) => new Date(startsAt.getTime() + s * 1000);

/** [playerId, points, seconds after season start] in; 'rank playerId' out, best first. */
function ranks(rows: Array<[string, number, number]>, order: SortOrder, style: RankStyle, unitSeconds = 1): string[] {
  const standings = rows.map(([playerId, points, s]) => ({ playerId, points, achievedAt: sec(s) }));
  return rankStandings(standings, order, style, unitSeconds, startsAt).map((r) => `${r.rank} ${r.playerId}`);
}

const board: Array<[string, number, number]> = [
  ['alice', 100, 10],
  ['bob', 200, 20],
  ['carol', 100, 5],
  ['dave', 50, 1],
];

describe('rankStandings', () => {
  it.each<[string, SortOrder, RankStyle, Array<[string, number, number]>, string[], number?]>([
    [
      'DESC ORDINAL breaks a points tie by who reached it first',
      'DESC',
      'ORDINAL',
      board,
      ['1 bob', '2 carol', '3 alice', '4 dave'],
    ],
    [
      'DESC COMPETITION shares the rank of equal points and skips the next',
      'DESC',
      'COMPETITION',
      board,
      ['1 bob', '2 carol', '2 alice', '4 dave'],
    ],
    ['ASC ORDINAL puts fewer points first', 'ASC', 'ORDINAL', board, ['1 dave', '2 carol', '3 alice', '4 bob']],
    [
      'ASC COMPETITION shares ranks among fewer points too',
      'ASC',
      'COMPETITION',
      board,
      ['1 dave', '2 carol', '2 alice', '4 bob'],
    ],
    [
      'COMPETITION shares a rank regardless of time',
      'DESC',
      'COMPETITION',
      [
        ['a', 5, 1],
        ['b', 5, 9000],
        ['c', 5, 3],
      ],
      ['1 a', '1 c', '1 b'],
    ],
    [
      'COMPETITION counts only strictly better points',
      'DESC',
      'COMPETITION',
      [
        ['a', 9, 1],
        ['b', 9, 2],
        ['c', 9, 3],
        ['d', 1, 0],
      ],
      ['1 a', '1 b', '1 c', '4 d'],
    ],
    [
      'a tie in points and time unit falls back to playerId bytes descending',
      'DESC',
      'ORDINAL',
      [
        ['10', 7, 1],
        ['9', 7, 1],
        ['100', 7, 1],
        ['2', 7, 1],
      ],
      ['1 9', '2 2', '3 100', '4 10'],
    ],
    [
      'the byte fallback applies to ASC boards too',
      'ASC',
      'ORDINAL',
      [
        ['10', 7, 1],
        ['9', 7, 1],
      ],
      ['1 9', '2 10'],
    ],
    [
      'times in one unit tie even when seconds differ',
      'DESC',
      'ORDINAL',
      [
        ['10', 7, 10],
        ['9', 7, 50],
      ],
      ['1 9', '2 10'],
      60,
    ],
    [
      'units count from the season start, not from the epoch minute',
      'DESC',
      'ORDINAL',
      [
        ['9', 7, 60],
        ['10', 7, 59],
      ],
      ['1 10', '2 9'],
      60,
    ],
    [
      'time decides before playerId',
      'DESC',
      'ORDINAL',
      [
        ['1', 7, 2],
        ['2', 7, 1],
      ],
      ['1 2', '2 1'],
    ],
    [
      'points decide before time',
      'DESC',
      'ORDINAL',
      [
        ['early', 1, 0],
        ['late', 2, 99_999],
      ],
      ['1 late', '2 early'],
    ],
    ['a single player is first', 'ASC', 'COMPETITION', [['solo', 0, 0]], ['1 solo']],
    ['an empty board has no ranks', 'DESC', 'ORDINAL', [], []],
  ])('%s', (_name, order, style, rows, expected, unitSeconds = 1) => {
    expect(ranks(rows, order, style, unitSeconds)).toEqual(expected);
  });

  it('returns the standings with their ranks without changing the input', () => {
    const input = [{ playerId: '1', points: 3, achievedAt: sec(0) }];
    expect(rankStandings(input, 'DESC', 'ORDINAL', 1, startsAt)).toEqual([{ ...input[0], rank: 1 }]);
    expect(input).toEqual([{ playerId: '1', points: 3, achievedAt: sec(0) }]);
  });
});

describe('compareBytes', () => {
  it.each([
    ['9', '10', 1],
    ['10', '100', -1],
    ['abc', 'abc', 0],
    ['Z', 'a', -1],
    // UTF-16 code units would put U+FF61 after U+1F600's surrogates; UTF-8 bytes (Redis) do not.
    ['\u{ff61}', '\u{1f600}', -1],
  ])('orders %j against %j like memcmp (%i)', (a, b, sign) => {
    expect(Math.sign(compareBytes(a, b))).toBe(sign);
  });
});

type V = [number, number] | undefined; // [points, seconds]
const value = (v: [number, number]) => ({ points: v[0], achievedAt: sec(v[1]) });
// Time units of 10 s from startsAt: LAST compares results by unit (0..9 s, 10..19 s, ...).
const rule = (scoring: ScoringMode, order: SortOrder) => ({ scoring, order, startsAt, split: { timeUnitSeconds: 10 } });

describe('applyResult', () => {
  it.each<[string, ScoringMode, SortOrder, V, [number, number], [number, number]]>([
    ['BEST DESC takes the first result as is', 'BEST', 'DESC', undefined, [10, 5], [10, 5]],
    ['BEST DESC takes more points and their time', 'BEST', 'DESC', [10, 5], [20, 9], [20, 9]],
    ['BEST DESC keeps a better standing against fewer points', 'BEST', 'DESC', [20, 9], [10, 1], [20, 9]],
    ['BEST DESC moves equal points to an earlier time', 'BEST', 'DESC', [20, 9], [20, 3], [20, 3]],
    ['BEST DESC keeps the earlier time for equal points', 'BEST', 'DESC', [20, 3], [20, 9], [20, 3]],
    ['BEST ASC takes fewer points and their time', 'BEST', 'ASC', [10, 5], [5, 9], [5, 9]],
    ['BEST ASC keeps a better standing against more points', 'BEST', 'ASC', [5, 9], [10, 1], [5, 9]],
    ['BEST ASC moves equal points to an earlier time', 'BEST', 'ASC', [5, 9], [5, 2], [5, 2]],
    ['SUM takes the first result as is', 'SUM', 'DESC', undefined, [0, 5], [0, 5]],
    ['SUM dates a zero total from its earliest result', 'SUM', 'DESC', [0, 5], [0, 3], [0, 3]],
    ['SUM keeps the earliest time of a zero total', 'SUM', 'DESC', [0, 3], [0, 8], [0, 3]],
    ['SUM replaces a zero total’s time with the first positive result', 'SUM', 'DESC', [0, 3], [7, 9], [7, 9]],
    ['SUM replaces it even with an earlier positive result', 'SUM', 'DESC', [0, 3], [7, 1], [7, 1]],
    ['SUM ignores a later zero-point result’s time', 'SUM', 'DESC', [7, 9], [0, 12], [7, 9]],
    ['SUM ignores an earlier zero-point result’s time', 'SUM', 'DESC', [7, 9], [0, 1], [7, 9]],
    ['SUM adds a late-arriving earlier result without moving the time', 'SUM', 'DESC', [7, 9], [3, 5], [10, 9]],
    ['SUM dates the total from its latest positive result', 'SUM', 'DESC', [7, 9], [3, 11], [10, 11]],
    ['LAST takes the first result as is', 'LAST', 'DESC', undefined, [10, 5], [10, 5]],
    ['LAST takes a later unit’s result, fewer points too', 'LAST', 'DESC', [20, 5], [10, 12], [10, 12]],
    ['LAST keeps its result against an earlier unit’s, more points too', 'LAST', 'DESC', [10, 12], [20, 5], [10, 12]],
    ['LAST within one unit keeps the better points (DESC)', 'LAST', 'DESC', [20, 2], [10, 8], [20, 2]],
    ['LAST within one unit takes better points (DESC)', 'LAST', 'DESC', [10, 8], [20, 2], [20, 2]],
    ['LAST within one unit takes the earlier of equal points', 'LAST', 'DESC', [20, 8], [20, 2], [20, 2]],
    ['LAST within one unit takes fewer points (ASC)', 'LAST', 'ASC', [20, 2], [10, 8], [10, 8]],
    ['LAST ASC takes a later unit’s result, more points too', 'LAST', 'ASC', [10, 5], [30, 15], [30, 15]],
  ])('%s', (_name, scoring, order, current, result, expected) => {
    const next = applyResult(
      current && value(current),
      { points: result[0], endedAt: sec(result[1]) },
      rule(scoring, order),
    );
    expect(next).toEqual(value(expected));
  });

  it.each<[string, ScoringMode, SortOrder, number, Date, unknown]>([
    ['SUM on an ASC board', 'SUM', 'ASC', 1, sec(0), { code: 'BAD_USER_INPUT', field: 'order' }],
    ['negative points', 'SUM', 'DESC', -1, sec(0), { code: 'POINTS_OUT_OF_RANGE', field: 'points' }],
    ['fractional points', 'BEST', 'DESC', 1.5, sec(0), { code: 'POINTS_OUT_OF_RANGE', field: 'points' }],
    ['an invalid date', 'BEST', 'DESC', 1, new Date(Number.NaN), { code: 'TIME_OUT_OF_RANGE', field: 'endedAt' }],
  ])('rejects %s', (_name, scoring, order, points, endedAt, expected) => {
    expect(thrown(() => applyResult(undefined, { points, endedAt }, rule(scoring, order)))).toEqual(expected);
  });
});
