import { windowsOf, type Season, type Window } from '../domain/season.js';

/**
 * The CUSTOM period of `endedAt` in SQL, as domain/windows.ts periodOf names it: the start of its
 * span of `hours` from `anchor`, in UTC to the minute ('2026-12-06T04:00'). Arguments are SQL
 * expressions; null hours give null.
 */
export const customPeriodSql = (endedAt: string, anchor: string, hours: string): string =>
  `to_char(date_bin(make_interval(hours => ${hours}), ${endedAt}, ${anchor}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI')`;

// Every board a result may count on, with its bit in the row's window mask (windowMask): SEASON,
// then the periods of its endedAt, shifted by its season's reset offset, of DAY, WEEK and MONTH
// (computed in TS), and its CUSTOM period (computed here from the row's anchor and period_hours).
export const BOARDS_OF_ROW = `values ('SEASON'::board_window, '', 1), ('DAY'::board_window, r.day, 2),
  ('WEEK'::board_window, r.week, 4), ('MONTH'::board_window, r.month, 8),
  ('CUSTOM'::board_window, ${customPeriodSql('r.ended_at', 'r.anchor', 'r.period_hours')}, 16)`;
const WINDOW_BITS: Record<Window, number> = { SEASON: 1, DAY: 2, WEEK: 4, MONTH: 8, CUSTOM: 16 };

/** The windows a season keeps as a bit mask of WINDOW_BITS. */
export const windowMask = (season: Season): number => windowsOf(season).reduce((mask, w) => mask | WINDOW_BITS[w], 0);
