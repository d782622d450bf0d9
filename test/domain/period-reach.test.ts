import { describe, expect, it } from 'vitest';
import { periodInReach } from '../../src/domain/windows.js';
import { utc } from './helpers.js';

// A season from Tuesday 2026-11-03 12:00 to Tuesday 2026-12-01 12:00 UTC; now: Monday 2026-11-16 10:00.
const season = { startsAt: utc('2026-11-03T12:00:00Z'), endsAt: utc('2026-12-01T12:00:00Z') };
const now = utc('2026-11-16T10:00:00Z');

describe('periodInReach', () => {
  it.each([
    ['DAY', '2026-11-02', false, 'the day before the season'],
    ['DAY', '2026-11-03', true, 'the first day (the season starts at noon)'],
    ['DAY', '2026-11-10', true, 'a past day of the season'],
    ['DAY', '2026-11-16', true, 'today'],
    ['DAY', '2026-11-17', true, 'tomorrow: one period ahead'],
    ['DAY', '2026-11-18', false, 'two days ahead'],
    ['DAY', '2027-01-01', false, 'after the season'],
    ['WEEK', '2026-W45', true, 'the week the season starts in'],
    ['WEEK', '2026-W44', false, 'the week before'],
    ['WEEK', '2026-W47', true, 'this week'],
    ['WEEK', '2026-W48', true, 'next week: one period ahead'],
    ['WEEK', '2026-W49', false, 'two weeks ahead (the season ends in it, but it is too far)'],
  ] as const)('%s %s: %s (%s)', (window, period, expected, _why) => {
    expect(periodInReach(window, period, season, now)).toBe(expected);
  });

  it('takes the last day of a season that ended', () => {
    const later = utc('2027-02-01T00:00:00Z');
    expect(periodInReach('DAY', '2026-12-01', season, later)).toBe(true);
    expect(periodInReach('DAY', '2026-12-02', season, later)).toBe(false);
  });
});
