import { describe, expect, it } from 'vitest';
import { parseReason, planRemoval, type PlayerResult, type ResultSelection } from '../../src/domain/player-removal.js';
import type { ScoringMode, Season, SortOrder } from '../../src/domain/season.js';
import { thrown, utc } from './helpers.js';

function season(scoring: ScoringMode, order: SortOrder = 'DESC'): Season {
  return {
    id: 7,
    name: 's',
    startsAt: utc('2026-03-01T00:00:00Z'),
    endsAt: utc('2026-04-01T00:00:00Z'),
    status: 'ACTIVE',
    scoring,
    order,
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 1000,
    split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 },
  };
}

// m1 and m2 on Monday 2 March (week 10), m3 on Tuesday 3 March, m4 on Monday 9 March (week 11).
const results: PlayerResult[] = [
  { matchId: 'm1', points: 50, endedAt: utc('2026-03-02T10:00:00Z') },
  { matchId: 'm2', points: 90, endedAt: utc('2026-03-02T12:00:00Z') },
  { matchId: 'm3', points: 90, endedAt: utc('2026-03-03T08:00:00Z') },
  { matchId: 'm4', points: 0, endedAt: utc('2026-03-09T08:00:00Z') },
];

/** Boards as 'window period: points @ hh:mm of day' (or 'gone'), in primary-key order. */
function boards(scoring: ScoringMode, order: SortOrder, selection: ResultSelection, input = results): string[] {
  return planRemoval(season(scoring, order), '42', input, selection).boards.map(
    (b) =>
      `${b.window} ${b.period}: ${b.standing ? `${b.standing.points} @ ${b.standing.achievedAt.toISOString().slice(5, 16)}` : 'gone'}`,
  );
}

describe('planRemoval', () => {
  it.each<[string, ScoringMode, SortOrder, ResultSelection, string[]]>([
    [
      'BEST: removing the best match falls back to the earliest equal best',
      'BEST',
      'DESC',
      { kind: 'only', matchIds: ['m2'] },
      ['SEASON : 90 @ 03-03T08:00', 'DAY 2026-03-02: 50 @ 03-02T10:00', 'WEEK 2026-W10: 90 @ 03-03T08:00'],
    ],
    [
      'BEST: removing a match below the best still rewrites its boards, unchanged',
      'BEST',
      'DESC',
      { kind: 'only', matchIds: ['m1'] },
      ['SEASON : 90 @ 03-02T12:00', 'DAY 2026-03-02: 90 @ 03-02T12:00', 'WEEK 2026-W10: 90 @ 03-02T12:00'],
    ],
    [
      'BEST ASC: the best is the fewest points',
      'BEST',
      'ASC',
      { kind: 'only', matchIds: ['m4'] },
      ['SEASON : 50 @ 03-02T10:00', 'DAY 2026-03-09: gone', 'WEEK 2026-W11: gone'],
    ],
    [
      'SUM: the total drops and dates from the latest positive result left',
      'SUM',
      'DESC',
      { kind: 'only', matchIds: ['m3'] },
      ['SEASON : 140 @ 03-02T12:00', 'DAY 2026-03-03: gone', 'WEEK 2026-W10: 140 @ 03-02T12:00'],
    ],
    [
      'SUM: a total left at zero dates from its earliest result',
      'SUM',
      'DESC',
      { kind: 'allBut', matchIds: ['m4'] },
      ['SEASON : 0 @ 03-09T08:00', 'DAY 2026-03-02: gone', 'DAY 2026-03-03: gone', 'WEEK 2026-W10: gone'],
    ],
    [
      'removing everything leaves no standing anywhere',
      'SUM',
      'DESC',
      { kind: 'all' },
      [
        'SEASON : gone',
        'DAY 2026-03-02: gone',
        'DAY 2026-03-03: gone',
        'DAY 2026-03-09: gone',
        'WEEK 2026-W10: gone',
        'WEEK 2026-W11: gone',
      ],
    ],
    ['an unknown match removes nothing and touches no board', 'BEST', 'DESC', { kind: 'only', matchIds: ['nope'] }, []],
  ])('%s', (_name, scoring, order, selection, expected) => {
    expect(boards(scoring, order, selection)).toEqual(expected);
  });

  it('splits results into removed and kept by the selection', () => {
    const plan = planRemoval(season('BEST'), '42', results, { kind: 'only', matchIds: ['m1', 'm4'] });
    expect(plan.removed.map((r) => r.matchId)).toEqual(['m1', 'm4']);
    expect(plan.kept.map((r) => r.matchId)).toEqual(['m2', 'm3']);
  });

  it('gives the same standings whatever order the results are read in', () => {
    const reversed = [...results].reverse();
    for (const scoring of ['BEST', 'SUM'] as const) {
      expect(boards(scoring, 'DESC', { kind: 'only', matchIds: ['m2'] }, reversed)).toEqual(
        boards(scoring, 'DESC', { kind: 'only', matchIds: ['m2'] }),
      );
    }
  });
});

describe('parseReason', () => {
  it.each<[string, unknown, ReturnType<typeof thrown>]>([
    ['blank', '   ', { code: 'BAD_USER_INPUT', field: 'reason' }],
    ['missing', undefined, { code: 'BAD_USER_INPUT', field: 'reason' }],
    ['too long', 'x'.repeat(501), { code: 'BAD_USER_INPUT', field: 'reason' }],
    ['with a control character', 'aim\u0000bot', { code: 'BAD_USER_INPUT', field: 'reason' }],
    ['500 characters', 'é'.repeat(500), 'no error'],
  ])('%s', (_name, reason, expected) => {
    expect(thrown(() => parseReason(reason))).toEqual(expected);
  });

  it('trims the reason', () => {
    expect(parseReason('  aimbot  ')).toBe('aimbot');
  });
});
