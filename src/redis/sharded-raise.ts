// Ingest's writes to a sharded board: raise only, members crossing into another range moved by the
// season's mover (shard-mover.ts), one event per write with global ranks.
import type { Redis } from 'ioredis';
import { bestHeld, eventUpdates, readChanges, type ShardChange } from '../domain/shard-changes.js';
import { codecOf } from '../domain/score-codec.js';
import { shardLowers, shardOf } from '../domain/shards.js';
import { dbOf } from './client.js';
import { boardLabel, boardVersionsKey, rebuildMarkerKey, updatesChannel } from './keys.js';
import { inMoveWindow, withMoverLock } from './shard-mover.js';
import {
  copyExpireAt,
  copyKeys,
  heldScores,
  keptSizes,
  shardKeys,
  stepOf,
  type KeptSizes,
  type Sharded,
  type ShardedBoard,
} from './sharded-boards.js';

/**
 * Writes one board's standings (member, composite pairs), only ever raising a score, and returns
 * how many rose. While a rebuild of the season runs, its copy of the board gets them first (so a
 * write never lands on the live shards before a swap and on the copies after it). Then the board's
 * version rises once and one event announces every change, with global ranks.
 */
export async function writeShardedBoard(
  redis: Redis,
  board: ShardedBoard,
  pairs: ReadonlyArray<readonly [string, number]>,
  expireAt: number,
): Promise<number> {
  const season = board.season;
  const codec = codecOf(season);
  const lowers = shardLowers(season);
  const keys = shardKeys(board);
  const byShard = keys.map((): string[] => []);
  for (const [member, score] of pairs) byShard[shardOf(lowers, score)]!.push(member, codec.toRedis(score));
  // Read after PostgreSQL committed these standings: no marker means the rebuild's snapshot has them.
  const rebuildMs = await redis.pttl(rebuildMarkerKey(season.id));
  if (rebuildMs > 0) await raiseOnShards(redis, season, copyKeys(keys), byShard, copyExpireAt(rebuildMs), null);
  const kept = keptSizes(board, expireAt);
  const changes = await raiseOnShards(redis, season, keys, byShard, expireAt, kept);
  if (changes.length > 0) await announce(redis, board, keys, changes, '');
  return changes.length;
}

/**
 * Raises members on a board's shards (`keys`, the live ones or a rebuild's copies), `byShard[k]`
 * the member, score pairs of shard k. Members stay on their shard in one script call per shard;
 * members new to the shard their score belongs to (new players, and players crossing into a
 * better range) go through the season's mover, which checks every shard and moves them (`place`).
 */
async function raiseOnShards(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  byShard: ReadonlyArray<readonly string[]>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<ShardChange[]> {
  const step = stepOf(season);
  const changes: ShardChange[] = [];
  const absent: Array<[member: string, score: string, shard: number]> = [];
  await Promise.all(
    byShard.map(async (args, k) => {
      if (args.length === 0) return;
      const [changed, missing] = await redis.shardWrite(keys[k]!, String(expireAt), step, 'present', ...args);
      readChanges(changed, k, changes);
      for (let i = 0; i < missing.length; i += 2) absent.push([missing[i]!, missing[i + 1]!, k]);
    }),
  );
  if (absent.length > 0) {
    changes.push(...(await withMoverLock(redis, season.id, () => place(redis, season, keys, absent, expireAt, kept))));
  }
  return changes;
}

/**
 * Places members that were not on the shard of their new score, holding the mover lock (so two
 * movers never interleave on a player). Reads every shard's score of them; a member on no shard is
 * added; a member already holding an equal or better score elsewhere is left alone (ZADD GT
 * across shards: a replayed or stale standing changes nothing); any other is moved: added to its
 * new shard, then removed from every other, inside a move window that readers detect
 * (`moving` marker and move epoch, shardedHead-4.lua), so no reader sees it on two shards or none.
 * On a live board (`kept`: not a rebuild's copies) new members open a window too: it keeps the
 * board's shard sizes exact.
 */
export async function place(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  absent: ReadonlyArray<readonly [string, string, number]>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<ShardChange[]> {
  const held = await heldScores(
    redis,
    keys,
    absent.map(([m]) => m),
  );
  const adds = keys.map((): string[] => []);
  const removes = keys.map((): string[] => []);
  const oldOf = new Map<string, string>();
  absent.forEach(([member, score, target], i) => {
    const best = bestHeld(held, i);
    if (best !== null && Number(best) >= Number(score)) return;
    adds[target]!.push(member, score);
    held.forEach((s, k) => s[i] != null && k !== target && removes[k]!.push(member));
    if (best !== null) oldOf.set(member, best);
  });
  const changes: ShardChange[] = [];
  const write = async () => {
    await Promise.all(
      adds.map(async (args, k) => {
        if (args.length === 0) return;
        const [changed] = await redis.shardWrite(keys[k]!, String(expireAt), stepOf(season), 'any', ...args);
        readChanges(changed, k, changes);
      }),
    );
    await Promise.all(removes.map((r, k) => (r.length > 0 ? redis.zrem(keys[k]!, ...r) : Promise.resolve(0))));
  };
  // On copies, only a member that leaves a shard is a move; new members touch one shard atomically.
  if (kept ? adds.some((a) => a.length > 0) : removes.some((r) => r.length > 0)) {
    await inMoveWindow(redis, season.id, write, kept);
  } else await write();
  for (const c of changes) c.old = oldOf.get(c.member) ?? c.old;
  return changes;
}

/** Raises the board's version and publishes its changes with global ranks (local + better shards' sizes). */
export async function announce(
  redis: Redis,
  board: ShardedBoard,
  keys: readonly string[],
  changes: readonly ShardChange[],
  kind: '' | 'reset',
): Promise<void> {
  const sizes = await Promise.all(keys.map((k) => redis.zcard(k)));
  await redis.boardEvent(
    boardVersionsKey(board.season.id),
    updatesChannel(dbOf(redis), board.season.id),
    boardLabel(board),
    kind,
    JSON.stringify(eventUpdates(changes, sizes)),
  );
}
