import type { Redis } from 'ioredis';
import { seasonBoard } from '../domain/board.js';
import type { SeasonKeys } from '../service/close-season.js';
import { dbOf, scanKeys } from './client.js';
import { boardKey, boardVersionsKey, seasonKeysPattern, shardKeysPattern, updatesChannel } from './keys.js';

/**
 * Removes a closed season's keys. UNLINK, never DEL: DEL frees a large board's members before
 * Redis answers anyone else, UNLINK frees them in a background thread (docs/design.md#measured-facts).
 */
export function createSeasonKeys(redis: Redis): SeasonKeys {
  return {
    async remaining(seasonId) {
      return (await redis.exists(boardKey(seasonBoard({ id: seasonId })), boardVersionsKey(seasonId))) > 0;
    },

    async remove(seasonId) {
      // The SEASON board and the versions go last: while either exists, a cleanup is unfinished
      // (SeasonKeys.remaining); a sharded season's boards are its shard keys, removed first.
      const last = [boardKey(seasonBoard({ id: seasonId })), boardVersionsKey(seasonId)];
      let removed = 0;
      for (const pattern of [shardKeysPattern(seasonId), seasonKeysPattern(seasonId)]) {
        await scanKeys(redis, pattern, async (keys) => {
          // One UNLINK per key: a cluster refuses one command over several slots.
          for (const key of keys) if (!last.includes(key)) removed += await redis.unlink(key);
        });
      }
      removed += await redis.unlink(...last);
      // Every process drops what it cached of the season's boards (see redis/live-pubsub.ts).
      await redis.publish(updatesChannel(dbOf(redis), seasonId), JSON.stringify({ k: 'close' }));
      return removed;
    },
  };
}
