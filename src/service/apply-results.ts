import type { AcceptedResult, BoardStanding } from '../domain/board-deltas.js';
import type { Season } from '../domain/season.js';
import { scopesOf, type PlayerScopes } from '../domain/scopes.js';

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

/** Where players rank besides the whole board (postgres/player-scopes-store.ts). */
export interface ScopesLookup {
  of(playerIds: readonly string[]): Promise<ReadonlyMap<string, PlayerScopes>>;
}

/**
 * Applies validated results: PostgreSQL first (one transaction), then Redis from what
 * PostgreSQL committed, so Redis never shows what a rebuild from PostgreSQL could lose.
 * Idempotent: replaying the same results any number of times changes nothing more.
 * Each standing also goes to the scope boards of its player (docs/design.md#scopes), as
 * PostgreSQL holds the player's scopes now: a player's moves are applied in Kafka order with
 * their results (service/apply-scopes.ts), so no move of theirs can run between the two.
 */
export async function applyResults(
  deps: {
    store: ResultsStore;
    boards: BoardWriter;
    scopes?: ScopesLookup;
    seasonOf: (id: number) => Season;
    now: () => number;
  },
  results: readonly AcceptedResult[],
): Promise<ApplyReport> {
  if (results.length === 0) return { inserted: 0, changed: 0, unencodable: [] };
  const { inserted, standings } = await deps.store.applyBatch(results, deps.seasonOf);
  const all = deps.scopes ? await withScopes(deps.scopes, standings) : standings;
  const { changed, unencodable } = await deps.boards.write(all, deps.seasonOf, deps.now());
  return { inserted, changed, unencodable };
}

/** The standings, and a copy of each on every scope board of its player. */
async function withScopes(lookup: ScopesLookup, standings: BoardStanding[]): Promise<BoardStanding[]> {
  if (standings.length === 0) return standings;
  const scopes = await lookup.of([...new Set(standings.map((s) => s.playerId))]);
  if (scopes.size === 0) return standings;
  const all = [...standings];
  for (const s of standings) {
    const of = scopes.get(s.playerId);
    if (of) for (const scope of scopesOf(of)) all.push({ ...s, scope });
  }
  return all;
}
