import type { AcceptedResult, BoardStanding } from '../domain/board-deltas.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import type { League } from '../domain/leagues.js';
import { scopesOf, type PlayerScopes } from '../domain/scopes.js';
import { inSpan } from '../tracing.js';

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

/** Cohorts of league seasons (postgres/leagues-store.ts): each player's, placing the new ones. */
export interface LeaguePlacement {
  place(seasonId: number, league: League, playerIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
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
    leagues?: LeaguePlacement;
    /** Players hidden from a season's boards pending review (cached): kept out of the Redis write. */
    hiddenIn?(seasonId: number): Promise<ReadonlySet<string>>;
    seasonOf: (id: number) => Season;
    now: () => number;
  },
  results: readonly AcceptedResult[],
): Promise<ApplyReport> {
  if (results.length === 0) return { inserted: 0, changed: 0, unencodable: [] };
  // One span per write, in the apply's (kafka/ingest-spans.ts): no-ops without an SDK.
  const { inserted, standings } = await inSpan(
    'postgres store results',
    { attributes: { results: results.length } },
    () => deps.store.applyBatch(results, deps.seasonOf),
  );
  const cohorts = deps.leagues ? await placeInCohorts(deps.leagues, standings, deps.seasonOf) : undefined;
  const scoped = deps.scopes || cohorts ? await withScopes(deps.scopes, standings, cohorts) : standings;
  const all = deps.hiddenIn ? await withoutHidden(deps.hiddenIn, scoped, deps.seasonOf) : scoped;
  const { changed, unencodable } = await inSpan('redis write boards', { attributes: { standings: all.length } }, () =>
    deps.boards.write(all, deps.seasonOf, deps.now()),
  );
  return { inserted, changed, unencodable };
}

/**
 * The cohort (a scope) of each player of a league season in the batch, by board row id: placed
 * at their first result (docs/design.md#leagues), the same on every board of the season.
 */
async function placeInCohorts(
  leagues: LeaguePlacement,
  standings: readonly BoardStanding[],
  seasonOf: (id: number) => Season,
): Promise<Map<number, ReadonlyMap<string, string>> | undefined> {
  const players = new Map<number, { league: League; ids: Set<string>; rows: number[] }>();
  for (const s of standings) {
    const board = seasonOf(s.seasonId);
    if (!board.league) continue;
    const id = seasonIdOf(board);
    const entry = players.get(id) ?? players.set(id, { league: board.league, ids: new Set(), rows: [] }).get(id)!;
    entry.ids.add(s.playerId);
    if (!entry.rows.includes(s.seasonId)) entry.rows.push(s.seasonId);
  }
  if (players.size === 0) return undefined;
  const byRow = new Map<number, ReadonlyMap<string, string>>();
  for (const [seasonId, { league, ids, rows }] of players) {
    const cohorts = await leagues.place(seasonId, league, [...ids]);
    for (const row of rows) byRow.set(row, cohorts);
  }
  return byRow;
}

/**
 * The standings but those of players hidden in their season (docs/design.md#moderation): PostgreSQL
 * keeps them, no board shows them. The same array when nobody in the batch's seasons is hidden.
 */
async function withoutHidden(
  hiddenIn: (seasonId: number) => Promise<ReadonlySet<string>>,
  standings: BoardStanding[],
  seasonOf: (id: number) => Season,
): Promise<BoardStanding[]> {
  // By board row: each row's season is looked up once per batch.
  const lists = new Map<number, ReadonlySet<string>>();
  for (const s of standings)
    if (!lists.has(s.seasonId)) lists.set(s.seasonId, await hiddenIn(seasonIdOf(seasonOf(s.seasonId))));
  if ([...lists.values()].every((l) => l.size === 0)) return standings;
  return standings.filter((s) => !lists.get(s.seasonId)!.has(s.playerId));
}

/** The standings, and a copy of each on every scope board of its player (their cohort's too). */
async function withScopes(
  lookup: ScopesLookup | undefined,
  standings: BoardStanding[],
  cohorts?: ReadonlyMap<number, ReadonlyMap<string, string>>,
): Promise<BoardStanding[]> {
  if (standings.length === 0) return standings;
  const scopes = lookup ? await lookup.of([...new Set(standings.map((s) => s.playerId))]) : new Map();
  if (scopes.size === 0 && !cohorts) return standings;
  const all = [...standings];
  for (const s of standings) {
    const of = scopes.get(s.playerId);
    if (of) for (const scope of scopesOf(of)) all.push({ ...s, scope });
    const cohort = cohorts?.get(s.seasonId)?.get(s.playerId);
    if (cohort) all.push({ ...s, scope: cohort });
  }
  return all;
}
