import fc from 'fast-check';
import { isDomainError } from '../../src/domain/errors.js';
import type { RankStyle, ScoreSplit, Season } from '../../src/domain/season.js';

/** What a call threw, reduced to what callers may branch on; 'no error' when it returned. */
export function thrown(fn: () => unknown): { code: string; field: string | undefined } | string {
  try {
    fn();
  } catch (e) {
    if (isDomainError(e)) return { code: e.code, field: e.field };
    return e instanceof Error ? e.constructor.name : String(e);
  }
  return 'no error';
}

/** A UTC instant written compactly in tables. */
export const utc = (iso: string): Date => new Date(iso);

/** Latest instant a JS Date can hold. */
export const MAX_DATE_MS = 8_640_000_000_000_000;

/** Integers in min..max biased towards bit boundaries (2^k - 1, 2^k, 2^k + 1) and the ends. */
export function boundaryBiasedInt(min: number, max: number): fc.Arbitrary<number> {
  const edges = new Set<number>([min, min + 1, max - 1, max]);
  for (let k = 0; k <= 53; k++) for (const d of [-1, 0, 1]) edges.add(2 ** k + d);
  const inRange = [...edges].filter((n) => Number.isSafeInteger(n) && n >= min && n <= max);
  const uniform = fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
  return fc.oneof(uniform, fc.constantFrom(...inRange));
}

/** Any split a season may validly use (pointsBits 1..31, the rest of 53 bits or less for time). */
export const splitArb: fc.Arbitrary<ScoreSplit> = fc.integer({ min: 1, max: 31 }).chain((pointsBits) =>
  fc.record({
    pointsBits: fc.constant(pointsBits),
    timeBits: fc.oneof(fc.constant(53 - pointsBits), fc.integer({ min: 1, max: 53 - pointsBits })),
    timeUnitSeconds: fc.oneof(fc.constantFrom(1, 60, 3600, 86_400), fc.integer({ min: 1, max: 86_400 })),
  }),
);

/** A season with a 10-bit score (points = floor(score / 16), 16 time units of a second): small boards in tests. */
export const smallSeason = (rankStyle: RankStyle): Season => ({
  id: 1,
  name: 'model',
  startsAt: new Date('2026-01-01T00:00:00Z'),
  endsAt: new Date('2026-12-31T00:00:00Z'),
  status: 'ACTIVE',
  scoring: 'BEST',
  order: 'DESC',
  rankStyle,
  maxPointsPerMatch: 63,
  split: { pointsBits: 6, timeBits: 4, timeUnitSeconds: 1 },
});
