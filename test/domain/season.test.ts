import { describe, expect, it } from 'vitest';
import { DomainError, isDomainError } from '../../src/domain/errors.js';
import {
  defaultSplit,
  seasonStatusAt,
  splitWithDefaults,
  validateSeasonDefinition,
  type SeasonDefinition,
  type SeasonStatus,
} from '../../src/domain/season.js';
import { thrown, utc } from './helpers.js';

const startsAt = utc('2026-01-01T00:00:00.000Z');
const base: SeasonDefinition = {
  name: 'Winter Cup',
  startsAt,
  endsAt: utc('2026-04-01T00:00:00.000Z'),
  scoring: 'BEST',
  order: 'DESC',
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
};
const after = (seconds: number) => new Date(startsAt.getTime() + seconds * 1000);
const split = (pointsBits: number, timeBits: number, timeUnitSeconds = 1) => ({
  pointsBits,
  timeBits,
  timeUnitSeconds,
});

describe('DomainError', () => {
  it('carries a code, a message and an optional field', () => {
    const e = new DomainError('BAD_USER_INPUT', 'name is empty', 'name');
    expect([e.code, e.message, e.field, e.name, e instanceof Error]).toEqual([
      'BAD_USER_INPUT',
      'name is empty',
      'name',
      'DomainError',
      true,
    ]);
  });

  it.each([
    [new DomainError('CONFLICT', 'x'), true],
    [new Error('x'), false],
    [{ code: 'CONFLICT', message: 'x' }, false],
    [undefined, false],
  ])('tells a DomainError from anything else (%s → %s)', (value, expected) => {
    expect(isDomainError(value)).toBe(expected);
  });
});

describe('defaultSplit', () => {
  it.each([
    ['BEST', split(21, 32, 1)],
    ['SUM', split(31, 22, 60)],
  ] as const)('gives %s seasons %j', (scoring, expected) => {
    expect(defaultSplit(scoring)).toEqual(expected);
  });
});

describe('validateSeasonDefinition', () => {
  it.each<[string, Partial<SeasonDefinition>, string, string]>([
    ['an empty name', { name: '' }, 'BAD_USER_INPUT', 'name'],
    ['a blank name', { name: '   ' }, 'BAD_USER_INPUT', 'name'],
    ['a 101-character name', { name: 'x'.repeat(101) }, 'BAD_USER_INPUT', 'name'],
    ['a name with a newline', { name: 'Cup\n2' }, 'BAD_USER_INPUT', 'name'],
    ['an invalid start', { startsAt: new Date(Number.NaN) }, 'BAD_USER_INPUT', 'startsAt'],
    ['an invalid end', { endsAt: new Date(Number.NaN) }, 'BAD_USER_INPUT', 'endsAt'],
    ['an end equal to the start', { endsAt: startsAt }, 'BAD_USER_INPUT', 'endsAt'],
    ['an end before the start', { endsAt: after(-1) }, 'BAD_USER_INPUT', 'endsAt'],
    ['0 max points', { maxPointsPerMatch: 0 }, 'BAD_USER_INPUT', 'maxPointsPerMatch'],
    ['negative max points', { maxPointsPerMatch: -5 }, 'BAD_USER_INPUT', 'maxPointsPerMatch'],
    ['fractional max points', { maxPointsPerMatch: 10.5 }, 'BAD_USER_INPUT', 'maxPointsPerMatch'],
    [
      'max points beyond a GraphQL Int',
      { maxPointsPerMatch: 2 ** 31, scoring: 'SUM' },
      'BAD_USER_INPUT',
      'maxPointsPerMatch',
    ],
    ['0 point bits', { split: split(0, 32) }, 'BAD_USER_INPUT', 'pointsBits'],
    ['32 point bits', { split: split(32, 21) }, 'BAD_USER_INPUT', 'pointsBits'],
    ['fractional point bits', { split: split(20.5, 32) }, 'BAD_USER_INPUT', 'pointsBits'],
    ['0 time bits', { split: split(21, 0) }, 'BAD_USER_INPUT', 'timeBits'],
    ['54 bits in all', { split: split(21, 33) }, 'BAD_USER_INPUT', 'timeBits'],
    ['a 0-second unit', { split: split(21, 32, 0) }, 'BAD_USER_INPUT', 'timeUnitSeconds'],
    ['a unit over a day', { split: split(21, 32, 86_401) }, 'BAD_USER_INPUT', 'timeUnitSeconds'],
    ['a fractional unit', { split: split(21, 32, 0.5) }, 'BAD_USER_INPUT', 'timeUnitSeconds'],
    ['SUM scoring in ASC order', { scoring: 'SUM', order: 'ASC' }, 'BAD_USER_INPUT', 'order'],
    [
      'a sharded LAST board (its scores may go down)',
      { scoring: 'LAST', shardBounds: [100] },
      'BAD_USER_INPUT',
      'shardBounds',
    ],
    [
      'max points past the default 21 point bits',
      { maxPointsPerMatch: 2 ** 21 },
      'POINTS_OUT_OF_RANGE',
      'maxPointsPerMatch',
    ],
    [
      'max points past 10 point bits',
      { maxPointsPerMatch: 1024, split: split(10, 40) },
      'POINTS_OUT_OF_RANGE',
      'maxPointsPerMatch',
    ],
    [
      'a season one second past 2^22 - 1 seconds',
      { endsAt: after(2 ** 22), split: split(21, 22) },
      'TIME_OUT_OF_RANGE',
      'endsAt',
    ],
    [
      'a season 1 ms past 2^22 - 1 minutes',
      { endsAt: new Date(after((2 ** 22 - 1) * 60).getTime() + 1), split: split(21, 22, 60) },
      'TIME_OUT_OF_RANGE',
      'endsAt',
    ],
    [
      'a 137-year season on the default split',
      { endsAt: utc('2163-01-01T00:00:00.000Z') },
      'TIME_OUT_OF_RANGE',
      'endsAt',
    ],
  ])('rejects %s', (_name, change, code, field) => {
    expect(thrown(() => validateSeasonDefinition({ ...base, ...change }))).toEqual({ code, field });
  });

  it.each<[string, Partial<SeasonDefinition>, unknown]>([
    ['gives a BEST season the BEST default split', {}, split(21, 32, 1)],
    ['gives a SUM season the SUM default split', { scoring: 'SUM' }, split(31, 22, 60)],
    ['keeps an explicit split', { split: split(26, 27, 1) }, split(26, 27, 1)],
    ['accepts a 100-character name', { name: 'é'.repeat(100) }, split(21, 32, 1)],
    [
      'fits max points of a full GraphQL Int in 31 bits',
      { maxPointsPerMatch: 2 ** 31 - 1, scoring: 'SUM' },
      split(31, 22, 60),
    ],
    ['fits max points of exactly 2^21 - 1 in the default split', { maxPointsPerMatch: 2 ** 21 - 1 }, split(21, 32, 1)],
    [
      'fits a season of exactly 2^22 - 1 seconds in 22 time bits',
      { endsAt: after(2 ** 22 - 1), split: split(21, 22) },
      split(21, 22, 1),
    ],
    [
      'fits a season of exactly 2^22 - 1 minutes in 22 bits of minutes',
      { endsAt: after((2 ** 22 - 1) * 60), split: split(21, 22, 60) },
      split(21, 22, 60),
    ],
    ['lets a split use all 53 bits', { maxPointsPerMatch: 1, split: split(1, 52) }, split(1, 52, 1)],
    ['allows a BEST season in ASC order', { order: 'ASC', rankStyle: 'COMPETITION' }, split(21, 32, 1)],
  ])('%s', (_name, change, expected) => {
    expect(validateSeasonDefinition({ ...base, ...change })).toEqual(expected);
  });
});

