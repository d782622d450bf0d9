import type { Redis } from 'ioredis';
import type { BoardStanding } from '../domain/board-deltas.js';
import type { Season, Window } from '../domain/season.js';
import { boardExpireAt } from '../domain/board.js';
import { codecOf } from '../domain/score-codec.js';
import { boardKey, boardLabel, boardVersionsKey, rebuildCopyKey, rebuildMarkerKey, retiredKey, updatesChannel } from './keys.js';
import { dbOf } from './client.js';

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
      await redis.multi()
        .pexpire(rebuildMarkerKey(season.id), MARKER_TTL_MS)
        .zadd(copy, 'GT', ...args)
        .pexpire(copy, MARKER_TTL_MS)
        .exec();
    },

    /** Swaps a filled copy in for the live board, atomically. */
    async swap(season: Season, window: Window, period: string): Promise<void> {
      const board = boardKey(season.id, window, period);
      const expireAt = boardExpireAt(season, window, period, windowTtlSeconds);
      await redis.swapBoard(rebuildCopyKey(board), board, retiredKey(board), boardVersionsKey(season.id),
        String(expireAt), updatesChannel(dbOf(redis), season.id), boardLabel(window, period));
    },

    /** Ends the rebuild: drops the marker and any copy ingest wrote after its board was swapped. */
    async release(seasonId: number, boards: ReadonlyArray<{ window: Window; period: string }>): Promise<void> {
      const tx = redis.multi().del(rebuildMarkerKey(seasonId));
      for (const b of boards) tx.unlink(rebuildCopyKey(boardKey(seasonId, b.window, b.period)));
      await tx.exec();
    },
  };
}

export type BoardRebuilder = ReturnType<typeof createBoardRebuilder>;
