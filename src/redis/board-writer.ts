import type { Redis } from 'ioredis';
import type { BoardStanding } from '../domain/board-deltas.js';
import { isDomainError } from '../domain/errors.js';
import { boardExpireAt, isBoardExpired, scopedBoard, type Board } from '../domain/board.js';
import { feedsGroupBoard, refreshGroupTotals } from './group-totals.js';
import { codecOf } from '../domain/score-codec.js';
import type { Season } from '../domain/season.js';
import {
  boardKey,
  boardLabel,
  boardVersionsKey,
  groupsKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  updatesChannel,
} from './keys.js';
import { dbOf } from './client.js';
import { isShardedBoard } from './sharded-boards.js';
import { writeShardedBoard } from './sharded-raise.js';

/** Mirrors committed standings into the Redis boards. */
export function createBoardWriter(redis: Redis, windowTtlSeconds: number) {
  return {
    /**
     * Writes each standing to its board where it raises the score (ZADD GT), or on a LAST board
     * where it is newer (one Lua call per board, pipelined), and returns how many members changed,
     * and the standings no score can encode. Boards whose key has already expired are skipped:
     * their history stays in PostgreSQL, and a late write would only recreate a dead key.
     */
    async write(
      standings: readonly BoardStanding[],
      seasonOf: (id: number) => Season,
      nowMs: number,
    ): Promise<{ changed: number; unencodable: BoardStanding[] }> {
      const unencodable: BoardStanding[] = [];
      const byBoard = new Map<string, BoardStanding[]>();
      for (const s of standings) {
        const key = boardKey({ season: { id: s.seasonId }, window: s.window, period: s.period, scope: s.scope });
        const list = byBoard.get(key);
        if (list) list.push(s);
        else byBoard.set(key, [s]);
      }
      const pipeline = redis.pipeline();
      const sharded: Array<Promise<number>> = [];
      const groups: Array<{ board: Board; expireAt: number }> = [];
      for (const [key, list] of byBoard) {
        const first = list[0]!;
        const season = seasonOf(first.seasonId);
        const board = scopedBoard({ season, window: first.window, period: first.period }, first.scope);
        const expireAt = boardExpireAt(board, windowTtlSeconds);
        if (isBoardExpired(expireAt, nowMs)) continue;
        const codec = codecOf(season);
        const pairs: Array<[string, number]> = [];
        for (const s of list) {
          try {
            pairs.push([s.playerId, codec.encode(s.points, s.achievedAt)]);
          } catch (err) {
            // Only a SUM total past the season's point bits gets here: PostgreSQL keeps it, the
            // board cannot show it. Retrying would stall the partition forever, so report it.
            if (!isDomainError(err)) throw err;
            unencodable.push(s);
          }
        }
        if (pairs.length === 0) continue;
        if (isShardedBoard(board)) {
          // A board of score-range shards (docs/scale-out.md): its own calls, one per shard.
          sharded.push(writeShardedBoard(redis, board, pairs, expireAt));
          continue;
        }
        // A clan's total of every member moves with the scores in the same script; a total of the
        // best N members is recomputed after (docs/design.md#group-boards).
        const summed = feedsGroupBoard(board) && !season.groupBestOf;
        if (feedsGroupBoard(board) && !summed) groups.push({ board, expireAt });
        const args = pairs.flatMap(([member, score]) => [member, codec.toRedis(score)]);
        const pointsStep = codec.toRedis(codec.maxTime + 1);
        pipeline.applyStandings(
          key,
          rebuildMarkerKey(season.id),
          rebuildCopyKey(key),
          boardVersionsKey(season.id),
          groupsKey(board),
          String(expireAt),
          updatesChannel(dbOf(redis), season.id),
          boardLabel(board),
          season.rankStyle === 'COMPETITION' ? pointsStep : '0',
          summed ? first.scope!.slice(2) : '',
          pointsStep,
          season.scoring === 'LAST' ? 'LAST' : 'GT',
          ...args,
        );
      }
      const [replies, shardedChanged] = await Promise.all([
        pipeline.length > 0 ? pipeline.exec().then((r) => r ?? []) : [],
        Promise.all(sharded),
      ]);
      let changed = shardedChanged.reduce((a, n) => a + n, 0);
      for (const [err, n] of replies) {
        if (err) throw err;
        changed += n as number;
      }
      await refreshGroupTotals(redis, groups);
      return { changed, unencodable };
    },
  };
}
