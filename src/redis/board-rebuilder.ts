import type { Redis } from 'ioredis';
import { boardExpireAt, type Board } from '../domain/board.js';
import { codecOf } from '../domain/score-codec.js';
import type { StandingsRows } from '../domain/standings-page.js';
import { unavailable } from '../domain/errors.js';
import { shardLowers, shardOf } from '../domain/shards.js';
import {
  boardKey,
  boardLabel,
  boardVersionsKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  retiredKey,
  seasonKeysPattern,
  shardKeysPattern,
  updatesChannel,
} from './keys.js';
import { dbOf, scanKeys } from './client.js';
import { swapStatus } from './scripts.js';
import { inMoveWindow, withMoverLock } from './shard-mover.js';
import { copyExpireAt, copyKeys, isShardedBoard, keptSizes, shardKeys, type ShardedBoard } from './sharded-boards.js';
import { place } from './sharded-raise.js';
import { refreshGroupTotals } from './group-totals.js';

const MARKER_TTL_MS = 60_000;

/**
 * The Redis side of a rebuild. While the season's marker exists, ingest writes every board's
 * rebuild copy too (applyStandings-5.lua), so results committed after the rebuild's
 * PostgreSQL snapshot began still reach the copy before it is swapped in. A sharded season's
 * copy is one key per shard, swapped in shard by shard inside a move window (docs/scale-out.md).
 */
export function createBoardRebuilder(redis: Redis, windowTtlSeconds: number) {
  // The fills of a sharded board read the shards before they write them: one at a time, in order.
  let shardFills: Promise<unknown> = Promise.resolve();
  const rebuilder = {
    /** Takes the season's rebuild marker; false when another rebuild holds it. */
    async acquire(seasonId: number): Promise<boolean> {
      if ((await redis.set(rebuildMarkerKey(seasonId), String(Date.now()), 'PX', MARKER_TTL_MS, 'NX')) !== 'OK') {
        return false;
      }
      // A copy left behind (a sharded write that saw the last rebuild's marker and landed after
      // its release) must not seed this one. Ingest writes dropped here were committed before
      // this rebuild reads PostgreSQL: its snapshot has them.
      await dropCopies(seasonId);
      return true;
    },

    /**
     * Adds standings of one board to its copy (ZADD GT, or newer-wins on a LAST board: ingest may
     * have written newer ones). Fills in flight together are applied in call order: one MULTI or
     * script call each on one connection, or chained.
     */
    async fill(board: Board, rows: StandingsRows): Promise<void> {
      if (isShardedBoard(board)) {
        const filled = shardFills.then(() => fillShards(board, rows));
        shardFills = filled.catch(() => {});
        return filled;
      }
      const season = board.season;
      const codec = codecOf(season);
      const copy = rebuildCopyKey(boardKey(board));
      const { playerIds, points, achievedMs } = rows;
      const args = new Array<string>(2 * playerIds.length);
      for (let i = 0; i < playerIds.length; i++) {
        args[2 * i] = codec.toRedis(codec.encodeMs(points[i]!, achievedMs[i]!));
        args[2 * i + 1] = playerIds[i]!;
      }
      if (season.scoring === 'LAST') {
        // A LAST score may have gone down since the snapshot: newer wins, not higher.
        await redis.lastFill(
          copy,
          rebuildMarkerKey(season.id),
          codec.toRedis(codec.maxTime + 1),
          String(MARKER_TTL_MS),
          ...args,
        );
        return;
      }
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
    async swap(board: Board): Promise<void> {
      if (isShardedBoard(board)) return swapShards(board);
      const key = boardKey(board);
      const expireAt = boardExpireAt(board, windowTtlSeconds);
      const status = swapStatus(
        await redis.swapBoard(
          rebuildCopyKey(key),
          key,
          retiredKey(key),
          boardVersionsKey(board.season.id),
          String(expireAt),
          updatesChannel(dbOf(redis), board.season.id),
          boardLabel(board),
        ),
      );
      if (status === 'noCopy') {
        throw unavailable(`the rebuilt copy of ${key} was gone before its swap; the board is unchanged: rebuild again`);
      }
      await refreshGroupTotals(redis, [{ board, expireAt }]);
    },

    /**
     * Ends the rebuild: drops the marker, then every copy of the season: those ingest wrote after
     * their board was swapped, and those of boards the rebuild never read because ingest created
     * them after its snapshot began (left behind, such a copy would hold members for a later
     * rebuild to bring back, a removed player's among them, until its TTL ran out).
     */
    async release(seasonId: number): Promise<void> {
      await redis.del(rebuildMarkerKey(seasonId));
      await dropCopies(seasonId);
    },
  };

  /** UNLINKs every rebuild copy of the season (of one-key boards and of shards), on every master. */
  async function dropCopies(seasonId: number): Promise<void> {
    for (const pattern of [seasonKeysPattern(seasonId), shardKeysPattern(seasonId)]) {
      await scanKeys(redis, rebuildCopyKey(pattern), async (keys) => {
        for (const key of keys) await redis.unlink(key); // one slot per command in a cluster
      });
    }
  }

  /**
   * Places rows on the copies of a sharded board's shards under the mover lock (ingest may have
   * raised some members there already: ZADD GT across shards), then gives every copy of the board
   * the marker's TTL, so a shard filled early does not expire before the swap.
   */
  async function fillShards(board: ShardedBoard, rows: StandingsRows) {
    const season = board.season;
    const codec = codecOf(season);
    const lowers = shardLowers(season);
    const copies = copyKeys(shardKeys(board));
    const expireAt = copyExpireAt(MARKER_TTL_MS);
    const members = rows.playerIds.map((playerId, i) => {
      const score = codec.encodeMs(rows.points[i]!, rows.achievedMs[i]!);
      return [playerId, codec.toRedis(score), shardOf(lowers, score)] as const;
    });
    await redis.pexpire(rebuildMarkerKey(season.id), MARKER_TTL_MS);
    await withMoverLock(redis, season.id, () => place(redis, season, copies, members, expireAt, null));
    await Promise.all(copies.map((key) => redis.expireat(key, expireAt)));
  }

  /**
   * Swaps every shard's copy in (a shard without a copy is emptied: the rebuilt board has no one in
   * its range), holding the mover lock and inside a move window, so readers never mix old and new
   * shards; then the board's version rises with a "swap" event. UNAVAILABLE when the marker, and
   * so the copies that live as long as it, expired (a stalled rebuild): the board is left as it was.
   */
  async function swapShards(board: ShardedBoard): Promise<void> {
    const season = board.season;
    const keys = shardKeys(board);
    const expireAt = String(boardExpireAt(board, windowTtlSeconds));
    await withMoverLock(redis, season.id, async () => {
      if ((await redis.pexpire(rebuildMarkerKey(season.id), MARKER_TTL_MS)) !== 1) {
        throw unavailable(`the rebuild of season ${season.id} stalled past its marker's TTL; rebuild again`);
      }
      await inMoveWindow(
        redis,
        season.id,
        () => Promise.all(keys.map((key) => redis.shardSwap(rebuildCopyKey(key), key, retiredKey(key), expireAt))),
        keptSizes(board, Number(expireAt)),
      );
    });
    const label = boardLabel(board);
    await redis.boardEvent(boardVersionsKey(season.id), updatesChannel(dbOf(redis), season.id), label, 'swap', '');
  }
  return rebuilder;
}
