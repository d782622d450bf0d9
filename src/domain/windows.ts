import type { Window } from './season.js';

// Periods are the strings PostgreSQL produces, so a rebuild from SQL lands on the same Redis keys:
//   DAY   = to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD')
//   WEEK  = to_char(ts AT TIME ZONE 'UTC', 'IYYY-"W"IW')   (ISO week-numbering year and week)
//   MONTH = to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM')
// A result belongs to the window of its event time (the match's endedAt), never its arrival.
// With a reset offset (a season's resetOffsetMinutes, `offsetMs` below) every period starts that
// long after its UTC midnight and is named by that midnight's label: a DAY board that turns over at
// 04:00 UTC holds 2026-12-06 04:00 .. 2026-12-07 04:00 as '2026-12-06'.

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const DAY_PERIOD = /^(\d{4})-(\d{2})-(\d{2})$/;
const WEEK_PERIOD = /^(\d{4})-W(\d{2})$/;
const MONTH_PERIOD = /^(\d{4})-(\d{2})$/;

/** The windows whose periods turn over: all but SEASON. */
export type PeriodWindow = Exclude<Window, 'SEASON'>;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function assertDate(at: Date): void {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new RangeError('invalid date');
}

// Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear does not.
function utcMidnight(year: number, monthIndex: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, monthIndex, day);
  return d;
}

// Monday 00:00 UTC of ISO week 1: the week that holds January 4th.
function isoWeekOneMonday(isoYear: number): Date {
  const jan4 = utcMidnight(isoYear, 0, 4);
  const mondayOffset = (jan4.getUTCDay() + 6) % 7;
  return new Date(jan4.getTime() - mondayOffset * DAY_MS);
}

/** The UTC calendar day of `at`, 'yyyy-mm-dd'. */
export function dayPeriod(at: Date): string {
  assertDate(at);
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}-${pad(at.getUTCDate(), 2)}`;
}

/** The ISO week of `at` in UTC, 'YYYY-Www', YYYY being the ISO week-numbering year. */
export function weekPeriod(at: Date): string {
  assertDate(at);
  // An ISO week belongs to the year that holds its Thursday.
  const midnight = utcMidnight(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const mondayOffset = (midnight.getUTCDay() + 6) % 7;
  const thursday = new Date(midnight.getTime() + (3 - mondayOffset) * DAY_MS);
  const isoYear = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - isoWeekOneMonday(isoYear).getTime()) / WEEK_MS);
  return `${pad(isoYear, 4)}-W${pad(week, 2)}`;
}

/** The UTC calendar month of `at`, 'yyyy-mm'. */
export function monthPeriod(at: Date): string {
  assertDate(at);
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}`;
}

/**
 * The period of `window` that `at` falls in; '' for SEASON, which has a single period. With
 * `offsetMs`, periods start that long after their UTC midnight (see the top of this file).
 */
export function periodOf(window: Window, at: Date, offsetMs = 0): string {
  const shifted = offsetMs === 0 ? at : new Date(at.getTime() - offsetMs);
  switch (window) {
    case 'SEASON':
      return '';
    case 'DAY':
      return dayPeriod(shifted);
    case 'WEEK':
      return weekPeriod(shifted);
    case 'MONTH':
      return monthPeriod(shifted);
  }
}

// The UTC midnight a period is named by (its start without the offset).
function parseStart(window: PeriodWindow, period: string): Date | undefined {
  if (window === 'DAY') {
    const m = DAY_PERIOD.exec(period);
    return m ? utcMidnight(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
  }
  if (window === 'MONTH') {
    const m = MONTH_PERIOD.exec(period);
    return m ? utcMidnight(Number(m[1]), Number(m[2]) - 1, 1) : undefined;
  }
  const m = WEEK_PERIOD.exec(period);
  if (!m) return undefined;
  return new Date(isoWeekOneMonday(Number(m[1])).getTime() + (Number(m[2]) - 1) * WEEK_MS);
}

/** Whether `period` is a canonical period string of `window` (e.g. rejects '2026-02-30', '2025-W53', '2026-13'). */
export function isValidPeriod(window: Window, period: string): boolean {
  if (window === 'SEASON') return period === '';
  const start = parseStart(window, period);
  // Round trip: Date arithmetic normalises 02-30 to 03-02 and W53 of a 52-week year to W01.
  return start !== undefined && !Number.isNaN(start.getTime()) && periodOf(window, start) === period;
}

/**
 * First instant of a period (inclusive): seasonStart, or the period's UTC midnight (a day's, a
 * Monday's, a month's first day's) plus `offsetMs`.
 */
export function periodStart(window: Window, period: string, seasonStart: Date, offsetMs = 0): Date {
  if (window === 'SEASON') return seasonStart;
  if (!isValidPeriod(window, period)) throw new RangeError(`invalid ${window} period ${JSON.stringify(period)}`);
  return new Date((parseStart(window, period) as Date).getTime() + offsetMs);
}

/** First instant after a period (exclusive end): seasonEnd, or the next period's start. */
export function periodEnd(window: Window, period: string, seasonEnd: Date, offsetMs = 0): Date {
  if (window === 'SEASON') return seasonEnd;
  const start = periodStart(window, period, seasonEnd, offsetMs);
  if (window !== 'MONTH') return new Date(start.getTime() + (window === 'DAY' ? DAY_MS : WEEK_MS));
  const named = new Date(start.getTime() - offsetMs);
  return new Date(utcMidnight(named.getUTCFullYear(), named.getUTCMonth() + 1, 1).getTime() + offsetMs);
}

/**
 * Whether a DAY, WEEK or MONTH period can hold results of a season running [startsAt, endsAt): it
 * overlaps the season and starts no later than one period after `now` (a result's endedAt is
 * never far in the future). Any other period's board is empty for good.
 */
export function periodInReach(
  window: PeriodWindow,
  period: string,
  season: { startsAt: Date; endsAt: Date },
  now: Date,
  offsetMs = 0,
): boolean {
  const start = periodStart(window, period, season.startsAt, offsetMs).getTime();
  const end = periodEnd(window, period, season.endsAt, offsetMs).getTime();
  return end > season.startsAt.getTime() && start < season.endsAt.getTime() && start <= now.getTime() + (end - start);
}
