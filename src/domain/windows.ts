import type { Window } from './season.js';

// Periods are the strings PostgreSQL produces, so a rebuild from SQL lands on the same Redis keys:
//   DAY   = to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD')
//   WEEK  = to_char(ts AT TIME ZONE 'UTC', 'IYYY-"W"IW')   (ISO week-numbering year and week)
//   MONTH = to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM')
// A result belongs to the window of its event time (the match's endedAt), never its arrival.
// With a reset offset (a season's resetOffsetMinutes, `offsetMs` below) every period starts that
// long after its UTC midnight and is named by that midnight's label: a DAY board that turns over at
// 04:00 UTC holds 2026-12-06 04:00 .. 2026-12-07 04:00 as '2026-12-06'.
// CUSTOM periods are spans of a board's periodHours from its anchor (the season's startsAt, no
// reset offset), each named by its start in UTC to the minute:
//   CUSTOM = to_char(date_bin(span, ts, anchor) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI')

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const DAY_PERIOD = /^(\d{4})-(\d{2})-(\d{2})$/;
const WEEK_PERIOD = /^(\d{4})-W(\d{2})$/;
const MONTH_PERIOD = /^(\d{4})-(\d{2})$/;
const CUSTOM_PERIOD = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * When a board's periods turn over: DAY, WEEK and MONTH `offsetMs` after UTC midnight; CUSTOM
 * every `periodHours` from `anchor` (domain/season.ts turnoverOf). A bare number is an offset.
 */
export interface Turnover {
  offsetMs: number;
  anchor?: Date | undefined;
  periodHours?: number | null | undefined;
}
type TurnoverArg = Turnover | number;

const turnover = (t: TurnoverArg): Turnover => (typeof t === 'number' ? { offsetMs: t } : t);

// A CUSTOM board's span and anchor; a RangeError when the board has none.
function customSpan(t: TurnoverArg): { anchorMs: number; spanMs: number } {
  const { anchor, periodHours } = turnover(t);
  if (!anchor || !periodHours) throw new RangeError('a CUSTOM period needs periodHours and an anchor');
  return { anchorMs: anchor.getTime(), spanMs: periodHours * HOUR_MS };
}

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

/** The UTC minute of `at`, 'yyyy-mm-ddTHH:MM' (a CUSTOM period's name). */
function minuteLabel(at: Date): string {
  return `${dayPeriod(at)}T${pad(at.getUTCHours(), 2)}:${pad(at.getUTCMinutes(), 2)}`;
}

// The start of the CUSTOM period that holds `at`: the anchor plus a whole number of spans.
function customStartMs(at: Date, t: TurnoverArg): number {
  assertDate(at);
  const { anchorMs, spanMs } = customSpan(t);
  return anchorMs + Math.floor((at.getTime() - anchorMs) / spanMs) * spanMs;
}

/**
 * The period of `window` that `at` falls in; '' for SEASON, which has a single period. With an
 * offset, periods start that long after their UTC midnight (see the top of this file).
 */
export function periodOf(window: Window, at: Date, t: TurnoverArg = 0): string {
  const { offsetMs } = turnover(t);
  const shifted = offsetMs === 0 ? at : new Date(at.getTime() - offsetMs);
  switch (window) {
    case 'SEASON':
      return '';
    case 'CUSTOM':
      return minuteLabel(new Date(customStartMs(at, t)));
    case 'DAY':
      return dayPeriod(shifted);
    case 'WEEK':
      return weekPeriod(shifted);
    case 'MONTH':
      return monthPeriod(shifted);
  }
}

// The UTC midnight a period is named by (its start without the offset); a CUSTOM period's minute.
function parseStart(window: PeriodWindow, period: string): Date | undefined {
  if (window === 'CUSTOM') {
    const m = CUSTOM_PERIOD.exec(period);
    if (!m) return undefined;
    const d = utcMidnight(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return new Date(d.getTime() + Number(m[4]) * HOUR_MS + Number(m[5]) * MINUTE_MS);
  }
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

// A CUSTOM period's start: its minute plus the anchor's seconds (every start shares them).
const customStart = (minute: Date, t: TurnoverArg): Date =>
  new Date(minute.getTime() + (((customSpan(t).anchorMs % MINUTE_MS) + MINUTE_MS) % MINUTE_MS));

/**
 * Whether `period` is a canonical period string of `window` (e.g. rejects '2026-02-30', '2025-W53',
 * '2026-13'); a CUSTOM one must name a period start of the board (`t`: its anchor and periodHours),
 * or without them (a filter that knows no board) be a canonical minute.
 */
export function isValidPeriod(window: Window, period: string, t: TurnoverArg = 0): boolean {
  if (window === 'SEASON') return period === '';
  const named = parseStart(window, period);
  if (named === undefined || Number.isNaN(named.getTime())) return false;
  // Round trip: Date arithmetic normalises 02-30 to 03-02 and W53 of a 52-week year to W01.
  if (window !== 'CUSTOM') return periodOf(window, named) === period;
  if (!turnover(t).periodHours) return minuteLabel(named) === period;
  const start = customStart(named, t);
  return customStartMs(start, t) === start.getTime() && minuteLabel(start) === period;
}

/**
 * First instant of a period (inclusive): seasonStart, the period's UTC midnight (a day's, a
 * Monday's, a month's first day's) plus the offset, or a CUSTOM period's start.
 */
export function periodStart(window: Window, period: string, seasonStart: Date, t: TurnoverArg = 0): Date {
  if (window === 'SEASON') return seasonStart;
  if (!isValidPeriod(window, period, t)) throw new RangeError(`invalid ${window} period ${JSON.stringify(period)}`);
  const named = parseStart(window, period) as Date;
  return window === 'CUSTOM' ? customStart(named, t) : new Date(named.getTime() + turnover(t).offsetMs);
}

/** First instant after a period (exclusive end): seasonEnd, or the next period's start. */
export function periodEnd(window: Window, period: string, seasonEnd: Date, t: TurnoverArg = 0): Date {
  if (window === 'SEASON') return seasonEnd;
  const start = periodStart(window, period, seasonEnd, t);
  if (window === 'CUSTOM') return new Date(start.getTime() + customSpan(t).spanMs);
  const { offsetMs } = turnover(t);
  if (window !== 'MONTH') return new Date(start.getTime() + (window === 'DAY' ? DAY_MS : WEEK_MS));
  const named = new Date(start.getTime() - offsetMs);
  return new Date(utcMidnight(named.getUTCFullYear(), named.getUTCMonth() + 1, 1).getTime() + offsetMs);
}

/**
 * Whether a DAY, WEEK, MONTH or CUSTOM period can hold results of a season running [startsAt, endsAt): it
 * overlaps the season and starts no later than one period after `now` (a result's endedAt is
 * never far in the future). Any other period's board is empty for good.
 */
export function periodInReach(
  window: PeriodWindow,
  period: string,
  season: { startsAt: Date; endsAt: Date },
  now: Date,
  t: TurnoverArg = 0,
): boolean {
  const start = periodStart(window, period, season.startsAt, t).getTime();
  const end = periodEnd(window, period, season.endsAt, t).getTime();
  return end > season.startsAt.getTime() && start < season.endsAt.getTime() && start <= now.getTime() + (end - start);
}
