import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../../src/domain/score-codec.js';
import type { ScoreSplit, SortOrder } from '../../src/domain/season.js';
import { boundaryBiasedInt, MAX_DATE_MS, splitArb, thrown } from './helpers.js';

const RUNS = { numRuns: 2000 };

/** A season start, a split and an order, with the ranges of points and time units it can encode. */
const seasonArb = fc
  .record({
    split: splitArb,
    order: fc.constantFrom<SortOrder>('DESC', 'ASC'),
    startMs: fc.integer({ min: -2_208_988_800_000, max: 4_102_444_800_000 }), // 1900..2100
  })
  .map(({ split, order, startMs }) => {
    const unitMs = split.timeUnitSeconds * 1000;
    // Wide splits reach past the JS Date range; t stops at the last representable unit.
    const lastT = Math.min(2 ** split.timeBits - 1, Math.floor((MAX_DATE_MS - startMs) / unitMs) - 1);
    return { split, order, startsAt: new Date(startMs), unitMs, maxPoints: 2 ** split.pointsBits - 1, lastT };
  });

type SeasonCase = typeof seasonArb extends fc.Arbitrary<infer T> ? T : never;

const entryArb = (s: SeasonCase) =>
  fc.record({
    points: boundaryBiasedInt(0, s.maxPoints),
    t: boundaryBiasedInt(0, s.lastT),
    offsetMs: fc.integer({ min: 0, max: s.unitMs - 1 }),
  });

const timeOf = (s: SeasonCase, t: number, offsetMs: number) => new Date(s.startsAt.getTime() + t * s.unitMs + offsetMs);

describe('score codec properties', () => {
  it('orders composites exactly like points (by the season order), then earlier time unit', () => {
    fc.assert(
      fc.property(
        seasonArb.chain((s) => fc.tuple(fc.constant(s), entryArb(s), entryArb(s))),
        ([s, a, b]) => {
          const codec = createCodec(s);
          const ea = codec.encode(a.points, timeOf(s, a.t, a.offsetMs));
          const eb = codec.encode(b.points, timeOf(s, b.t, b.offsetMs));
          const byPoints = s.order === 'DESC' ? a.points - b.points : b.points - a.points;
          const expected = Math.sign(byPoints || b.t - a.t);
          expect(Math.sign(ea - eb)).toBe(expected);
        },
      ),
      RUNS,
    );
  });

  it('decodes every encoded standing back to its points and unit-aligned time', () => {
    fc.assert(
      fc.property(
        seasonArb.chain((s) => fc.tuple(fc.constant(s), entryArb(s))),
        ([s, e]) => {
          const codec = createCodec(s);
          const score = codec.encode(e.points, timeOf(s, e.t, 0));
          expect(Number.isSafeInteger(score) && score >= 0 && score <= codec.maxScore).toBe(true);
          expect(codec.decode(score)).toEqual({ points: e.points, achievedAt: timeOf(s, e.t, 0) });
          // Off a unit boundary the time comes back floored to the unit, the one documented loss.
          expect(codec.decode(codec.encode(e.points, timeOf(s, e.t, e.offsetMs)))).toEqual({
            points: e.points,
            achievedAt: timeOf(s, e.t, 0),
          });
        },
      ),
      RUNS,
    );
  });

  it('encodes a time given as epoch ms exactly like the same Date, errors included', () => {
    const anyArb = seasonArb.chain((s) =>
      fc.tuple(
        fc.constant(s),
        fc.oneof(boundaryBiasedInt(0, s.maxPoints), fc.constantFrom(-1, s.maxPoints + 1, 0.5)),
        fc.oneof(
          entryArb(s).map((e) => timeOf(s, e.t, e.offsetMs).getTime()),
          fc.constantFrom(s.startsAt.getTime() - 1, s.startsAt.getTime() + (s.lastT + 2) * s.unitMs, Number.NaN),
        ),
      ),
    );
    fc.assert(
      fc.property(anyArb, ([s, points, ms]) => {
        const codec = createCodec(s);
        const outcome = (f: () => number) => {
          let score: number | undefined;
          const error = thrown(() => (score = f()));
          return { score, error };
        };
        expect(outcome(() => codec.encodeMs(points, ms))).toEqual(outcome(() => codec.encode(points, new Date(ms))));
      }),
      RUNS,
    );
  });

  it('keeps every composite of some points between pointsFloor and pointsCeil, and no other', () => {
    fc.assert(
      fc.property(
        seasonArb.chain((s) => fc.tuple(fc.constant(s), entryArb(s))),
        ([s, e]) => {
          const codec = createCodec(s);
          const score = codec.encode(e.points, timeOf(s, e.t, e.offsetMs));
          expect(codec.pointsFloor(e.points)).toBeLessThanOrEqual(score);
          expect(codec.pointsCeil(e.points)).toBeGreaterThanOrEqual(score);
          expect(codec.pointsCeil(e.points) - codec.pointsFloor(e.points)).toBe(codec.maxTime);
        },
      ),
      RUNS,
    );
  });

  it('writes any score as a decimal integer string that survives a Redis double', () => {
    const scoreArb = splitArb.chain((split: ScoreSplit) =>
      fc.tuple(fc.constant(split), boundaryBiasedInt(0, 2 ** (split.pointsBits + split.timeBits) - 1)),
    );
    fc.assert(
      fc.property(scoreArb, ([split, score]) => {
        const codec = createCodec({ startsAt: new Date(0), order: 'DESC', split });
        const s = codec.toRedis(score);
        expect(s).toMatch(/^(0|[1-9][0-9]*)$/);
        expect(s.includes('e') || s.includes('.')).toBe(false);
        expect(Number(s)).toBe(score);
        // Redis parses with strtod and prints integer-valued doubles as integers.
        expect(codec.fromRedis(BigInt(Number.parseFloat(s)).toString())).toBe(score);
      }),
      RUNS,
    );
  });
});
