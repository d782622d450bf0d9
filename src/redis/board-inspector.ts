import type { Redis } from 'ioredis';
import type { Season, Window } from '../domain/season.js';
import { boardExpireAt } from '../domain/board.js';
import {
  boardKey,
  boardLabel,
  boardVersionsKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  updatesChannel,
  windowBoardOfKey,
  windowBoardsPattern,
} from './keys.js';
import { dbOf, scanKeys } from './client.js';
import { preloadScript } from './scripts.js';

// A hot board is written by ingest a few dozen times a second; a verify-and-write round takes
// about a millisecond, so a few attempts settle it. One that never does is left to the next run.
const MAX_SETTLE_ATTEMPTS = 10;

/**
 * The Redis side of reconcile: reads a board in pages and repairs chosen members.
 * Give it a connection of its own (redis.duplicate()): settle() uses WATCH, which is state of
 * the connection, and must not be shared with unrelated commands.
 */
export function createBoardInspector(redis: Redis, windowTtlSeconds: number) {
  return {
    /** Whether a rebuild of the season is running (its boards may be swapped at any moment). */
    async rebuilding(seasonId: number): Promise<boolean> {
      return (await redis.exists(rebuildMarkerKey(seasonId))) === 1;
    },

    /** The DAY and WEEK boards that exist in Redis for the season (a few hundred keys: SCAN is cheap). */
    async windowBoards(seasonId: number): Promise<Array<{ window: Window; period: string }>> {
      const found: Array<{ window: Window; period: string }> = [];
      await scanKeys(redis, windowBoardsPattern(seasonId), async (keys) => {
        for (const key of keys) {
          const board = windowBoardOfKey(seasonId, key);
          if (board) found.push(board);
        }
      });
      return found;
    },

    /** ZCARD of a board. */
    async size(seasonId: number, window: Window, period: string): Promise<number> {
      return redis.zcard(boardKey(seasonId, window, period));
    },

    /** The scores of these members as Redis prints them (null: not on the board), in order. */
    async scores(
      seasonId: number,
      window: Window,
      period: string,
      members: readonly string[],
    ): Promise<Array<string | null>> {
      if (members.length === 0) return [];
      return redis.zmscore(boardKey(seasonId, window, period), ...members);
    },

    /**
     * Every member of a board, ZSCAN page by page (about `pageSize` each). A member present the
     * whole time comes at least once; one may come twice if the board grows meanwhile.
     */
    async *members(seasonId: number, window: Window, period: string, pageSize: number): AsyncGenerator<string[]> {
      const key = boardKey(seasonId, window, period);
      let cursor = '0';
      do {
        const [next, flat] = await redis.zscan(key, cursor, 'COUNT', pageSize);
        const members: string[] = [];
        for (let i = 0; i < flat.length; i += 2) members.push(flat[i]!);
        if (members.length > 0) yield members;
        cursor = next;
      } while (cursor !== '0');
    },

    /**
     * Reads the members' current scores, asks `decide` which [member, score] pairs to write
     * (score '' removes), and writes them with setStandings-4.lua only if the board did not
     * change in between (WATCH); otherwise starts over, `decide` included. Without `write`,
     * only reads and decides. Returns how many entries changed, or null when the board kept
     * changing and nothing was written.
     */
    async settle(
      season: Season,
      window: Window,
      period: string,
      members: readonly string[],
      decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>,
      write: boolean,
    ): Promise<number | null> {
      const key = boardKey(season.id, window, period);
      for (let attempt = 1; attempt <= MAX_SETTLE_ATTEMPTS; attempt++) {
        if (write) await redis.watch(key);
        let pairs: Array<[string, string]>;
        try {
          pairs = await decide(await redis.zmscore(key, ...members));
        } catch (err) {
          if (write) await redis.unwatch();
          throw err;
        }
        if (!write || pairs.length === 0) {
          if (write) await redis.unwatch();
          return 0;
        }
        await preloadScript(redis, 'setStandings');
        const tx = redis
          .multi()
          .setStandings(
            key,
            rebuildMarkerKey(season.id),
            rebuildCopyKey(key),
            boardVersionsKey(season.id),
            updatesChannel(dbOf(redis), season.id),
            boardLabel(window, period),
            ...pairs.flat(),
          );
        // setStandings writes members only; a board it creates from nothing needs its expiry.
        const expireAt = boardExpireAt(season, window, period, windowTtlSeconds);
        if (expireAt > 0) tx.expireat(key, expireAt);
        const replies = await tx.exec();
        if (replies) {
          const [err, changed] = replies[0]!;
          if (err) throw err;
          return changed as number;
        }
        // EXEC answered null: a writer touched the board after WATCH. Decide again on fresh values.
        await new Promise((r) => setTimeout(r, attempt * Math.random() * 5));
      }
      return null;
    },
  };
}

export type BoardInspector = ReturnType<typeof createBoardInspector>;
