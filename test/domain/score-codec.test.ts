import { describe, expect, it } from 'vitest';
import { createCodec } from '../../src/domain/score-codec.js';
import type { ScoreSplit, SortOrder } from '../../src/domain/season.js';
import { MAX_DATE_MS, thrown, utc } from './helpers.js';

const startsAt = utc('2026-01-01T00:00:00.000Z');
const BEST: ScoreSplit = { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 };
const codecFor = (split: ScoreSplit, order: SortOrder = 'DESC') => createCodec({ startsAt, order, split });
const at = (split: ScoreSplit, t: number, offsetMs = 0) =>
  new Date(startsAt.getTime() + t * split.timeUnitSeconds * 1000 + offsetMs);
// How Redis prints a double it holds (util.c d2string): integer-valued doubles as plain integers.
const redisPrints = (d: number): string => (Number.isInteger(d) ? BigInt(d).toString() : String(d));

describe('the seeds’ cases', () => {
  const codec = codecFor(BEST);
  const maxTime = codec.maxTime;

  it.each([
    [0, 0],
    [0, maxTime],
    [maxTime, 0],
    [maxTime, maxTime],
  ])('ranks 1 point at t=%i above 0 points at t=%i', (t1, t0) => {
    expect(codec.encode(1, at(BEST, t1))).toBeGreaterThan(codec.encode(0, at(BEST, t0)));
  });

  it.each([
    [5, 0, 1],
    [5, 41, 42],
    [codec.maxPoints, maxTime - 1, maxTime],
  ])('ranks %i points reached at t=%i above the same points at t=%i', (points, early, late) => {
    expect(codec.encode(points, at(BEST, early))).toBeGreaterThan(codec.encode(points, at(BEST, late)));
  });

  it('decodes MAX_POINTS unchanged after a round trip through a Redis double', () => {
    const achievedAt = at(BEST, 123_456);
    const score = codec.encode(codec.maxPoints, achievedAt);
    const stored = Number.parseFloat(codec.toRedis(score)); // what Redis keeps: a double
    expect(codec.decode(codec.fromRedis(redisPrints(stored)))).toEqual({ points: codec.maxPoints, achievedAt });
  });
});

describe('hand-computed composites of the default BEST split', () => {
  const codec = codecFor(BEST);
  it.each([
    ['0 points at maxTime', 0, 2 ** 32 - 1, 0],
    ['0 points at t=0', 0, 0, 4_294_967_295],
    ['1 point at t=0', 1, 0, 8_589_934_591],
    ['1 point at t=1', 1, 1, 8_589_934_590],
    ['max points at t=0', 2_097_151, 0, 9_007_199_254_740_991],
  ])('encodes %s (%i points, t=%i) as %i', (_name, points, t, score) => {
    expect(codec.encode(points, at(BEST, t))).toBe(score);
  });
});

const splits: Array<[string, ScoreSplit]> = [
  ['default BEST 21/32/1s', BEST],
  ['default SUM 31/22/60s', { pointsBits: 31, timeBits: 22, timeUnitSeconds: 60 }],
  ['1/52/1s', { pointsBits: 1, timeBits: 52, timeUnitSeconds: 1 }],
  ['31/22/1s', { pointsBits: 31, timeBits: 22, timeUnitSeconds: 1 }],
  ['26/27/1s', { pointsBits: 26, timeBits: 27, timeUnitSeconds: 1 }],
];

describe.each(splits)('the %s split', (_name, split) => {
  const codec = codecFor(split);
  const maxPoints = 2 ** split.pointsBits - 1;
  const maxTime = 2 ** split.timeBits - 1;
  // 2^52 seconds is past the JS Date range, so only representable offsets are tested.
  const representable = (t: number) => startsAt.getTime() + t * split.timeUnitSeconds * 1000 <= MAX_DATE_MS;
  const expected = (points: number, t: number) =>
    Number(BigInt(points) * 2n ** BigInt(split.timeBits) + BigInt(maxTime - t));

  it('exposes maxPoints and maxTime from the bit counts', () => {
    expect([codec.maxPoints, codec.maxTime, codec.maxScore]).toEqual([
      maxPoints,
      maxTime,
      2 ** (split.pointsBits + split.timeBits) - 1,
    ]);
  });

  it.each([0, 1, maxPoints - 1, maxPoints])('encodes %i points exactly as a safe integer below 2^53', (points) => {
    const score = codec.encode(points, at(split, 7));
    expect(score).toBe(expected(points, 7));
    expect(Number.isSafeInteger(score) && score < 2 ** 53).toBe(true);
    expect(codec.decode(score)).toEqual({ points, achievedAt: at(split, 7) });
  });

  it.each([maxPoints + 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects %s points', (points) => {
    expect(thrown(() => codec.encode(points, at(split, 0)))).toEqual({ code: 'POINTS_OUT_OF_RANGE', field: 'points' });
  });

  it.each([0, 1, maxTime - 1, maxTime].filter(representable))('encodes t=%i exactly', (t) => {
    const score = codec.encode(maxPoints, at(split, t));
    expect(score).toBe(expected(maxPoints, t));
    expect(Number.isSafeInteger(score) && score < 2 ** 53).toBe(true);
    expect(codec.decode(score)).toEqual({ points: maxPoints, achievedAt: at(split, t) });
  });

  it.each([
    ['t = maxTime + 1', at(split, maxTime + 1)],
    ['1 ms before the season start', new Date(startsAt.getTime() - 1)],
    ['an invalid date', new Date(Number.NaN)],
  ])('rejects a time at %s', (_name, time) => {
    expect(thrown(() => codec.encode(0, time))).toEqual({ code: 'TIME_OUT_OF_RANGE', field: 'endedAt' });
  });

  it('floors a time inside a unit to the unit start, and only there', () => {
    const unitMs = split.timeUnitSeconds * 1000;
    expect(codec.encode(1, at(split, 3, unitMs - 1))).toBe(codec.encode(1, at(split, 3)));
    expect(codec.decode(codec.encode(1, at(split, 3, unitMs - 1))).achievedAt).toEqual(at(split, 3));
  });

  it('brackets every composite of some points between pointsFloor and pointsCeil', () => {
    const p = Math.min(1, maxPoints);
    expect(codec.pointsFloor(p)).toBe(expected(p, maxTime));
    expect(codec.pointsCeil(p)).toBe(expected(p, 0));
    expect(codec.pointsFloor(p)).toBeLessThanOrEqual(codec.encode(p, at(split, 5)));
    expect(codec.pointsCeil(p)).toBeGreaterThanOrEqual(codec.encode(p, at(split, 5)));
  });
});

