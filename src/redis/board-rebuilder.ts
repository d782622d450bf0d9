import type { Redis } from 'ioredis';
import type { BoardStanding } from '../domain/board-deltas.js';
import type { Season, Window } from '../domain/season.js';
import { boardExpireAt } from '../domain/board.js';
import { codecOf } from '../domain/score-codec.js';
import { unavailable } from '../domain/errors.js';
import {
  boardKey,
  boardLabel,
  boardVersionsKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  retiredKey,
  seasonKeysPattern,
  updatesChannel,
} from './keys.js';
import { dbOf } from './client.js';
import { swapStatus } from './scripts.js';

const MARKER_TTL_MS = 60_000;

/**
 * The Redis side of a rebuild. While the season's marker exists, ingest writes every board's
 * rebuild copy too (applyStandings-4.lua), so results committed after the rebuild's
 * PostgreSQL snapshot began still reach the copy before it is swapped in.
 */
export function createBoardRebuilder(redis: Redis, windowTtlSeconds: number) {
  return {
    /** Takes the season's rebuild marker; false when another rebuild holds it. */
    async acquire(seasonId: number): Promise<boolean> {
      return (await redis.set(rebuildMarkerKey(seasonId), String(Date.now()), 'PX', MARKER_TTL_MS, 'NX')) === 'OK';
    },

    /** Adds standings of one board to its copy (ZADD GT: ingest may have written newer ones). */
    async fill(season: Season, window: Window, period: string, rows: readonly BoardStanding[]): Promise<void> {
      const codec = codecOf(season);
      const copy = rebuildCopyKey(boardKey(season.id, window, period));
      const args: string[] = [];
      for (const r of rows) args.push(codec.toRedis(codec.encode(r.points, r.achievedAt)), r.playerId);
      await redis
        .multi()
        .pexpire(rebuildMarkerKey(season.id), MARKER_TTL_MS)
        .zadd(copy, 'GT', ...args)
        .pexpire(copy, MARKER_TTL_MS)
        .exec();
    },

    /**
     * Swaps a filled copy in for the live board, atomically. UNAVAILABLE when the copy is gone
     * (deleted, or expired because the rebuild stalled past the marker's TTL): the live board is
     * left as it was, and the rebuild must not report it rebuilt.
     */
    async swap(season: Season, window: Window, period: string): Promise<void> {
      const board = boardKey(season.id, window, period);
      const expireAt = boardExpireAt(season, window, period, windowTtlSeconds);
      const status = swapStatus(
        await redis.swapBoard(
          rebuildCopyKey(board),
          board,
          retiredKey(board),
          boardVersionsKey(season.id),
          String(expireAt),
          updatesChannel(dbOf(redis), season.id),
          boardLabel(window, period),
        ),
      );
      if (status === 'noCopy') {
        throw unavailable(
          `the rebuilt copy of ${board} was gone before its swap; the board is unchanged: rebuild again`,
        );
      }
    },

    /**
     * Ends the rebuild: drops the marker, then every copy of the season: those ingest wrote after
     * their board was swapped, and those of boards the rebuild never read because ingest created
     * them after its snapshot began (left behind, such a copy would hold members for a later
     * rebuild to bring back, a removed player's among them, until its TTL ran out).
     */
    async release(seasonId: number): Promise<void> {
      await redis.del(rebuildMarkerKey(seasonId));
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          rebuildCopyKey(seasonKeysPattern(seasonId)),
          'COUNT',
          1000,
        );
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
  };
}

export type BoardRebuilder = ReturnType<typeof createBoardRebuilder>;
