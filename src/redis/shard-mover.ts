// The season's mover: members that change shard move under one lock per season, inside a move
// window that readers detect and start over on (docs/scale-out.md).
import type { Redis } from 'ioredis';
import { moveEpochKey, moverLockKey, movingKey } from './keys.js';
import type { KeptSizes, Sharded } from './sharded-boards.js';

/** A mover that died keeps the lock and the move marker this long at most. */
const MOVE_TTL_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding the season's mover lock (one mover per season at a time, across processes). */
export async function withMoverLock<T>(redis: Redis, seasonId: number, fn: () => Promise<T>): Promise<T> {
  const key = moverLockKey(seasonId);
  const token = `${process.pid}.${Math.random().toString(36).slice(2)}`;
  const deadline = Date.now() + MOVE_TTL_MS * 2;
  for (let wait = 1; (await redis.set(key, token, 'PX', MOVE_TTL_MS, 'NX')) !== 'OK'; wait = Math.min(wait * 2, 50)) {
    // A failure here leaves the chunk unapplied: the consumer retries it (nothing is lost).
    if (Date.now() > deadline) throw new Error(`the mover lock of season ${seasonId} stayed taken`);
    await sleep(wait);
  }
  try {
    return await fn();
  } finally {
    // Only our own lock: after a TTL expiry another mover may hold it.
    if ((await redis.get(key)) === token) await redis.del(key);
  }
}

/**
 * Runs `fn` (which moves members between shards, or adds or removes some) inside a move window:
 * readers that overlap it start over (readShardedBoard). With `kept`, the board's kept sizes are
 * deleted when the window opens and written again, counted under the mover lock (no one else
 * changes membership), when it closes: a reader that saw no window around its read saw exact
 * sizes. Left open on a failure, the marker expires and the sizes stay absent (readers count
 * every shard) until the board's next window.
 */
export async function inMoveWindow<T>(
  redis: Redis,
  seasonId: number,
  fn: () => Promise<T>,
  kept: KeptSizes | null = null,
): Promise<T> {
  const open = redis.multi().set(movingKey(seasonId), '1', 'PX', MOVE_TTL_MS).incr(moveEpochKey(seasonId));
  if (kept) open.del(kept.key);
  await open.exec();
  const result = await fn();
  const close = redis.multi();
  if (kept) {
    const sizes = await Promise.all(kept.shards.map((k) => redis.zcard(k)));
    close.set(kept.key, sizes.join(','));
    if (kept.expireAt > 0) close.expireat(kept.key, kept.expireAt);
  }
  await close.del(movingKey(seasonId)).incr(moveEpochKey(seasonId)).exec();
  return result;
}

/** Counts a board's shards again into its kept sizes (a repair, or after a bulk load), under the mover lock. */
export async function recountShardSizes(redis: Redis, season: Sharded, kept: KeptSizes): Promise<void> {
  await withMoverLock(redis, season.id, () => inMoveWindow(redis, season.id, async () => {}, kept));
}
