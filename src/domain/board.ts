import type { Season, Window } from './season.js';
import { periodEnd } from './windows.js';

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
  /** Deepest page `top` may read; pages past it are too rare to be worth a full board scan. */
  topOffset: 10_000_000,
  aroundRadius: 50,
  friends: 1_000,
  /** Periods of a window listed at once (Season.periods). */
  periods: 100,
  topChangedLimit: 100,
} as const;

/** What a read takes when the client leaves an argument out or null (the GraphQL arguments' defaults). */
export const READ_DEFAULTS = {
  topLimit: 100,
  aroundRadius: 5,
  topChangedLimit: 10,
  friendsFirst: 100,
  periodsFirst: 30,
} as const;

/** A board's identity inside one process: `<seasonId>|<window>|<period>`. */
export function boardId(seasonId: number, window: Window, period: string): string {
  return `${seasonId}|${window}|${period}`;
}

/**
 * When a board's Redis key expires, in Unix seconds: 0 (never) for SEASON; DAY and WEEK boards
 * `ttlSeconds` after their window ends (docs/design.md#windows).
 */
export function boardExpireAt(season: Season, window: Window, period: string, ttlSeconds: number): number {
  if (window === 'SEASON') return 0;
  return Math.floor(periodEnd(window, period, season.endsAt).getTime() / 1000) + ttlSeconds;
}

/**
 * Is a board whose key expires at `expireAt` (boardExpireAt; 0: never) gone at `nowMs`? With
 * `marginMs`, it counts as gone that much earlier.
 */
export function isBoardExpired(expireAt: number, nowMs: number, marginMs = 0): boolean {
  return expireAt !== 0 && expireAt * 1000 - marginMs <= nowMs;
}

/**
 * Standings on the boards of a season that are still live at `nowMs` (SEASON always, DAY and WEEK
 * until their key expires): what a rebuild or reconcile goes through, the total of its progress.
 */
export function membersOnLiveBoards(
  season: Season,
  boards: readonly { window: Window; period: string; members: number }[],
  ttlSeconds: number,
  nowMs: number,
): number {
  const live = (b: { window: Window; period: string }) =>
    !isBoardExpired(boardExpireAt(season, b.window, b.period, ttlSeconds), nowMs);
  return boards.reduce((n, b) => n + (live(b) ? b.members : 0), 0);
}
