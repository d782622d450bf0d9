import type { BoardRef, BoardStanding } from '../domain/board-deltas.js';
import { liveBoards } from '../domain/board.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import type { BoardOutcome as ExactStanding } from '../domain/player-removal.js';
import { scopesOf, type PendingMove, type PlayerScopes } from '../domain/scopes.js';

export interface ScopeMoveDeps {
  /** Stores the changes; returns the players whose standings must move (postgres/player-scopes-store.ts). */
  scopes: {
    set(changes: ReadonlyArray<{ playerId: string; scopes: PlayerScopes }>): Promise<PendingMove[]>;
    settled(playerIds: readonly string[]): Promise<void>;
  };
  /** Every board row whose boards may be in Redis: started and not finalized. */
  liveSeasons(): Promise<Season[]>;
  /** The current standings of these boards (PostgreSQL, by primary key). */
  currentStandings(refs: readonly BoardRef[]): Promise<BoardStanding[]>;
  /** Sets standings exactly, removals included (redis/board-resetter.ts). */
  boards: { reset(season: Season, standings: readonly ExactStanding[], nowMs: number): Promise<unknown> };
  windowTtlSeconds: number;
  now(): number;
}

/**
 * Applies changes of players' scopes (docs/design.md#scopes), in Kafka order with their results:
 * PostgreSQL first, then each moved player's standing on every live board is removed from the
 * scope boards they left and set, exactly as PostgreSQL holds it, on those they rank in now;
 * then the move is marked done. A crash anywhere leaves it pending, and the replayed message
 * moves the player again: removals and exact sets change nothing the second time. Between the
 * removal and the set a reader may miss the player on a scope board, never see them in two.
 * Returns how many players moved.
 */
export async function applyScopeChanges(
  deps: ScopeMoveDeps,
  changes: ReadonlyArray<{ playerId: string; scopes: PlayerScopes }>,
): Promise<number> {
  const moves = await deps.scopes.set(changes);
  if (moves.length === 0) return 0;
  const nowMs = deps.now();
  const seasons = await deps.liveSeasons();
  const refs: BoardRef[] = [];
  for (const season of seasons)
    for (const board of liveBoards(season, deps.windowTtlSeconds, nowMs))
      for (const m of moves)
        refs.push({ seasonId: season.id, window: board.window, period: board.period, playerId: m.playerId });
  const standings = refs.length > 0 ? await deps.currentStandings(refs) : [];
  const byPlayer = new Map(moves.map((m) => [m.playerId, m]));
  const bySeason = new Map<number, ExactStanding[]>();
  for (const s of standings) {
    const move = byPlayer.get(s.playerId)!;
    const now = scopesOf(move.now);
    const list = bySeason.get(s.seasonId) ?? bySeason.set(s.seasonId, []).get(s.seasonId)!;
    const ref = { seasonId: s.seasonId, window: s.window, period: s.period, playerId: s.playerId };
    for (const scope of scopesOf(move.left)) if (!now.includes(scope)) list.push({ ...ref, scope, standing: null });
    for (const scope of now) list.push({ ...ref, scope, standing: { points: s.points, achievedAt: s.achievedAt } });
  }
  for (const season of seasons) {
    const list = bySeason.get(season.id);
    if (list) await deps.boards.reset(season, list, nowMs);
  }
  await deps.scopes.settled(moves.map((m) => m.playerId));
  return moves.length;
}

type Resets<R> = { reset(season: Season, standings: readonly ExactStanding[], nowMs: number): Promise<R> };

/**
 * Board resets that also set each standing on the scope boards of its player as they are now (and
 * on their cohort's in a league season): a removal or repair lowers a player's standing on their
 * scope boards with their whole board's.
 */
export function withScopeBoards<R>(
  boards: Resets<R>,
  scopes: { of(playerIds: readonly string[]): Promise<ReadonlyMap<string, PlayerScopes>> },
  leagues?: { cohorts(seasonId: number, playerIds: readonly string[]): Promise<ReadonlyMap<string, string>> },
): Resets<R> {
  return {
    async reset(season, standings, nowMs) {
      const ids = [...new Set(standings.map((s) => s.playerId))];
      const of = await scopes.of(ids);
      const cohorts = season.league && leagues ? await leagues.cohorts(seasonIdOf(season), ids) : undefined;
      const all = [...standings];
      for (const s of standings) {
        if (s.scope !== undefined) continue;
        const held = of.get(s.playerId);
        if (held) for (const scope of scopesOf(held)) all.push({ ...s, scope });
        const cohort = cohorts?.get(s.playerId);
        if (cohort) all.push({ ...s, scope: cohort });
      }
      return boards.reset(season, all, nowMs);
    },
  };
}