describe('seasonStatusAt', () => {
  const season = { status: 'ACTIVE' as SeasonStatus, startsAt, endsAt: base.endsAt };
  it.each<[SeasonStatus, string, SeasonStatus]>([
    ['SCHEDULED', '2025-12-31T23:59:59.999Z', 'SCHEDULED'],
    ['SCHEDULED', '2026-01-01T00:00:00.000Z', 'ACTIVE'],
    ['ACTIVE', '2026-01-01T00:01:00.000Z', 'ACTIVE'],
    ['ACTIVE', '2026-03-31T23:59:59.999Z', 'ACTIVE'],
    ['ACTIVE', '2026-04-01T00:00:00.000Z', 'CLOSED'],
    ['SCHEDULED', '2026-04-01T00:00:00.000Z', 'CLOSED'],
    ['CLOSED', '2026-01-01T00:01:00.000Z', 'CLOSED'],
    ['CLOSED', '2025-12-31T23:59:00.000Z', 'CLOSED'],
  ])('reads a stored %s season at %s as %s', (status, now, expected) => {
    expect(seasonStatusAt({ ...season, status }, utc(now))).toBe(expected);
  });
});

describe('splitWithDefaults', () => {
  it.each([
    ['BEST', {}, split(21, 32, 1)],
    ['SUM', {}, split(31, 22, 60)],
    ['BEST', { timeBits: 20 }, split(21, 20, 1)],
    // A partial SUM split keeps SUM's other defaults (it used to get BEST's).
    ['SUM', { timeBits: 20 }, split(31, 20, 60)],
    ['SUM', { pointsBits: 25, timeBits: null }, split(25, 22, 60)],
    ['SUM', { timeUnitSeconds: 1 }, split(31, 22, 1)],
    ['BEST', { pointsBits: 10, timeBits: 40, timeUnitSeconds: 3600 }, split(10, 40, 3600)],
  ] as const)('%s with %o → %o', (scoring, chosen, expected) => {
    expect(splitWithDefaults(scoring, chosen)).toEqual(expected);
  });

  it('gives exactly defaultSplit when nothing is chosen', () => {
    for (const scoring of ['BEST', 'SUM'] as const) expect(splitWithDefaults(scoring)).toEqual(defaultSplit(scoring));
  });
});
