import { Redis } from 'ioredis';
import { defineScripts } from './scripts.js';

/** A Redis client with ladder's scripts registered. */
export function createRedis(url: string): Redis {
  return defineScripts(new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: false }));
}

/**
 * Refuses to run on a Redis that may evict keys: allkeys-* could drop any board and
 * volatile-* the DAY and WEEK boards (they carry a TTL). Only noeviction is safe.
 */
export async function assertNoBoardEviction(redis: Redis): Promise<void> {
  const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
  const policy = reply[1] ?? '';
  if (policy !== 'noeviction') {
    throw new Error(`Redis maxmemory-policy is ${policy}: it can evict a board. Use noeviction.`);
  }
}
