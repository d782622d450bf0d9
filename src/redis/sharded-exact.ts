// Exact writes to a sharded board (player removal, reconcile's repairs): lower scores and removals
// included, under the season's mover lock (shard-mover.ts), one "reset" event per write.
import type { Redis } from 'ioredis';
import { unavailable } from '../domain/errors.js';
import { mergeExactChanges, readChanges, shownScore, staying, type ShardChange } from '../domain/shard-changes.js';
import { codecOf } from '../domain/score-codec.js';
import { shardLowers, shardOf } from '../domain/shards.js';
import { rebuildMarkerKey } from './keys.js';
import { inMoveWindow, withMoverLock } from './shard-mover.js';
import { announce } from './sharded-raise.js';
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
 * Sets members exactly on a board's shards (`keys`), lower scores included, or removes them (score
 * ''), holding the mover lock: each goes to the shard of its score and leaves every other, inside
 * a move window (on copies, only when any leaves a shard). `held` is what they held on each shard when read under
 * this lock; a member that an ingest raise changed since is left as the raise made it and comes
 * back in `conflicts` (shardSet-1.lua). Returns the changes, removals from a shard included.
 */
export async function setOnShards(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  pairs: ReadonlyArray<readonly [string, string]>,
  held: ReadonlyArray<ReadonlyArray<string | null>>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<{ changes: ShardChange[]; conflicts: Set<string> }> {
  const lowers = shardLowers(season);
  const codec = codecOf(season);
  const step = stepOf(season);
  const leaves = keys.map((): string[] => []);
  const sets = keys.map((): string[] => []);
  pairs.forEach(([member, score], i) => {
    const target = score === '' ? -1 : shardOf(lowers, codec.fromRedis(score));
    held.forEach((s, k) => s[i] != null && k !== target && leaves[k]!.push(member, s[i]!, ''));
    if (target >= 0) sets[target]!.push(member, held[target]![i] ?? '', score);
  });
  const changes: ShardChange[] = [];
  const conflicts = new Set<string>();
  const run = async (triples: ReadonlyArray<readonly string[]>) =>
    Promise.all(
      triples.map(async (args, k) => {
        // A member that could not leave a shard stays there: it must not be written elsewhere.
        const todo = args.flatMap((a, j) => (j % 3 === 0 && !conflicts.has(a) ? args.slice(j, j + 3) : []));
        if (todo.length === 0) return;
        const [changed, conflicting] = await redis.shardSet(keys[k]!, String(expireAt), step, ...todo);
        readChanges(changed, k, changes);
        for (const m of conflicting) conflicts.add(m);
      }),
    );
  const write = async () => {
    await run(leaves);
    await run(sets);
  };
  if (kept || leaves.some((l) => l.length > 0)) await inMoveWindow(redis, season.id, write, kept);
  else await write();
  return { changes, conflicts };
}

// An exact write retries members that a concurrent ingest raise changed this many times.
const SET_ATTEMPTS = 10;

/**
 * Sets members' scores exactly on a sharded board, lower ones included, or removes them (null):
 * the explicit path of player removal, never ingest. Holding the mover lock, each member is written
 * to the shard of its score and removed from every other, inside a move window (setOnShards), the
 * rebuild copies first while a rebuild runs; one "reset" event follows. Returns how many changed.
 */
export async function setShardedBoard(
  redis: Redis,
  board: ShardedBoard,
  pairs: ReadonlyArray<readonly [string, number | null]>,
  expireAt: number,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const { season, window, period } = board;
  const codec = codecOf(season);
  const keys = shardKeys(board);
  const exact = pairs.map(([m, score]): [string, string] => [m, score === null ? '' : codec.toRedis(score)]);
  const changes = await withMoverLock(redis, season.id, async () => {
    const rebuildMs = await redis.pttl(rebuildMarkerKey(season.id));
    if (rebuildMs > 0) await setUntilDone(copyKeys(keys), copyExpireAt(rebuildMs), null);
    return setUntilDone(keys, expireAt, keptSizes(board, expireAt));
  });
  return announceExact(redis, board, keys, changes, staying(exact));

  async function setUntilDone(on: readonly string[], at: number, kept: KeptSizes | null): Promise<ShardChange[]> {
    const out: ShardChange[] = [];
    let todo = exact;
    for (let attempt = 1; todo.length > 0; attempt++) {
      if (attempt > SET_ATTEMPTS)
        throw unavailable(`season ${season.id}: the exact write of ${window} ${period} kept racing ingest`);
      const held = await heldScores(
        redis,
        on,
        todo.map(([m]) => m),
      );
      const { changes, conflicts } = await setOnShards(redis, season, on, todo, held, at, kept);
      out.push(...changes);
      todo = todo.filter(([m]) => conflicts.has(m));
    }
    return out;
  }
}

/**
 * Reconcile's settle step on a sharded board (board-inspector.ts): holding the mover lock, reads
 * the members' scores (shownScore), asks `decide` which [member, score] pairs to write
 * (score '' removes) and, with `write`, writes them with setOnShards. A member that an ingest
 * raise changed in between is left as it is, for the next run. Returns how many entries changed.
 */
export async function settleShardedBoard(
  redis: Redis,
  board: ShardedBoard,
  members: readonly string[],
  decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>,
  write: boolean,
  expireAt: number,
): Promise<number> {
  const season = board.season;
  const keys = shardKeys(board);
  const changes = await withMoverLock(redis, season.id, async () => {
    const held = await heldScores(redis, keys, members);
    const pairs = await decide(members.map((_, i) => shownScore(held, i)));
    if (!write || pairs.length === 0) return { pairs, changes: [] };
    const index = new Map(members.map((m, i) => [m, i]));
    const heldOfPairs = held.map((s) => pairs.map(([m]) => s[index.get(m)!] ?? null));
    const kept = keptSizes(board, expireAt);
    return { pairs, changes: (await setOnShards(redis, season, keys, pairs, heldOfPairs, expireAt, kept)).changes };
  });
  return announceExact(redis, board, keys, changes.changes, staying(changes.pairs));
}

/** Announces exact writes as one "reset" event (mergeExactChanges) and returns how many members changed. */
async function announceExact(
  redis: Redis,
  board: ShardedBoard,
  keys: readonly string[],
  changes: readonly ShardChange[],
  stays: ReadonlySet<string>,
): Promise<number> {
  const { count, listed } = mergeExactChanges(changes, stays);
  if (count > 0) await announce(redis, board, keys, listed, 'reset');
  return count;
}
