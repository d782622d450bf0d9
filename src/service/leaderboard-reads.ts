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

// Route to PostgreSQL this long before a board's Redis key expires: a Redis clock a little ahead
// of ours must not answer from a board it already dropped. PostgreSQL is right at any time.
const EXPIRY_MARGIN_MS = 60_000;

/**
 * The read use cases of a leaderboard, with the contract's limits. A finalized (closed) season's
 * boards are read from `archive` (PostgreSQL final standings); a DAY or WEEK board past its
 * Redis expiry from `history` (PostgreSQL standings ranked on the fly); the rest from Redis.
 */
export function createLeaderboardReads(deps: {
  boards: BoardReads;
  top: Pick<BoardReads, 'top'>;
  archive?: BoardReads;
  history?: BoardReads;
  /** When a board's Redis key expires, in epoch seconds; 0: never. */
  expiresAt?(b: Board): number;
  now?(): number;
}) {
  const now = deps.now ?? Date.now;
  const expired = (b: Board) => {
    const at = deps.expiresAt?.(b) ?? 0;
    return at !== 0 && at * 1000 - EXPIRY_MARGIN_MS <= now();
  };
  const fromPostgres = (b: Board): BoardReads | undefined =>
    (b.season.finalizedAt && deps.archive) || (deps.history && expired(b) ? deps.history : undefined);
  const live = (b: Board): BoardReads => fromPostgres(b) ?? deps.boards;
  const cached = (b: Board): Pick<BoardReads, 'top'> => fromPostgres(b) ?? deps.top;
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
