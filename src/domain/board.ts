import { badInput } from './errors.js';
import { boardName, boardsOf, turnoverOf, windowsOf, type Season, type Window } from './season.js';
import { isValidPeriod, periodEnd, periodInReach, periodOf, periodStart } from './windows.js';

/**
 * One leaderboard: a season's SEASON board, or one of its DAY or WEEK boards. A function that needs
 * a board takes this one value, never a (season, window, period) triple (issue 36). `S` is what its
 * holder has of the season: the Season, a sharded one (redis/sharded-boards.ts), or only its id
 * where that is all the code holds (BoardOfId: key builders, PostgreSQL readers). One generic type
 * rather than a second id-only shape: any Board is a BoardOfId as it is, so no call converts.
 * Records that travel (BoardStanding rows, pub/sub events) keep flat seasonId, window and period.
 */
export interface Board<S extends SeasonId = Season> {
  season: S;
  window: Window;
  /** '' for SEASON, 'yyyy-mm-dd' DAY, 'YYYY-Www' WEEK, 'yyyy-mm' MONTH, 'yyyy-mm-ddTHH:MM' CUSTOM (windows.ts). */
  period: string;
  /** Ranks within one scope (domain/scopes.ts: `r:BR`, `g:clan7`); absent: the whole board. */
  scope?: string;
}

/** The least of a season a board needs to be named: its id. */
export type SeasonId = Pick<Season, 'id'>;

/** A board named by its season's id alone (every Board is one). */
export type BoardOfId = Board<SeasonId>;

/** The SEASON board of a season (or of a season id: `seasonBoard({ id })`). */
export function seasonBoard<S extends SeasonId>(season: S): Board<S> {
  return { season, window: 'SEASON', period: '' };
}

/**
 * The board of a season named `name` (absent: its first, the season's own row); BAD_USER_INPUT
 * 'board' when it has none of that name.
 */
export function boardNamed(season: Season, name: string | null | undefined): Season {
  if (name == null) return season;
  const board = boardsOf(season).find((b) => boardName(b) === name);
  if (!board)
    throw badInput(
      'board',
      `season ${season.id} has no board ${JSON.stringify(name)}; it has ${boardsOf(season).map(boardName).join(', ')}`,
    );
  return board;
}

/** A board with the instant its period starts (the season's start for SEASON). */
export interface PlacedBoard extends Board {
  periodStart: Date;
}

/** The board of a season for a window at an instant (its periods turn over at the season's reset offset). */
export function boardAt(season: Season, window: Window, at: Date): PlacedBoard {
  return boardOfPeriod(season, window, periodOf(window, at, turnoverOf(season)));
}

/** A board of a period that Season.periods listed. */
export function boardOfPeriod(season: Season, window: Window, period: string): PlacedBoard {
  return { season, window, period, periodStart: periodStart(window, period, season.startsAt, turnoverOf(season)) };
}

/**
 * The board a client may ask for: `at` (default now) must pick a day or week that can hold
 * results (windows.ts periodInReach). Every other board is empty for good, and each would cost
 * a cache slot: a client sending distinct dates could make them without end.
 */
export function requestedBoard(season: Season, window: Window, at: Date | null | undefined, now: Date): PlacedBoard {
  checkWindowKept(season, window);
  const board = boardAt(season, window, at ?? now);
  if (at && board.window !== 'SEASON' && !periodInReach(board.window, board.period, season, now, turnoverOf(season))) {
    throw badInput('at', 'at must pick a day, week or month of the season, at most one period after now');
  }
  return board;
}

/** BAD_USER_INPUT 'window' when the season keeps no board of `window` (Season.windows). */
function checkWindowKept(season: Season, window: Window): void {
  if (!windowsOf(season).includes(window))
    throw badInput('window', `season ${season.id} keeps no ${window} board; it keeps ${windowsOf(season).join(', ')}`);
}

