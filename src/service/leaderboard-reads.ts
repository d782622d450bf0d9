import { isBoardExpired, LIMITS, type Board } from '../domain/board.js';
import type { TopSnapshot } from './top-cache.js';
import { badInput } from '../domain/errors.js';
import { friendsOrder, friendsPage, type FriendsPage, type PlacedStanding } from '../domain/placing.js';
import type { RankedStanding } from '../domain/ranking.js';
import { parsePlayerId } from '../domain/result-message.js';
import type { GroupStanding } from '../domain/scopes.js';

/**
 * Several reads of one board to answer at one instant (the fields of one response): the first
 * `top` entries (0: none), deeper pages, the entries of
 * `playerIds`, and the players around some players.
 */
export interface BoardQuery {
  top: number;
  pages: ReadonlyArray<{ offset: number; limit: number }>;
  playerIds: readonly string[];
  arounds: ReadonlyArray<{ playerId: string; radius: number }>;
}

/** The answer to a BoardQuery, every part read at `version`; lists in the query's order. */
export interface BoardAnswer {
  version: number;
  /** The board's size: every part of a read tells it (ZCARD), so entries know their percentile. */
  size: number;
  top: RankedStanding[];
  pages: RankedStanding[][];
  /** The ranked ones among `playerIds`. */
  entries: RankedStanding[];
  arounds: RankedStanding[][];
}

/** Board reads that carry ranks (Redis, one instant per call; or PostgreSQL for closed and expired boards). */
export interface BoardReads {
  size(board: Board): Promise<number>;
  top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
  around(board: Board, playerId: string, radius: number): Promise<RankedStanding[]>;
  entries(board: Board, playerIds: readonly string[]): Promise<RankedStanding[]>;
}

/** The live boards (Redis): several reads of a board at one instant, with the version they saw. */
export interface LiveBoardReads {
  read(board: Board, query: BoardQuery): Promise<BoardAnswer>;
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

/** A board as a request sees it: the fields of one response are read at one instant (see `Batch`). */
export interface BoardView extends Board {
  topSnapshot?: Promise<TopSnapshot>;
  batch?: Batch;
}

/**
 * The reads of one board that a response's sibling fields ask for: the executor calls their
 * resolvers one after another without yielding, so they all join the batch before it is sent
 * (on the next microtask) and are answered at one instant. Reads of the top alone are served
 * from the top cache's snapshot; any other mix is one Redis read (board-reader.ts `read`).
 */
interface Batch {
  query: {
    top: number;
    pages: Array<{ offset: number; limit: number }>;
    playerIds: Set<string>;
    arounds: Array<{ playerId: string; radius: number }>;
  };
  answer: Promise<{ depends: 'top' | 'all'; answer: BoardAnswer }>;
}

function checkInt(value: number, min: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw badInput(field, `${field} must be an integer in ${min}..${max}`);
  }
}

