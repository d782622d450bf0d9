import { turnoverOf, windowsOf, type Season, type Window } from './season.js';
import { periodOf } from './windows.js';

/** One accepted player result, as it travels from Kafka into PostgreSQL. */
export interface AcceptedResult {
  matchId: string;
  playerId: string;
  seasonId: number;
  points: number;
  endedAt: Date;
  partition: number;
  offset: string;
  /** The result's metadata as JSON text (domain/submission.ts metadataText); null or absent: none. */
  metadata?: string | null;
}

/** Identifies one player's row on one board. */
export interface BoardRef {
  seasonId: number;
  window: Window;
  period: string;
  playerId: string;
  /** The scope board (domain/scopes.ts) this row is for; absent: the whole board. */
  scope?: string;
}

/** A player's standing on one board: what PostgreSQL stores and Redis mirrors. */
export interface BoardStanding extends BoardRef {
  points: number;
  achievedAt: Date;
}

/**
 * The boards a result counts on: its season's SEASON board, and the periods of its endedAt (event
 * time) of each other window the season keeps. Plain object literals, no spread: this runs per
 * board per result (bench/ingest.bench.ts: on Node 20 a spread costs several times a literal).
 */
export function boardsOf(
  r: Pick<AcceptedResult, 'seasonId' | 'playerId' | 'endedAt'>,
  season: Pick<Season, 'windows' | 'resetOffsetMinutes' | 'periodHours' | 'startsAt'>,
): BoardRef[] {
  const { seasonId, playerId } = r;
  const turnover = turnoverOf(season);
  return windowsOf(season).map((window) => ({
    seasonId,
    window,
    period: periodOf(window, r.endedAt, turnover),
    playerId,
  }));
}

const windowOrder: Record<Window, number> = { SEASON: 0, DAY: 1, WEEK: 2, MONTH: 3, CUSTOM: 4 };

/**
 * Sorts refs by the standings primary key (season, window, period, player). Concurrent batches
 * that lock rows in one global order cannot deadlock (40P01, docs/design.md#storage).
 */
export function sortBoardRefs<T extends BoardRef>(refs: T[]): T[] {
  return refs.sort(
    (a, b) =>
      a.seasonId - b.seasonId ||
      windowOrder[a.window] - windowOrder[b.window] ||
      (a.period < b.period ? -1 : a.period > b.period ? 1 : 0) ||
      compareIds(a.playerId, b.playerId),
  );
}

/** Compares canonical positive decimal ids numerically (as PostgreSQL's bigint order does). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
