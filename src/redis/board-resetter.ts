import type { Redis } from 'ioredis';
import type { BoardRef } from '../domain/board-deltas.js';
import { isDomainError } from '../domain/errors.js';
import type { StandingValue } from '../domain/ranking.js';
import type { Season } from '../domain/season.js';
import { boardExpireAt, isBoardExpired, scopedBoard, type Board } from '../domain/board.js';
import { feedsGroupBoard, refreshGroupTotals } from './group-totals.js';
import { codecOf } from '../domain/score-codec.js';
import { boardKey, boardLabel, boardVersionsKey, rebuildCopyKey, rebuildMarkerKey, updatesChannel } from './keys.js';
import { dbOf } from './client.js';
import { isShardedBoard } from './sharded-boards.js';
import { setShardedBoard } from './sharded-exact.js';

/** A standing to set exactly on one board; null removes the member. */
export interface ExactStanding extends BoardRef {
  standing: StandingValue | null;
}

/** What a reset did. */
export interface ResetReport {
  /** Members whose score changed or that were removed. */
  changed: number;
  /** DAY/WEEK boards past their expiry: left alone (PostgreSQL keeps their history). */
  expiredBoards: number;
  /** Standings no score of the season can encode: left as they are on the board. */
  unencodable: ExactStanding[];
}

/**
 * Writes standings to the boards as exact values, lower ones included (setStandings-4.lua, one
 * call per board, pipelined): the explicit path for removing a cheater, never used by ingest.
 */
export function createBoardResetter(redis: Redis, windowTtlSeconds: number) {
  return {
    /** Sets every standing of one season exactly, as PostgreSQL committed them. */
    async reset(season: Season, standings: readonly ExactStanding[], nowMs: number): Promise<ResetReport> {
      const codec = codecOf(season);
      const report: ResetReport = { changed: 0, expiredBoards: 0, unencodable: [] };
      const byBoard = new Map<string, { first: ExactStanding; args: string[] }>();
      for (const s of standings) {
        const key = boardKey({ season, window: s.window, period: s.period, scope: s.scope });
        let board = byBoard.get(key);
        if (!board) byBoard.set(key, (board = { first: s, args: [] }));
        try {
          board.args.push(
            s.playerId,
            s.standing ? codec.toRedis(codec.encode(s.standing.points, s.standing.achievedAt)) : '',
          );
        } catch (err) {
          // Only a SUM total past the season's point bits: ingest could not show it either.
          if (!isDomainError(err)) throw err;
          report.unencodable.push(s);
        }
      }
      const pipeline = redis.pipeline();
      const isSet: boolean[] = []; // which pipeline replies are setStandings counts
      const groups: Array<{ board: Board; expireAt: number }> = [];
      for (const [key, { first, args }] of byBoard) {
        const board = scopedBoard({ season, window: first.window, period: first.period }, first.scope);
        const expireAt = boardExpireAt(board, windowTtlSeconds);
        // A write to an expired board would only recreate a dead key, without its TTL.
        if (isBoardExpired(expireAt, nowMs)) {
          report.expiredBoards++;
          continue;
        }
        if (args.length === 0) continue;
        if (isShardedBoard(board)) {
          // Score-range shards (docs/scale-out.md): the member may change shard.
          const pairs: Array<[string, number | null]> = [];
          for (let i = 0; i < args.length; i += 2)
            pairs.push([args[i]!, args[i + 1] === '' ? null : Number(args[i + 1])]);
          report.changed += await setShardedBoard(redis, board, pairs, expireAt);
          continue;
        }
        if (feedsGroupBoard(board)) groups.push({ board, expireAt });
        pipeline.setStandings(
          key,
          rebuildMarkerKey(season.id),
          rebuildCopyKey(key),
          boardVersionsKey(season.id),
          updatesChannel(dbOf(redis), season.id),
          boardLabel(board),
          ...args,
        );
        isSet.push(true);
        // setStandings sets no TTL: a board it had to create (Redis lost it) still expires on time.
        if (expireAt !== 0) {
          pipeline.expireat(key, expireAt);
          isSet.push(false);
        }
      }
      if (isSet.length === 0) return report;
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([err, reply], i) => {
        if (err) throw err;
        if (isSet[i]) report.changed += reply as number;
      });
      await refreshGroupTotals(redis, groups);
      return report;
    },
  };
}
