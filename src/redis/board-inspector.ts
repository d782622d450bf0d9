import type { Redis } from 'ioredis';
import { refreshGroupTotals } from './group-totals.js';
import type { Season, Window } from '../domain/season.js';
import { boardExpireAt, type Board } from '../domain/board.js';
import {
  boardKey,
  boardLabel,
  boardVersionsKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  shardKeysPattern,
  updatesChannel,
  windowBoardOfKey,
  windowBoardOfShardKey,
  windowBoardsPattern,
  scopeBoardsPattern,
  scopeBoardOfKey,
} from './keys.js';
import { dbOf, scanKeys } from './client.js';
import { preloadScript } from './scripts.js';
import { shownScore } from '../domain/shard-changes.js';
import { recountShardSizes } from './shard-mover.js';
import { heldScores, isShardedBoard, keptSizes, shardKeys } from './sharded-boards.js';
import { settleShardedBoard } from './sharded-exact.js';

// A hot board is written by ingest many times a second, but a verify-and-write round is short
// beside the gap between two writes, so a few attempts settle it. One that never does is left to
// the next run.
const MAX_SETTLE_ATTEMPTS = 10;

/**
 * The Redis side of reconcile: reads a board in pages and repairs chosen members.
 * Give it a connection of its own (redis.duplicate()): settle() uses WATCH, which is state of
 * the connection, and must not be shared with unrelated commands.
 * A sharded season's board (docs/scale-out.md) is read over its shards: its size is their sum, a
 * member's score its best shard's, its members every shard's; settle holds the mover lock instead.
 */
export function createBoardInspector(redis: Redis, windowTtlSeconds: number) {
  /** The keys holding a board: its one key, or its shards'. */
  const keysOf = (board: Board) => (isShardedBoard(board) ? shardKeys(board) : [boardKey(board)]);
  return {
    /** Whether a rebuild of the season is running (its boards may be swapped at any moment). */
    async rebuilding(seasonId: number): Promise<boolean> {
      return (await redis.exists(rebuildMarkerKey(seasonId))) === 1;
    },

    /** The DAY and WEEK boards that exist in Redis for the season (a few hundred keys: SCAN is cheap). */
    async windowBoards(season: Season): Promise<Array<{ window: Window; period: string }>> {
      const found: Array<{ window: Window; period: string }> = [];
      const tags = season.shards?.tags ?? [];
      const pattern = tags.length > 0 ? shardKeysPattern(season.id) : windowBoardsPattern(season.id);
      await scanKeys(redis, pattern, async (keys) => {
        for (const key of keys) {
          const board = tags.length > 0 ? windowBoardOfShardKey(tags, key) : windowBoardOfKey(season.id, key);
          if (board) found.push(board);
        }
      });
      return found;
    },

    /** The scope boards that exist in Redis for the season (docs/design.md#scopes): one SCAN. */
    async scopeBoards(season: Season): Promise<Array<{ window: Window; period: string; scope: string }>> {
      const found: Array<{ window: Window; period: string; scope: string }> = [];
      await scanKeys(redis, scopeBoardsPattern(season.id), async (keys) => {
        for (const key of keys) {
          const b = scopeBoardOfKey(season.id, key);
          if (b) found.push({ window: b.window ?? 'SEASON', period: b.period ?? '', scope: b.scope });
        }
      });
      return found;
    },

    /** Sets the totals of these groups' scope boards on their group boards again (redis/group-totals.ts). */
    async refreshGroupTotals(boards: readonly Board[]): Promise<void> {
      await refreshGroupTotals(
        redis,
        boards.map((board) => ({ board, expireAt: boardExpireAt(board, windowTtlSeconds) })),
      );
    },

    /** ZCARD of a board (the sum over its shards). */
    async size(board: Board): Promise<number> {
      const sizes = await Promise.all(keysOf(board).map((key) => redis.zcard(key)));
      return sizes.reduce((a, n) => a + n, 0);
    },

    /** A sharded board's kept shard sizes, counted again (shard-mover.ts); nothing for one key. */
    async recountSizes(board: Board): Promise<void> {
      if (!isShardedBoard(board)) return;
      const expireAt = boardExpireAt(board, windowTtlSeconds);
      await recountShardSizes(redis, board.season, keptSizes(board, expireAt));
    },

    /** The scores of these members as Redis prints them (null: not on the board; on two shards: shownScore). */
    async scores(board: Board, members: readonly string[]): Promise<Array<string | null>> {
      if (members.length === 0) return [];
      const held = await heldScores(redis, keysOf(board), members);
      return members.map((_, i) => shownScore(held, i));
    },

    /**
     * Every member of a board, ZSCAN page by page (about `pageSize` each). A member present the
     * whole time comes at least once; one may come twice if the board grows meanwhile.
     */
    async *members(board: Board, pageSize: number): AsyncGenerator<string[]> {
      for (const key of keysOf(board)) {
        let cursor = '0';
        do {
          const [next, flat] = await redis.zscan(key, cursor, 'COUNT', pageSize);
          const members: string[] = [];
          for (let i = 0; i < flat.length; i += 2) members.push(flat[i]!);
          if (members.length > 0) yield members;
          cursor = next;
        } while (cursor !== '0');
      }
    },

    /**
     * Reads the members' current scores, asks `decide` which [member, score] pairs to write
     * (score '' removes), and writes them with setStandings-4.lua only if the board did not
     * change in between (WATCH); otherwise starts over, `decide` included. Without `write`,
     * only reads and decides. Returns how many entries changed, or null when the board kept
     * changing and nothing was written.
     */
    async settle(
      board: Board,
      members: readonly string[],
      decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>,
      write: boolean,
    ): Promise<number | null> {
      const season = board.season;
      if (isShardedBoard(board)) {
        const expireAt = boardExpireAt(board, windowTtlSeconds);
        return settleShardedBoard(redis, board, members, decide, write, expireAt);
      }
      const key = boardKey(board);
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
            boardLabel(board),
            ...pairs.flat(),
          );
        // setStandings writes members only; a board it creates from nothing needs its expiry.
        const expireAt = boardExpireAt(board, windowTtlSeconds);
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
