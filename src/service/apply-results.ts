import type { AcceptedResult, BoardStanding } from '../domain/board-deltas.js';
import type { Season } from '../domain/season.js';

/** The source of truth: stores results once and returns the current standings they touch. */
export interface ResultsStore {
  applyBatch(
    results: readonly AcceptedResult[],
    seasonOf: (id: number) => Season,
  ): Promise<{ inserted: number; standings: BoardStanding[] }>;
}

/** The ranking index: mirrors committed standings, only ever raising a score. */
export interface BoardWriter {
  write(
    standings: readonly BoardStanding[],
    seasonOf: (id: number) => Season,
    nowMs: number,
  ): Promise<{ changed: number; unencodable: BoardStanding[] }>;
}

export interface ApplyReport {
  /** Results new to PostgreSQL (the rest were duplicates or replays). */
  inserted: number;
  /** Board entries whose score rose in Redis ("record updated"). */
  changed: number;
  unencodable: BoardStanding[];
}

/**
 * Applies validated results: PostgreSQL first (one transaction), then Redis from what
 * PostgreSQL committed, so Redis never shows what a rebuild from PostgreSQL could lose.
 * Idempotent: replaying the same results any number of times changes nothing more.
 */
export async function applyResults(
  deps: { store: ResultsStore; boards: BoardWriter; seasonOf: (id: number) => Season; now: () => number },
  results: readonly AcceptedResult[],
): Promise<ApplyReport> {
  if (results.length === 0) return { inserted: 0, changed: 0, unencodable: [] };
  const { inserted, standings } = await deps.store.applyBatch(results, deps.seasonOf);
  const { changed, unencodable } = await deps.boards.write(standings, deps.seasonOf, deps.now());
  return { inserted, changed, unencodable };
}
