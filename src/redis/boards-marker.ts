import type { Redis } from 'ioredis';
import type { BoardsMarker } from '../service/board-restore.js';
import { boardsMarkerKey } from './keys.js';

/** The marker of service/board-restore.ts: "restoring" with a lease, then "complete" (no TTL). */
export function createBoardsMarker(redis: Redis): BoardsMarker {
  const key = boardsMarkerKey();
  return {
    async claim(leaseMs) {
      return (await redis.set(key, 'restoring', 'PX', leaseMs, 'NX')) === 'OK';
    },
    async renew(leaseMs) {
      await redis.pexpire(key, leaseMs);
    },
    async complete() {
      // XX: a Redis emptied since the claim has no marker, and must not be marked complete.
      return (await redis.set(key, 'complete', 'XX')) === 'OK';
    },
    async release() {
      await redis.del(key);
    },
  };
}
