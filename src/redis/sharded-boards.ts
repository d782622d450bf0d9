// Boards of a sharded season (docs/scale-out.md): each board is one ZSET per score range, each
// range under its own hash tag (so on its own master in Redis Cluster). board-writer.ts and
// board-reader.ts hand sharded seasons to sharded-raise.ts, sharded-exact.ts and sharded-read.ts,
// so callers never branch; shard-mover.ts keeps members on exactly one shard. This file: the keys.
import type { Redis } from 'ioredis';
import { codecOf } from '../domain/score-codec.js';
import type { Board } from '../domain/board.js';
import type { Season } from '../domain/season.js';
import type { ShardLayout } from '../domain/shards.js';
import { boardLabel, rebuildCopyKey, shardBoardKey, shardSizesKey } from './keys.js';

export type Sharded = Season & { shards: ShardLayout };

export function isSharded(season: Season): season is Sharded {
  return (season.shards?.tags.length ?? 0) > 0;
}

/** A board of a sharded season. */
export type ShardedBoard = Board<Sharded>;

/** A board of a sharded season; its scope boards are one ZSET each (a scope is a fraction of the board). */
export function isShardedBoard(board: Board): board is ShardedBoard {
  return isSharded(board.season) && !board.scope;
}

/** The composite-score step shardWrite/shardRange use for COMPETITION ties ('0': ORDINAL). */
export const stepOf = (season: Season) =>
  season.rankStyle === 'COMPETITION' ? String(codecOf(season).maxTime + 1) : '0';

/** The keys of a board's shards, worst range first. */
export function shardKeys(board: ShardedBoard): string[] {
  return board.season.shards.tags.map((t) => shardBoardKey(t, board.window, board.period));
}

/** A live board's shards and where their sizes are kept (the season's slot); rebuild copies keep none. */
export interface KeptSizes {
  key: string;
  shards: readonly string[];
  expireAt: number;
}

export function keptSizes(board: ShardedBoard, expireAt: number): KeptSizes {
  const key = shardSizesKey(board.season.id, boardLabel(board));
  return { key, shards: shardKeys(board), expireAt };
}

/** The rebuild copies of a board's shards (same slots as the shards). */
export const copyKeys = (keys: readonly string[]) => keys.map(rebuildCopyKey);

/** Unix seconds at which a rebuild copy written now expires, the marker's TTL `ttlMs` from now. */
export const copyExpireAt = (ttlMs: number) => Math.ceil((Date.now() + ttlMs) / 1000);

/** Each member's score on each shard (`[k][i]`, null: not there), read with one ZMSCORE per shard. */
export function heldScores(redis: Redis, keys: readonly string[], members: readonly string[]) {
  return Promise.all(keys.map((key) => redis.zmscore(key, ...members)));
}