describe('ASC order', () => {
  const asc = codecFor(BEST, 'ASC');
  it.each([
    [0, 1],
    [1, 2],
    [1_048_575, 1_048_576],
    [asc.maxPoints - 1, asc.maxPoints],
  ])('ranks %i points above %i points', (fewer, more) => {
    expect(asc.encode(fewer, at(BEST, asc.maxTime))).toBeGreaterThan(asc.encode(more, at(BEST, 0)));
  });

  it.each([0, 1, 99, asc.maxPoints])('decodes %i points back', (points) => {
    expect(asc.decode(asc.encode(points, at(BEST, 9))).points).toBe(points);
  });

  it('stores the best ASC score, 0 points at t=0, as the largest composite', () => {
    expect(asc.encode(0, startsAt)).toBe(2 ** 53 - 1);
  });
});

describe('Redis strings', () => {
  const codec = codecFor(BEST);
  it.each([
    [0, '0'],
    [1, '1'],
    [2 ** 52, '4503599627370496'],
    [8e15, '8000000000000000'],
    [2 ** 53 - 1, '9007199254740991'],
  ])('writes %s as the integer string %s and reads it back', (score, s) => {
    expect(codec.toRedis(score)).toBe(s);
    expect(codec.fromRedis(s)).toBe(score);
  });

  it.each([-1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY])('refuses to write %s', (score) => {
    expect(thrown(() => codec.toRedis(score))).toBe('RangeError');
  });

  it.each([
    '',
    ' 1',
    '1 ',
    '+1',
    '-1',
    '-0',
    '01',
    '1.0',
    '1.5',
    '8e+15',
    '9.007199254741e+15',
    'inf',
    'nan',
    '0x10',
    '9007199254740992',
    '9007199254740993',
    '18014398509481984',
  ])('rejects the Redis reply %j', (s) => {
    expect(thrown(() => codec.fromRedis(s))).toBe('RangeError');
  });

  it.each([-1, 0.5, 2 ** 53, Number.NaN])('refuses to decode %s', (score) => {
    expect(thrown(() => codec.decode(score))).toBe('RangeError');
  });

  it('rejects a score above what a narrower split can produce', () => {
    const narrow = codecFor({ pointsBits: 10, timeBits: 10, timeUnitSeconds: 1 });
    expect(narrow.maxScore).toBe(2 ** 20 - 1);
    expect(thrown(() => narrow.decode(2 ** 20))).toBe('RangeError');
    expect(thrown(() => narrow.fromRedis('1048576'))).toBe('RangeError');
  });

  it('refuses to decode a time past the JS Date range instead of returning an invalid date', () => {
    const wide = codecFor({ pointsBits: 1, timeBits: 52, timeUnitSeconds: 1 });
    expect(thrown(() => wide.decode(0))).toBe('RangeError');
  });
});

describe('createCodec', () => {
  it.each([
    ['55 bits', { pointsBits: 31, timeBits: 24, timeUnitSeconds: 1 }],
    ['0 point bits', { pointsBits: 0, timeBits: 32, timeUnitSeconds: 1 }],
    ['0 time bits', { pointsBits: 21, timeBits: 0, timeUnitSeconds: 1 }],
    ['a fractional unit', { pointsBits: 21, timeBits: 32, timeUnitSeconds: 0.5 }],
  ])('refuses a corrupted split with %s', (_name, split) => {
    expect(thrown(() => codecFor(split))).toBe('RangeError');
  });
});
