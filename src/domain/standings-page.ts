import type { Window } from './season.js';

/**
 * Standings of one board as columns, best first: row i is player `playerIds[i]` with `points[i]`
 * reached at `achievedMs[i]` (epoch ms). A rebuild reads millions of rows: columns spare it an
 * object and a Date per row (docs/benchmarks.md, the 10M-player season).
 */
export interface StandingsRows {
  playerIds: string[];
  points: Float64Array;
  achievedMs: Float64Array;
}

/** A page of one board's standings. */
export interface StandingsPage extends StandingsRows {
  window: Window;
  period: string;
  /** The scope board (domain/scopes.ts) the rows are for; absent: the whole board. */
  scope?: string;
}

/** Columns of standings given as rows (tests, small callers). */
export function standingsRows(rows: ReadonlyArray<{ playerId: string; points: number; achievedAt: Date }>) {
  return {
    playerIds: rows.map((r) => r.playerId),
    points: Float64Array.from(rows, (r) => r.points),
    achievedMs: Float64Array.from(rows, (r) => r.achievedAt.getTime()),
  } satisfies StandingsRows;
}
