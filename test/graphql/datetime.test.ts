import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/graphql/scalars.js';

const code = (value: unknown) => {
  try {
    return parseDateTime(value).toISOString();
  } catch (err) {
    return (err as { extensions?: { code?: string } }).extensions?.code;
  }
};

describe('the DateTime scalar', () => {
  it.each([
    ['2026-11-30T12:00:00Z', '2026-11-30T12:00:00.000Z'],
    ['2026-11-30T12:00Z', '2026-11-30T12:00:00.000Z'],
    ['2026-11-30T12:00:00.123456789Z', '2026-11-30T12:00:00.123Z'],
    ['2026-11-30T12:00:00+02:00', '2026-11-30T10:00:00.000Z'],
    ['2026-11-30T23:59:59-05:30', '2026-12-01T05:29:59.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['2026-12-31T23:59:59Z', '2026-12-31T23:59:59.000Z'],
  ])('takes %s as %s', (input, iso) => {
    expect(code(input)).toBe(iso);
  });

  it.each([
    ['2026-11-31T00:00:00Z', 'November 31st (Date makes it December 1st)'],
    ['2026-02-29T00:00:00Z', 'February 29th of a common year'],
    ['1900-02-29T00:00:00Z', 'February 29th of a century that is no leap year'],
    ['2026-04-31T00:00:00Z', 'April 31st'],
    ['2026-11-30T24:00:00Z', 'hour 24 (Date rolls it over)'],
    ['2026-11-30T12:60:00Z', 'minute 60'],
    ['2026-11-30T12:00:60Z', 'second 60'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-00-10T00:00:00Z', 'month 0'],
    ['2026-11-00T00:00:00Z', 'day 0'],
    ['2026-11-30T12:00:00+24:00', 'a zone of 24 hours'],
    ['2026-11-30T12:00:00+02:60', 'a zone minute of 60'],
    ['2026-11-30T12:00:00', 'no zone'],
    ['2026-11-30', 'a date only'],
    ['2026-11-30 12:00:00Z', 'a space for T'],
    ['', 'empty'],
    [1764504000000, 'a number'],
    [null, 'null'],
  ])('refuses %s (%s) with BAD_USER_INPUT', (input, _why) => {
    expect(code(input)).toBe('BAD_USER_INPUT');
  });
});
