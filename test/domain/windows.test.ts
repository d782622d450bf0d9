import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Window } from '../../src/domain/season.js';
import { dayPeriod, isValidPeriod, periodEnd, periodOf, periodStart, weekPeriod } from '../../src/domain/windows.js';
import { thrown, utc } from './helpers.js';

// Expected values were produced by PostgreSQL 15:
// to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD') and to_char(ts AT TIME ZONE 'UTC', 'IYYY-"W"IW').
describe('a reset offset', () => {
  it.each<[Window, string, number, string]>([
    ['DAY', '2026-12-06T03:59:59.999Z', 240, '2026-12-05'],
    ['DAY', '2026-12-06T04:00:00.000Z', 240, '2026-12-06'],
    ['WEEK', '2026-12-07T03:59:59.999Z', 240, '2026-W49'],
    ['WEEK', '2026-12-07T04:00:00.000Z', 240, '2026-W50'],
    ['MONTH', '2027-01-01T03:00:00.000Z', 240, '2026-12'],
    ['MONTH', '2027-01-01T04:00:00.000Z', 240, '2027-01'],
    ['MONTH', '2026-03-31T23:59:59.999Z', 0, '2026-03'],
    ['SEASON', '2026-12-06T03:00:00.000Z', 240, ''],
  ])('puts %s %s with an offset of %i min in %j', (window, at, minutes, period) => {
    expect(periodOf(window, new Date(at), minutes * 60_000)).toBe(period);
  });

  it('starts and ends each period the offset after its UTC midnight', () => {
    const offset = 240 * 60_000;
    expect(periodStart('DAY', '2026-12-06', seasonStart, offset).toISOString()).toBe('2026-12-06T04:00:00.000Z');
    expect(periodEnd('MONTH', '2026-12', seasonEnd, offset).toISOString()).toBe('2027-01-01T04:00:00.000Z');
    expect(periodEnd('WEEK', '2026-W49', seasonEnd, offset).toISOString()).toBe('2026-12-07T04:00:00.000Z');
  });
});

