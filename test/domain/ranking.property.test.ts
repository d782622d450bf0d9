import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyResult,
  compareBytes,
  mergeStandings,
  rankStandings,
  type StandingValue,
} from '../../src/domain/ranking.js';
import { createCodec } from '../../src/domain/score-codec.js';
import { defaultSplit, type RankStyle, type ScoringMode, type SortOrder } from '../../src/domain/season.js';

const startsAt = new Date('2026-01-01T00:00:00.000Z');
const RUNS = { numRuns: 500 };

// Small domains on purpose: ties in points and in time units must happen often.
const resultArb = fc.record({
  points: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2_000_000 })),
  endedAt: fc.integer({ min: 0, max: 600_000 }).map((ms) => new Date(startsAt.getTime() + ms)),
});

const boardArb = fc.constantFrom<[ScoringMode, SortOrder]>(
  ['BEST', 'DESC'],
  ['BEST', 'ASC'],
  ['SUM', 'DESC'],
  ['LAST', 'DESC'],
  ['LAST', 'ASC'],
);
// Whole seconds as the time unit (the default split's): LAST compares results by it.
const ruleOf = (scoring: ScoringMode, order: SortOrder) => ({ scoring, order, startsAt, split: defaultSplit(scoring) });

const resultsAndPermutation = fc
  .array(resultArb, { minLength: 1, maxLength: 12 })
  .chain((rs) => fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length })));

type Result = { points: number; endedAt: Date };

const fold = (rs: Result[], scoring: ScoringMode, order: SortOrder): StandingValue | undefined =>
  rs.reduce<StandingValue | undefined>((cur, r) => applyResult(cur, r, ruleOf(scoring, order)), undefined);

const ms = (d: Date) => d.getTime();

/** The standing rules written as a closed form over all results, independent of fold order. */
function expectedStanding(rs: Result[], scoring: ScoringMode, order: SortOrder): { points: number; at: number } {
  if (scoring === 'SUM') {
    const points = rs.reduce((s, r) => s + r.points, 0);
    const at =
      points > 0
        ? Math.max(...rs.filter((r) => r.points > 0).map((r) => ms(r.endedAt)))
        : Math.min(...rs.map((r) => ms(r.endedAt)));
    return { points, at };
  }
  // LAST: BEST over the results of the latest whole second (the time unit).
  const unit = (r: Result) => Math.floor((ms(r.endedAt) - ms(startsAt)) / 1000);
  const latest = Math.max(...rs.map(unit));
  const kept = scoring === 'LAST' ? rs.filter((r) => unit(r) === latest) : rs;
  const all = kept.map((r) => r.points);
  const points = order === 'DESC' ? Math.max(...all) : Math.min(...all);
  return { points, at: Math.min(...kept.filter((r) => r.points === points).map((r) => ms(r.endedAt))) };
}

