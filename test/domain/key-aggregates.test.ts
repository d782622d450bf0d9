// Per-key aggregates (docs/design.md#per-key-aggregates): table-driven steps of foldKeys, and
// properties against a closed form stated directly from the rules: any arrival order gives the
// same state, and the packed composite never falls (so ZADD GT can mirror every step).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldKeys, packState, stateOfRow, stateToRow, type KeyState } from '../../src/domain/key-aggregates.js';
import { createCodec } from '../../src/domain/score-codec.js';
import { packedMax } from '../../src/domain/board-keys.js';
import type { BoardKey } from '../../src/domain/season.js';

// wins SUM (max 1000: 10 bits), kills BEST (100: 7 bits), lap time MIN (BEST ASC, 3600: 12 bits).
const keys: BoardKey[] = [
  { stat: 'wins', order: 'DESC', max: 1000, aggregate: 'SUM' },
  { stat: 'kills', order: 'DESC', max: 100 },
  { stat: 'lap', order: 'ASC', max: 3600 },
];
type Step = [values: number[], at: number];
const fold = (steps: readonly Step[]) =>
  steps.reduce<KeyState | undefined>((s, [v, at]) => foldKeys(keys, s, v, at), undefined)!;

describe('foldKeys', () => {
  it.each<[string, Step[], KeyState]>([
    ['a first result as is', [[[1, 5, 90], 10]], { values: [1, 5, 90], reached: [10, 10, 10], latest: 10, first: 10 }],
    [
      'SUM adds, dated by its latest positive result; BEST keeps the best, dated by its earliest',
      [
        [[1, 5, 90], 10],
        [[1, 3, 95], 20],
      ],
      { values: [2, 5, 90], reached: [20, 10, 10], latest: 20, first: 10 },
    ],
    [
      'a zero adds nothing and moves no date; an equal best from earlier moves its date back',
      [
        [[1, 5, 90], 20],
        [[0, 5, 90], 5],
      ],
      { values: [1, 5, 90], reached: [20, 5, 5], latest: 20, first: 5 },
    ],
    [
      'a zero total dates from its earliest result',
      [
        [[0, 5, 90], 20],
        [[0, 1, 99], 7],
      ],
      { values: [0, 5, 90], reached: [7, 20, 20], latest: 20, first: 7 },
    ],
    [
      'the first positive result dates a total that was zero, even an earlier one',
      [
        [[0, 5, 90], 20],
        [[2, 1, 99], 7],
      ],
      { values: [2, 5, 90], reached: [7, 20, 20], latest: 20, first: 7 },
    ],
  ])('%s', (_name, steps, expected) => {
    expect(fold(steps)).toEqual(expected);
  });

  it('packs SUM totals at or past their max at max, whose time then does not count', () => {
    const state = fold([
      [[900, 7, 80], 10],
      [[900, 5, 90], 30],
    ]);
    expect(state.values).toEqual([1800, 7, 80]);
    const { points, achievedAt } = packState(keys, state);
    expect(points).toBe(1000 * 2 ** 19 + 7 * 2 ** 12 + (3600 - 80));
    // wins was last raised at 30, but it is full: the tuple dates from kills' and lap's 10.
    expect(achievedAt).toEqual(new Date(10));
  });

  it('dates a tuple whose keys are all full from the first result', () => {
    const sums: BoardKey[] = [
      { stat: 'wins', order: 'DESC', max: 3, aggregate: 'SUM' },
      { stat: 'kills', order: 'DESC', max: 3, aggregate: 'SUM' },
    ];
    const state = [
      [[2, 2], 40],
      [[2, 2], 25],
    ].reduce<KeyState | undefined>((st, [v, at]) => foldKeys(sums, st, v as number[], at as number), undefined)!;
    expect(packState(sums, state)).toEqual({ points: 3 * 4 + 3, achievedAt: new Date(25) });
  });

  it('stores as int8[] text and reads back', () => {
    const state = fold([[[3, 5, 90], 1_700_000_000_123]]);
    expect(stateOfRow(stateToRow(state))).toEqual(state);
  });
});

describe('foldKeys properties', () => {
  const resultArb = fc.tuple(
    fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })),
    fc.integer({ min: 0, max: 20 }).map((s) => s * 1000),
  );
  const stepsArb = fc.array(resultArb, { minLength: 1, maxLength: 10 });

  // The rules stated directly over all results.
  function closedForm(steps: readonly Step[]): KeyState {
    const times = steps.map(([, at]) => at);
    const wins = steps.reduce((s, [v]) => s + v[0]!, 0);
    const positive = steps.filter(([v]) => v[0]! > 0).map(([, at]) => at);
    const kills = Math.max(...steps.map(([v]) => v[1]!));
    const lap = Math.min(...steps.map(([v]) => v[2]!));
    return {
      values: [wins, kills, lap],
      reached: [
        wins > 0 ? Math.max(...positive) : Math.min(...times),
        Math.min(...steps.filter(([v]) => v[1] === kills).map(([, at]) => at)),
        Math.min(...steps.filter(([v]) => v[2] === lap).map(([, at]) => at)),
      ],
      latest: Math.max(...times),
      first: Math.min(...times),
    };
  }

  it('reaches the rules’ state whatever order the results arrive in', () => {
    fc.assert(
      fc.property(
        stepsArb.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s, { minLength: s.length }))),
        ([steps, shuffled]) => {
          expect(fold(steps)).toEqual(closedForm(steps));
          expect(fold(shuffled)).toEqual(closedForm(steps));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never lowers the encoded score, so ZADD GT can apply every step (full SUM keys included)', () => {
    // wins full at 4: the sums of the results below pass it often.
    const keys: BoardKey[] = [
      { stat: 'wins', order: 'DESC', max: 4, aggregate: 'SUM' },
      { stat: 'kills', order: 'DESC', max: 100 },
      { stat: 'lap', order: 'ASC', max: 3600 },
    ];
    const codec = createCodec({
      startsAt: new Date(0),
      order: 'DESC',
      split: { pointsBits: packedMax(keys).toString(2).length, timeBits: 22, timeUnitSeconds: 1 },
    });
    fc.assert(
      fc.property(stepsArb, (steps) => {
        let state: KeyState | undefined;
        let previous = -1;
        for (const [v, at] of steps) {
          state = foldKeys(keys, state, v, at);
          const { points, achievedAt } = packState(keys, state);
          const score = codec.encode(points, achievedAt);
          expect(score).toBeGreaterThanOrEqual(previous);
          previous = score;
        }
      }),
      { numRuns: 500 },
    );
  });
});