/** Checks the arguments of a listing of periods (Season.periods): how many, and before which period. */
export function checkPeriodsPage(
  board: Season,
  window: Window,
  first: number,
  before: string | null | undefined,
): void {
  if (!Number.isInteger(first) || first < 1 || first > LIMITS.periods)
    throw badInput('first', `first must be an integer in 1..${LIMITS.periods}`);
  if (before != null && !isValidPeriod(window, before, turnoverOf(board)))
    throw badInput('before', `before must be a period of ${window}, as Season.periods lists them`);
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
  /** Groups of a group board listed at once (Leaderboard.groups). */
  groups: 100,
} as const;

/** What a read takes when the client leaves an argument out or null (the GraphQL arguments' defaults). */
export const READ_DEFAULTS = {
  topLimit: 100,
  aroundRadius: 5,
  topChangedLimit: 10,
  friendsFirst: 100,
  periodsFirst: 30,
} as const;

/** A board's identity inside one process: `<seasonId>|<window>|<period>[|<scope>]`. */
export function boardId(seasonId: number, window: Window, period: string, scope?: string): string {
  return scope ? `${seasonId}|${window}|${period}|${scope}` : `${seasonId}|${window}|${period}`;
}

/** The identity of a board (boardId). */
export const idOfBoard = (b: Board<SeasonId>): string => boardId(b.season.id, b.window, b.period, b.scope);

/**
 * The same board within `scope` (null: the whole board): a new value of the board's fields alone
 * (and its periodStart), never what a holder attached to its own (a request's read batch).
 */
export function scopedBoard<B extends Board<SeasonId>>(board: B, scope: string | null | undefined): B {
  const { season, window, period } = board;
  const start = (board as { periodStart?: Date }).periodStart;
  return { season, window, period, ...(start ? { periodStart: start } : {}), ...(scope ? { scope } : {}) } as B;
}

/**
 * When a board's Redis key expires, in Unix seconds: 0 (never) for SEASON; DAY, WEEK and MONTH
 * boards `ttlSeconds` after their period ends (docs/design.md#windows).
 */
export function boardExpireAt(board: Board, ttlSeconds: number): number {
  if (board.window === 'SEASON') return 0;
  const end = periodEnd(board.window, board.period, board.season.endsAt, turnoverOf(board.season));
  return Math.floor(end.getTime() / 1000) + ttlSeconds;
}

/**
 * Is a board whose key expires at `expireAt` (boardExpireAt; 0: never) gone at `nowMs`? With
 * `marginMs`, it counts as gone that much earlier.
 */
export function isBoardExpired(expireAt: number, nowMs: number, marginMs = 0): boolean {
  return expireAt !== 0 && expireAt * 1000 - marginMs <= nowMs;
}

/**
 * The boards of a season (one row: domain/season.ts boardsOf) whose Redis keys are live at `nowMs`:
 * SEASON, and each kept window's periods back from now until one has expired.
 */
export function liveBoards(season: Season, ttlSeconds: number, nowMs: number): Board[] {
  const boards: Board[] = [seasonBoard(season)];
  for (const window of windowsOf(season)) {
    if (window === 'SEASON') continue;
    for (let at = new Date(nowMs); at >= season.startsAt;) {
      const board = boardAt(season, window, at);
      if (isBoardExpired(boardExpireAt(board, ttlSeconds), nowMs)) break;
      boards.push({ season, window, period: board.period });
      at = new Date(board.periodStart.getTime() - 1);
    }
  }
  return boards;
}

/**
 * Standings on the boards of a season that are still live at `nowMs` (SEASON always, the others
 * until their key expires): what a rebuild or reconcile goes through, the total of its progress.
 */
export function membersOnLiveBoards(
  season: Season,
  boards: readonly { window: Window; period: string; members: number }[],
  ttlSeconds: number,
  nowMs: number,
): number {
  const live = (b: { window: Window; period: string }) =>
    !isBoardExpired(boardExpireAt({ season, window: b.window, period: b.period }, ttlSeconds), nowMs);
  return boards.reduce((n, b) => n + (live(b) ? b.members : 0), 0);
}