describe('applyResult properties', () => {
  it('reaches the same standing whatever order the results arrive in', () => {
    fc.assert(
      fc.property(boardArb, resultsAndPermutation, ([scoring, order], [rs, shuffled]) => {
        const a = fold(rs, scoring, order);
        const b = fold(shuffled, scoring, order);
        expect(b).toEqual(a);
        expect({ points: a?.points, at: a && ms(a.achievedAt) }).toEqual(expectedStanding(rs, scoring, order));
      }),
      RUNS,
    );
  });

  it('merges the standings of two halves of the results into the standing of all of them', () => {
    const split = fc
      .array(resultArb, { minLength: 2, maxLength: 12 })
      .chain((rs) => fc.tuple(fc.constant(rs), fc.integer({ min: 1, max: rs.length - 1 })));
    fc.assert(
      fc.property(boardArb, split, ([scoring, order], [rs, cut]) => {
        const head = fold(rs.slice(0, cut), scoring, order)!;
        const tail = fold(rs.slice(cut), scoring, order)!;
        expect(mergeStandings(head, tail, ruleOf(scoring, order))).toEqual(fold(rs, scoring, order));
      }),
      RUNS,
    );
  });

  it('never lowers the encoded score of BEST and SUM, so ZADD GT can apply every step', () => {
    const notLast = boardArb.filter(([scoring]) => scoring !== 'LAST');
    fc.assert(
      fc.property(notLast, fc.array(resultArb, { minLength: 1, maxLength: 12 }), ([scoring, order], rs) => {
        const codec = createCodec({ startsAt, order, split: defaultSplit(scoring) });
        let current: StandingValue | undefined;
        let previous = -1;
        for (const r of rs) {
          current = applyResult(current, r, ruleOf(scoring, order));
          const score = codec.encode(current.points, current.achievedAt);
          expect(score).toBeGreaterThanOrEqual(previous);
          previous = score;
        }
      }),
      RUNS,
    );
  });

  it('moves a LAST score only where Redis’s rule (lastReplaces.lua) lets it: later unit, or same unit and higher', () => {
    const lastArb = fc.constantFrom<SortOrder>('DESC', 'ASC');
    fc.assert(
      fc.property(lastArb, fc.array(resultArb, { minLength: 1, maxLength: 12 }), (order, rs) => {
        const split = defaultSplit('LAST');
        const codec = createCodec({ startsAt, order, split });
        const step = 2 ** split.timeBits;
        // lastReplaces.lua, in numbers: fewer low bits is a later unit.
        const replaces = (s: number, h: number) => s % step < h % step || (s % step === h % step && s > h);
        let current: StandingValue | undefined;
        let held: number | undefined;
        for (const r of rs) {
          current = applyResult(current, r, ruleOf('LAST', order));
          const score = codec.encode(current.points, current.achievedAt);
          // The standing after the step is what Redis holds after writing it by its rule.
          if (held === undefined || replaces(score, held)) held = score;
          expect(held).toBe(score);
          // And the rule never lets the older standing back.
          const older = codec.encode(r.points, r.endedAt);
          if (older !== score) expect(replaces(older, score)).toBe(false);
        }
      }),
      RUNS,
    );
  });
});

describe('rankStandings agrees with what Redis would do with encoded scores', () => {
  const standingsArb = fc.uniqueArray(
    fc.record({
      playerId: fc.oneof(
        fc.integer({ min: 1, max: 120 }).map(String),
        fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String),
      ),
      points: fc.integer({ min: 0, max: 6 }),
      achievedAt: fc.integer({ min: 0, max: 300_000 }).map((t) => new Date(startsAt.getTime() + t)),
    }),
    { selector: (s) => s.playerId, maxLength: 30 },
  );
  const styleArb = fc.constantFrom<RankStyle>('ORDINAL', 'COMPETITION');

  it('orders like ZREVRANGE: composite descending, then member bytes descending', () => {
    fc.assert(
      fc.property(
        standingsArb,
        fc.constantFrom<SortOrder>('DESC', 'ASC'),
        styleArb,
        fc.constantFrom(1, 60),
        (standings, order, style, unit) => {
          const codec = createCodec({
            startsAt,
            order,
            split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: unit },
          });
          const redis = standings
            .map((s) => ({ id: s.playerId, score: codec.encode(s.points, s.achievedAt) }))
            .sort((a, b) => b.score - a.score || compareBytes(b.id, a.id))
            .map((e) => e.id);
          expect(rankStandings(standings, order, style, unit, startsAt).map((r) => r.playerId)).toEqual(redis);
        },
      ),
      RUNS,
    );
  });

  it('gives ORDINAL rank = ZREVRANK + 1 and COMPETITION rank = 1 + ZCOUNT above pointsCeil', () => {
    fc.assert(
      fc.property(standingsArb, fc.constantFrom<SortOrder>('DESC', 'ASC'), (standings, order) => {
        const codec = createCodec({ startsAt, order, split: defaultSplit('BEST') });
        const scores = standings.map((s) => codec.encode(s.points, s.achievedAt));
        const ordinal = rankStandings(standings, order, 'ORDINAL', 1, startsAt);
        ordinal.forEach((r, i) => expect(r.rank).toBe(i + 1));
        for (const r of rankStandings(standings, order, 'COMPETITION', 1, startsAt)) {
          const above = scores.filter((s) => s > codec.pointsCeil(r.points)).length;
          expect(r.rank).toBe(1 + above);
        }
      }),
      RUNS,
    );
  });
});
