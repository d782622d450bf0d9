import { isBoardExpired, LIMITS, type Board } from '../domain/board.js';
import type { TopSnapshot } from './top-cache.js';
import { badInput } from '../domain/errors.js';
import { compareBytes, type RankedStanding } from '../domain/ranking.js';
import { parsePlayerId } from '../domain/submission.js';

/** Board reads that carry ranks (Redis, one instant per call; or PostgreSQL for closed and expired boards). */
export interface BoardReads {
  size(board: Board): Promise<number>;
  top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
  around(board: Board, playerId: string, radius: number): Promise<RankedStanding[]>;
  entries(board: Board, playerIds: readonly string[]): Promise<RankedStanding[]>;
}

type Versioned<T> = Promise<{ version: number; value: T }>;

/** The live boards (Redis): each read also says the board version it saw. */
export interface LiveBoardReads {
  page(board: Board, offset: number, limit: number): Promise<{ version: number; entries: RankedStanding[] }>;
  around(board: Board, playerId: string, radius: number): Versioned<RankedStanding[]>;
  entries(board: Board, playerIds: readonly string[]): Versioned<RankedStanding[]>;
}

/**
 * Told what a request read, so that its answer can be cached (graphql/response-cache.ts):
 * `top` reads depend on the board's top and size, `all` reads on any change of the board.
 */
export interface ReadTracker {
  saw(board: Board, depends: 'top' | 'all', version: number): void;
  /** Something was read that no board version describes (PostgreSQL): do not cache. */
  uncacheable(): void;
}

/** A board as a request sees it: `size` and `top` of one response come from one snapshot. */
export interface BoardView extends Board {
  topSnapshot?: Promise<TopSnapshot>;
}

function checkInt(value: number, min: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw badInput(field, `${field} must be an integer in ${min}..${max}`);
  }
}

// Route to PostgreSQL this long before a board's Redis key expires: a Redis clock a little ahead
// of ours must not answer from a board it already dropped. PostgreSQL is right at any time.
const EXPIRY_MARGIN_MS = 60_000;

/**
 * The read use cases of a leaderboard, with the contract's limits. A finalized (closed) season's
 * boards are read from `archive` (PostgreSQL final standings); a DAY or WEEK board past its
 * Redis expiry from `history` (PostgreSQL standings ranked on the fly); the rest from Redis:
 * `size` and pages inside the first LIMITS.topLimit from the top cache's snapshot, the rest live.
 */
export function createLeaderboardReads(deps: {
  live: LiveBoardReads;
  top: { snapshot(board: Board): Promise<TopSnapshot> };
  archive?: BoardReads;
  history?: BoardReads;
  /** When a board's Redis key expires, in epoch seconds; 0: never. */
  expiresAt?(b: Board): number;
  now?(): number;
}) {
  const now = deps.now ?? Date.now;
  const expired = (b: Board) => isBoardExpired(deps.expiresAt?.(b) ?? 0, now(), EXPIRY_MARGIN_MS);
  const fromPostgres = (b: Board, t: ReadTracker | undefined): BoardReads | undefined => {
    const pg = (b.season.finalizedAt && deps.archive) || (deps.history && expired(b) ? deps.history : undefined);
    if (pg) t?.uncacheable();
    return pg || undefined;
  };
  async function snapshot(b: BoardView, t: ReadTracker | undefined): Promise<TopSnapshot> {
    const snap = await (b.topSnapshot ??= deps.top.snapshot(b));
    t?.saw(b, 'top', snap.version);
    return snap;
  }
  async function live<T>(b: Board, t: ReadTracker | undefined, read: Versioned<T>): Promise<T> {
    const { version, value } = await read;
    t?.saw(b, 'all', version);
    return value;
  }

  return {
    async size(b: BoardView, t?: ReadTracker): Promise<number> {
      const pg = fromPostgres(b, t);
      return pg ? pg.size(b) : (await snapshot(b, t)).size;
    },

    /** Served from the top snapshot when the page lies inside it. */
    async top(b: BoardView, limit: number, offset: number, t?: ReadTracker): Promise<RankedStanding[]> {
      checkInt(limit, 1, LIMITS.topLimit, 'limit');
      checkInt(offset, 0, LIMITS.topOffset, 'offset');
      const pg = fromPostgres(b, t);
      if (pg) return pg.top(b, offset, limit);
      if (offset + limit <= LIMITS.topLimit) return (await snapshot(b, t)).entries.slice(offset, offset + limit);
      const { version, entries } = await deps.live.page(b, offset, limit);
      t?.saw(b, 'all', version);
      return entries;
    },

    async entry(b: Board, playerId: string, t?: ReadTracker): Promise<RankedStanding | null> {
      const id = parsePlayerId(playerId);
      const pg = fromPostgres(b, t);
      const [entry] = pg ? await pg.entries(b, [id]) : await live(b, t, deps.live.entries(b, [id]));
      return entry ?? null;
    },

    async around(b: Board, playerId: string, radius: number, t?: ReadTracker): Promise<RankedStanding[]> {
      checkInt(radius, 0, LIMITS.aroundRadius, 'radius');
      const id = parsePlayerId(playerId);
      const pg = fromPostgres(b, t);
      return pg ? pg.around(b, id, radius) : live(b, t, deps.live.around(b, id, radius));
    },

    /** Ranked friends by rank (ties as the board orders them); unranked ids left out. */
    async friends(b: Board, playerIds: readonly string[], t?: ReadTracker): Promise<RankedStanding[]> {
      if (playerIds.length > LIMITS.friends) {
        throw badInput('playerIds', `at most ${LIMITS.friends} playerIds`);
      }
      const ids = [...new Set(playerIds.map(parsePlayerId))];
      const pg = fromPostgres(b, t);
      const entries = pg ? await pg.entries(b, ids) : await live(b, t, deps.live.entries(b, ids));
      return entries.sort((x, y) =>
        x.rank - y.rank || x.achievedAt.getTime() - y.achievedAt.getTime()
        || compareBytes(y.playerId, x.playerId));
    },
  };
}

export type LeaderboardReads = ReturnType<typeof createLeaderboardReads>;
