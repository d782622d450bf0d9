import type { Season, Window } from './season.js';

/** One leaderboard: a season's SEASON board, or one of its DAY or WEEK boards. */
export interface Board {
  season: Season;
  window: Window;
  /** '' for SEASON, 'yyyy-mm-dd' for DAY, 'YYYY-Www' for WEEK (see windows.ts). */
  period: string;
}

/** Read limits of the GraphQL contract (docs/design.md#limits). */
export const LIMITS = {
  topLimit: 1_000,
  aroundRadius: 50,
  friends: 200,
  topChangedLimit: 100,
} as const;

/** A board's identity inside one process: `<seasonId>|<window>|<period>`. */
export function boardId(seasonId: number, window: Window, period: string): string {
  return `${seasonId}|${window}|${period}`;
}
