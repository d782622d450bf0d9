import { LIMITS, type Board } from '../domain/board.js';
import { DomainError } from '../domain/errors.js';
import { compareBytes, type RankedStanding } from '../domain/ranking.js';
import { parsePlayerId } from '../domain/submission.js';

/** Board reads that carry ranks (Redis, one instant per call). */
export interface BoardReads {
  size(board: Board): Promise<number>;
  top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
  around(board: Board, playerId: string, radius: number): Promise<RankedStanding[]>;
  entries(board: Board, playerIds: readonly string[]): Promise<RankedStanding[]>;
}

function checkInt(value: number, min: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DomainError('BAD_USER_INPUT', `${field} must be an integer in ${min}..${max}`, field);
  }
}

/**
 * The read use cases of a leaderboard, with the contract's limits. A finalized (closed) season's
 * boards are read from `archive` (PostgreSQL final standings); live ones from Redis.
 */
export function createLeaderboardReads(deps: { boards: BoardReads; top: Pick<BoardReads, 'top'>; archive?: BoardReads }) {
  const live = (b: Board): BoardReads => (b.season.finalizedAt && deps.archive ? deps.archive : deps.boards);
  const cached = (b: Board): Pick<BoardReads, 'top'> => (b.season.finalizedAt && deps.archive ? deps.archive : deps.top);
  return {
    size: (b: Board) => live(b).size(b),

    /** Served from the top-N cache when the page lies inside it. */
    async top(b: Board, limit: number, offset: number): Promise<RankedStanding[]> {
      checkInt(limit, 1, LIMITS.topLimit, 'limit');
      checkInt(offset, 0, 10_000_000, 'offset');
      return cached(b).top(b, offset, limit);
    },

    async entry(b: Board, playerId: string): Promise<RankedStanding | null> {
      const [entry] = await live(b).entries(b, [parsePlayerId(playerId)]);
      return entry ?? null;
    },

    async around(b: Board, playerId: string, radius: number): Promise<RankedStanding[]> {
      checkInt(radius, 0, LIMITS.aroundRadius, 'radius');
      return live(b).around(b, parsePlayerId(playerId), radius);
    },

    /** Ranked friends by rank (ties as the board orders them); unranked ids left out. */
    async friends(b: Board, playerIds: readonly string[]): Promise<RankedStanding[]> {
      if (playerIds.length > LIMITS.friends) {
        throw new DomainError('BAD_USER_INPUT', `at most ${LIMITS.friends} playerIds`, 'playerIds');
      }
      const ids = [...new Set(playerIds.map(parsePlayerId))];
      const entries = await live(b).entries(b, ids);
      return entries.sort((x, y) =>
        x.rank - y.rank || x.achievedAt.getTime() - y.achievedAt.getTime()
        || compareBytes(y.playerId, x.playerId));
    },
  };
}

export type LeaderboardReads = ReturnType<typeof createLeaderboardReads>;
