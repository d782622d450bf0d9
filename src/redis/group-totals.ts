import type { Redis } from 'ioredis';
import type { Board } from '../domain/board.js';
import { codecOf } from '../domain/score-codec.js';
import { boardKey, groupsKey } from './keys.js';

/** Does this board feed a group board: a group's scope board of a DESC board (a total of lap times means nothing)? */
export const feedsGroupBoard = (b: Board): boolean => !!b.scope?.startsWith('g:') && b.season.order === 'DESC';

/**
 * Sets the totals of these groups' scope boards on their boards' group boards (lua/groupTotal-2.lua),
 * after their members' standings were written: one pipelined call per group board touched.
 */
export async function refreshGroupTotals(
  redis: Redis,
  boards: Iterable<{ board: Board; expireAt: number }>,
): Promise<void> {
  const pipeline = redis.pipeline();
  for (const { board, expireAt } of boards) {
    if (!feedsGroupBoard(board)) continue;
    const step = codecOf(board.season).toRedis(codecOf(board.season).maxTime + 1);
    pipeline.groupTotal(
      boardKey(board),
      groupsKey(board),
      board.scope!.slice(2),
      step,
      String(board.season.groupBestOf ?? 0),
      String(expireAt),
    );
  }
  if (pipeline.length === 0) return;
  for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
}
