import type { Redis } from 'ioredis';
import type { SeasonKeys } from '../service/close-season.js';
import { dbOf, scanKeys } from './client.js';
import { boardKey, seasonKeysPattern, updatesChannel } from './keys.js';

/**
 * Removes a closed season's keys. UNLINK, never DEL: a 10M-member board blocks Redis for ~2 s
 * on DEL and ~10 ms on UNLINK, which frees the memory in a background thread
 * (docs/design.md#measured-facts).
 */
export function createSeasonKeys(redis: Redis): SeasonKeys {
  return {
    async remaining(seasonId) {
      return (await redis.exists(boardKey(seasonId, 'SEASON', ''))) === 1;
    },

    async remove(seasonId) {
      const seasonBoard = boardKey(seasonId, 'SEASON', '');
      let removed = 0;
      await scanKeys(redis, seasonKeysPattern(seasonId), async (keys) => {
        const others = keys.filter((k) => k !== seasonBoard);
        if (others.length > 0) removed += await redis.unlink(...others);
      });
      // The SEASON board goes last: while it exists, a cleanup is unfinished (SeasonKeys.remaining).
      removed += await redis.unlink(seasonBoard);
      // Every process drops what it cached of the season's boards (see redis/live-pubsub.ts).
      await redis.publish(updatesChannel(dbOf(redis), seasonId), JSON.stringify({ k: 'close' }));
      return removed;
    },
  };
}