describe('dayPeriod and weekPeriod', () => {
  it.each([
    ['2020-12-31T23:59:59.999Z', '2020-12-31', '2020-W53'],
    ['2021-01-01T00:00:00.000Z', '2021-01-01', '2020-W53'],
    ['2021-01-03T23:59:59.999Z', '2021-01-03', '2020-W53'],
    ['2021-01-04T00:00:00.000Z', '2021-01-04', '2021-W01'],
    ['2024-02-28T23:59:59.999Z', '2024-02-28', '2024-W09'],
    ['2024-02-29T00:00:00.000Z', '2024-02-29', '2024-W09'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29', '2024-W09'],
    ['2024-03-01T00:00:00.000Z', '2024-03-01', '2024-W09'],
    ['2024-12-29T23:59:59.999Z', '2024-12-29', '2024-W52'],
    ['2024-12-30T00:00:00.000Z', '2024-12-30', '2025-W01'],
    ['2024-12-31T23:59:59.999Z', '2024-12-31', '2025-W01'],
    ['2025-01-01T00:00:00.000Z', '2025-01-01', '2025-W01'],
    ['2025-12-31T12:00:00.000Z', '2025-12-31', '2026-W01'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01', '2026-W01'],
    ['2026-03-01T00:00:00.000Z', '2026-03-01', '2026-W09'],
    ['2026-12-28T00:00:00.000Z', '2026-12-28', '2026-W53'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31', '2026-W53'],
    ['2027-01-01T00:00:00.000Z', '2027-01-01', '2026-W53'],
    ['2027-01-03T23:59:59.999Z', '2027-01-03', '2026-W53'],
    ['2027-01-04T00:00:00.000Z', '2027-01-04', '2027-W01'],
    ['1970-01-01T00:00:00.000Z', '1970-01-01', '1970-W01'],
    ['2000-01-01T00:00:00.000Z', '2000-01-01', '1999-W52'],
    ['2032-12-31T00:00:00.000Z', '2032-12-31', '2032-W53'],
  ])('puts %s in day %s and week %s', (iso, day, week) => {
    expect([dayPeriod(utc(iso)), weekPeriod(utc(iso))]).toEqual([day, week]);
    expect([periodOf('DAY', utc(iso)), periodOf('WEEK', utc(iso)), periodOf('SEASON', utc(iso))]).toEqual([
      day,
      week,
      '',
    ]);
  });

  // Node re-reads TZ when it changes, so this catches any local-time getter (getDate, getDay...).
  it.each(['Pacific/Kiritimati', 'America/St_Johns', 'Pacific/Pago_Pago'])('ignores the local time zone %s', (zone) => {
    const saved = process.env.TZ;
    process.env.TZ = zone;
    try {
      const at = utc('2026-12-31T23:59:59.999Z');
      expect([dayPeriod(at), weekPeriod(at), periodStart('WEEK', '2027-W01', at).toISOString()]).toEqual([
        '2026-12-31',
        '2026-W53',
        '2027-01-04T00:00:00.000Z',
      ]);
      expect([dayPeriod(utc('2027-01-04T00:00:00.000Z')), weekPeriod(utc('2027-01-04T00:00:00.000Z'))]).toEqual([
        '2027-01-04',
        '2027-W01',
      ]);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('uses UTC whatever the offset the instant was written with', () => {
    expect(dayPeriod(utc('2026-01-01T01:30:00+02:00'))).toBe('2025-12-31');
  });

  it('refuses an invalid date', () => {
    expect(thrown(() => dayPeriod(new Date(Number.NaN)))).toBe('RangeError');
    expect(thrown(() => weekPeriod(new Date(Number.NaN)))).toBe('RangeError');
  });
});

const seasonStart = utc('2026-01-07T15:00:00.000Z');
const seasonEnd = utc('2026-04-01T00:00:00.000Z');

// A reset offset: 0, or any minute of the day (a daily board turning over at 04:00 UTC is 240).
const offsetMs = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 1439 }).map((m) => m * 60_000),
);

describe('periodStart and periodEnd', () => {
  it.each<[Window, string, string, string]>([
    ['SEASON', '', '2026-01-07T15:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['DAY', '2024-02-29', '2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['DAY', '2026-12-31', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['WEEK', '2026-W53', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['WEEK', '2025-W01', '2024-12-30T00:00:00.000Z', '2025-01-06T00:00:00.000Z'],
    ['WEEK', '2020-W53', '2020-12-28T00:00:00.000Z', '2021-01-04T00:00:00.000Z'],
    ['WEEK', '2026-W02', '2026-01-05T00:00:00.000Z', '2026-01-12T00:00:00.000Z'],
    ['MONTH', '2024-02', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['MONTH', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ])('bounds %s %j by [%s, %s)', (window, period, start, end) => {
    expect(periodStart(window, period, seasonStart).toISOString()).toBe(start);
    expect(periodEnd(window, period, seasonEnd).toISOString()).toBe(end);
  });

  it.each<[Window, string]>([
    ['DAY', '2026-02-30'],
    ['DAY', '2025-02-29'],
    ['DAY', '2026-13-01'],
    ['DAY', '2026-1-01'],
    ['DAY', '2026-01-01T00:00:00Z'],
    ['DAY', ''],
    ['WEEK', '2025-W53'],
    ['WEEK', '2026-W00'],
    ['WEEK', '2026-W54'],
    ['WEEK', '2026-W1'],
    ['WEEK', '2026-w01'],
    ['WEEK', '2026-01-01'],
    ['MONTH', '2026-13'],
    ['MONTH', '2026-00'],
    ['MONTH', '2026-1'],
    ['MONTH', '2026-01-01'],
    ['SEASON', '2026-01-01'],
  ])('rejects the %s period %j', (window, period) => {
    expect(isValidPeriod(window, period)).toBe(false);
    if (window !== 'SEASON') expect(thrown(() => periodStart(window, period, seasonStart))).toBe('RangeError');
  });

  it.each<[Window, string]>([
    ['DAY', '2024-02-29'],
    ['WEEK', '2026-W53'],
    ['WEEK', '2020-W53'],
    ['MONTH', '2026-02'],
    ['SEASON', ''],
  ])('accepts the %s period %j', (window, period) => {
    expect(isValidPeriod(window, period)).toBe(true);
  });

  it('holds every instant inside the period it belongs to, and the period end in the next one', () => {
    const instant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2300, 0, 1) }).map((ms) => new Date(ms));
    fc.assert(
      fc.property(instant, fc.constantFrom<Window>('DAY', 'WEEK', 'MONTH'), offsetMs, (at, window, offset) => {
        const period = periodOf(window, at, offset);
        const start = periodStart(window, period, seasonStart, offset);
        const end = periodEnd(window, period, seasonEnd, offset);
        expect(start.getTime()).toBeLessThanOrEqual(at.getTime());
        expect(at.getTime()).toBeLessThan(end.getTime());
        expect(periodOf(window, start, offset)).toBe(period);
        expect(periodOf(window, new Date(end.getTime() - 1), offset)).toBe(period);
        expect(periodOf(window, end, offset)).not.toBe(period);
        // The period starts at its named UTC midnight plus the offset.
        expect(start.getTime() - offset).toBe(periodStart(window, period, seasonStart).getTime());
        expect(isValidPeriod(window, period)).toBe(true);
        const named = new Date(start.getTime() - offset);
        expect(named.toISOString().slice(10)).toBe('T00:00:00.000Z');
        if (window === 'WEEK') expect(named.getUTCDay()).toBe(1);
        if (window === 'MONTH') expect(named.getUTCDate()).toBe(1);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('CUSTOM periods: spans of periodHours from the anchor (the season start)', () => {
  const custom = (hours: number, anchor = '2026-12-01T04:00:00.000Z', offsetMs = 0) => ({
    offsetMs,
    anchor: new Date(anchor),
    periodHours: hours,
  });

  it.each<[hours: number, anchor: string, at: string, period: string, start: string, end: string]>([
    // N = 6 from 04:00: 04:00, 10:00, 16:00, 22:00, 04:00 ...
    [
      6,
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T04:00',
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T10:00:00.000Z',
    ],
    [
      6,
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T09:59:59.999Z',
      '2026-12-01T04:00',
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T10:00:00.000Z',
    ],
    [
      6,
      '2026-12-01T04:00:00.000Z',
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T10:00',
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T16:00:00.000Z',
    ],
    [
      6,
      '2026-12-01T04:00:00.000Z',
      '2026-12-06T03:59:59.999Z',
      '2026-12-05T22:00',
      '2026-12-05T22:00:00.000Z',
      '2026-12-06T04:00:00.000Z',
    ],
    // N = 1
    [
      1,
      '2026-12-01T04:30:00.000Z',
      '2026-12-01T05:29:59.999Z',
      '2026-12-01T04:30',
      '2026-12-01T04:30:00.000Z',
      '2026-12-01T05:30:00.000Z',
    ],
    [
      1,
      '2026-12-01T04:30:00.000Z',
      '2026-12-01T05:30:00.000Z',
      '2026-12-01T05:30',
      '2026-12-01T05:30:00.000Z',
      '2026-12-01T06:30:00.000Z',
    ],
    // N = 24: days from the anchor's time of day, not UTC midnight
    [
      24,
      '2026-12-01T04:00:00.000Z',
      '2026-12-03T03:59:59.999Z',
      '2026-12-02T04:00',
      '2026-12-02T04:00:00.000Z',
      '2026-12-03T04:00:00.000Z',
    ],
    // N = 168: weeks from the anchor's weekday (a Tuesday), not ISO Mondays
    [
      168,
      '2026-12-01T04:00:00.000Z',
      '2026-12-14T12:00:00.000Z',
      '2026-12-08T04:00',
      '2026-12-08T04:00:00.000Z',
      '2026-12-15T04:00:00.000Z',
    ],
    // A period crossing a year: 72 h from 2026-12-30 00:00
    [
      72,
      '2026-12-24T00:00:00.000Z',
      '2027-01-01T12:00:00.000Z',
      '2026-12-30T00:00',
      '2026-12-30T00:00:00.000Z',
      '2027-01-02T00:00:00.000Z',
    ],
    // The largest span: a leap year
    [
      8784,
      '2027-06-01T00:00:00.000Z',
      '2028-05-31T23:59:59.999Z',
      '2027-06-01T00:00',
      '2027-06-01T00:00:00.000Z',
      '2028-06-01T00:00:00.000Z',
    ],
    // An anchor with seconds: every start keeps them, the name drops them
    [
      6,
      '2026-12-01T04:00:30.000Z',
      '2026-12-01T10:00:29.999Z',
      '2026-12-01T04:00',
      '2026-12-01T04:00:30.000Z',
      '2026-12-01T10:00:30.000Z',
    ],
  ])('every %i h from %s: %s is in %s [%s, %s)', (hours, anchor, at, period, start, end) => {
    const t = custom(hours, anchor);
    expect(periodOf('CUSTOM', new Date(at), t)).toBe(period);
    expect(isValidPeriod('CUSTOM', period, t)).toBe(true);
    expect(periodStart('CUSTOM', period, seasonStart, t).toISOString()).toBe(start);
    expect(periodEnd('CUSTOM', period, seasonEnd, t).toISOString()).toBe(end);
  });

  it('ignores the reset offset', () => {
    expect(periodOf('CUSTOM', new Date('2026-12-01T10:00:00.000Z'), custom(6, undefined, 240 * 60_000))).toBe(
      '2026-12-01T10:00',
    );
  });

  it.each<[hours: number, period: string]>([
    [6, '2026-12-01T05:00'], // not aligned to the anchor
    [6, '2026-12-01T04:01'],
    [24, '2026-12-02T00:00'],
    [6, '2026-12-01T4:00'], // not canonical
    [6, '2026-12-01 04:00'],
    [6, '2026-12-01T04:00:00'],
    [6, '2026-12-01'],
    [6, '2026-02-30T04:00'], // no such day
    [6, '2026-12-01T28:00'],
    [6, '2026-12-01T04:60'],
    [6, ''],
  ])('every %i h: refuses %j', (hours, period) => {
    expect(isValidPeriod('CUSTOM', period, custom(hours))).toBe(false);
    expect(thrown(() => periodStart('CUSTOM', period, seasonStart, custom(hours)))).toBe('RangeError');
  });

  it('needs its span and anchor; without them a name is only checked to be a canonical minute', () => {
    expect(thrown(() => periodOf('CUSTOM', new Date('2026-12-01T04:00:00.000Z')))).toBe('RangeError');
    expect(isValidPeriod('CUSTOM', '2026-12-01T05:00')).toBe(true);
    expect(isValidPeriod('CUSTOM', '2026-12-01T05:60')).toBe(false);
  });

  it('tiles time: every instant is in its period, the end in the next, each name valid and aligned', () => {
    const anchorMs = Date.UTC(2026, 11, 1, 4);
    fc.assert(
      fc.property(
        fc.integer({ min: anchorMs, max: Date.UTC(2030, 0, 1) }),
        fc.constantFrom(1, 5, 6, 24, 168, 8784),
        (ms, hours) => {
          const t = custom(hours);
          const at = new Date(ms);
          const period = periodOf('CUSTOM', at, t);
          const start = periodStart('CUSTOM', period, seasonStart, t);
          const end = periodEnd('CUSTOM', period, seasonEnd, t);
          expect(start.getTime()).toBeLessThanOrEqual(ms);
          expect(ms).toBeLessThan(end.getTime());
          expect((start.getTime() - anchorMs) % (hours * 3_600_000)).toBe(0);
          expect(periodOf('CUSTOM', end, t)).not.toBe(period);
          expect(periodOf('CUSTOM', new Date(end.getTime() - 1), t)).toBe(period);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