/** Entries told the size of the board at the instant they were ranked (Entry.percentile). */
const sized = (entries: readonly RankedStanding[], boardSize: number): PlacedStanding[] =>
  entries.map((e) => ({ ...e, boardSize }));

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
  /** Group boards (docs/design.md#group-boards): live from Redis, or from PostgreSQL like the boards. */
  groups?: {
    live(b: Board, first: number): Promise<GroupStanding[]>;
    archive(b: Board, first: number): Promise<GroupStanding[]>;
    history(b: Board, first: number): Promise<GroupStanding[]>;
  };
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
  /** The open batch of a view: reads added to it before the next microtask are answered together. */
  function batchOf(b: BoardView): Batch {
    if (b.batch) return b.batch;
    const query: Batch['query'] = { top: 0, pages: [], playerIds: new Set(), arounds: [] };
    const batch: Batch = {
      query,
      answer: new Promise((resolve) =>
        queueMicrotask(() => {
          b.batch = undefined;
          resolve(send(b, query));
        }),
      ),
    };
    return (b.batch = batch);
  }

  async function send(b: BoardView, q: Batch['query']): Promise<{ depends: 'top' | 'all'; answer: BoardAnswer }> {
    const playerIds = [...q.playerIds];
    if (q.pages.length === 0 && playerIds.length === 0 && q.arounds.length === 0) {
      // The top alone: every response of this board in this request shares one snapshot.
      const snap = await (b.topSnapshot ??= deps.top.snapshot(b));
      return {
        depends: 'top',
        answer: { version: snap.version, size: snap.size, top: [...snap.entries], pages: [], entries: [], arounds: [] },
      };
    }
    return { depends: 'all', answer: await deps.live.read(b, { ...q, playerIds }) };
  }

  /** Joins the view's batch and picks this read's part of the answer (its entries told the board's size). */
  async function read<T>(
    b: BoardView,
    t: ReadTracker | undefined,
    add: (q: Batch['query']) => (a: BoardAnswer) => T,
  ): Promise<T> {
    const batch = batchOf(b);
    const pick = add(batch.query);
    const { depends, answer } = await batch.answer;
    t?.saw(b, depends, answer.version);
    return pick(answer);
  }

  return {
    async size(b: BoardView, t?: ReadTracker): Promise<number> {
      const pg = fromPostgres(b, t);
      if (pg) return pg.size(b);
      return read(b, t, (q) => {
        q.top = Math.max(q.top, 1);
        return (a) => a.size;
      });
    },

    /** Inside the first LIMITS.topLimit entries, from the top snapshot when read alone. */
    async top(b: BoardView, limit: number, offset: number, t?: ReadTracker): Promise<PlacedStanding[]> {
      checkInt(limit, 1, LIMITS.topLimit, 'limit');
      checkInt(offset, 0, LIMITS.topOffset, 'offset');
      const pg = fromPostgres(b, t);
      if (pg) return pg.top(b, offset, limit);
      return read(b, t, (q) => {
        if (offset + limit <= LIMITS.topLimit) {
          q.top = Math.max(q.top, offset + limit);
          return (a) => sized(a.top.slice(offset, offset + limit), a.size);
        }
        const i = q.pages.push({ offset, limit }) - 1;
        return (a) => sized(a.pages[i]!, a.size);
      });
    },

    async entry(b: BoardView, playerId: string, t?: ReadTracker): Promise<PlacedStanding | null> {
      const id = parsePlayerId(playerId);
      const pg = fromPostgres(b, t);
      if (pg) return (await pg.entries(b, [id]))[0] ?? null;
      return read(b, t, (q) => {
        q.playerIds.add(id);
        return (a) =>
          sized(
            a.entries.filter((e) => e.playerId === id),
            a.size,
          )[0] ?? null;
      });
    },

    async around(b: BoardView, playerId: string, radius: number, t?: ReadTracker): Promise<PlacedStanding[]> {
      checkInt(radius, 0, LIMITS.aroundRadius, 'radius');
      const id = parsePlayerId(playerId);
      const pg = fromPostgres(b, t);
      if (pg) return pg.around(b, id, radius);
      return read(b, t, (q) => {
        const i = q.arounds.push({ playerId: id, radius }) - 1;
        return (a) => sized(a.arounds[i]!, a.size);
      });
    },

    /** Ranked friends by rank (ties as the board orders them); unranked ids left out. */
    async friends(b: BoardView, playerIds: readonly string[], t?: ReadTracker): Promise<PlacedStanding[]> {
      if (playerIds.length > LIMITS.friends) {
        throw badInput('playerIds', `at most ${LIMITS.friends} playerIds`);
      }
      const ids = new Set(playerIds.map(parsePlayerId));
      const pg = fromPostgres(b, t);
      const entries = pg
        ? await pg.entries(b, [...ids])
        : await read(b, t, (q) => {
            for (const id of ids) q.playerIds.add(id);
            return (a) =>
              sized(
                a.entries.filter((e) => ids.has(e.playerId)),
                a.size,
              );
          });
      return entries.sort(friendsOrder);
    },

    /** friends, `first` at a time from the cursor `after` (domain/placing.ts friendsPage). */
    async friendsPage(
      b: BoardView,
      playerIds: readonly string[],
      first: number,
      after: string | null,
      t?: ReadTracker,
    ): Promise<FriendsPage> {
      checkInt(first, 1, LIMITS.friends, 'first');
      return friendsPage(await this.friends(b, playerIds, t), first, after);
    },

    /** The first `first` (1..LIMITS.groups) groups of the board's group board, best total first. */
    async groups(b: Board, first: number, t?: ReadTracker): Promise<GroupStanding[]> {
      checkInt(first, 1, LIMITS.groups, 'first');
      if (!deps.groups) return [];
      t?.uncacheable(); // no board version describes a group board
      if (b.season.finalizedAt) return deps.groups.archive(b, first);
      return expired(b) ? deps.groups.history(b, first) : deps.groups.live(b, first);
    },

    /**
     * The entry holding place `rank` (1-based, as ORDINAL counts places): what it takes to be
     * ranked there. null when fewer players are ranked.
     */
    async cutoff(b: BoardView, rank: number, t?: ReadTracker): Promise<PlacedStanding | null> {
      checkInt(rank, 1, LIMITS.topOffset + 1, 'rank');
      return (await this.top(b, 1, rank - 1, t))[0] ?? null;
    },
  };
}

export type LeaderboardReads = ReturnType<typeof createLeaderboardReads>;
