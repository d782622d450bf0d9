import type { Redis } from 'ioredis';
import type { Board } from '../domain/board.js';
import type { GroupStanding } from '../domain/scopes.js';
import { boardKey, groupsKey } from './keys.js';

/**
 * The first `first` groups of a board's group board (docs/design.md#group-boards), best total first
 * (equal totals in the group board's member order), with each group's member count: a
 * ZREVRANGE, then a ZCARD per group in one pipeline (a count may be a moment newer than its total).
 */
export async function readGroupBoard(redis: Redis, board: Board, first: number): Promise<GroupStanding[]> {
  const list = await redis.zrevrange(groupsKey(board), 0, first - 1, 'WITHSCORES');
  const groups: Array<{ group: string; points: number }> = [];
  for (let i = 0; i < list.length; i += 2) groups.push({ group: list[i]!, points: Number(list[i + 1]) });
  if (groups.length === 0) return [];
  const sizes = redis.pipeline();
  for (const g of groups) sizes.zcard(boardKey({ ...board, scope: `g:${g.group}` }));
  const counts = (await sizes.exec()) ?? [];
  return groups.map((g, i) => ({ ...g, rank: i + 1, members: Number(counts[i]?.[1] ?? 0) }));
}
