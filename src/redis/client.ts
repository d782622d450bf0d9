import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { defineScripts } from './scripts.js';

/**
 * A Redis client with ladder's scripts registered. A command fails after two reconnect
 * attempts instead of queueing forever, so callers see an outage and can retry or answer.
 */
export function createRedis(url: string, logger?: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: false });
  // Without a listener ioredis prints every connection error; reconnecting is automatic.
  redis.on('error', (err: Error) => logger?.warn({ err: err.message }, 'redis connection error'));
  return defineScripts(redis);
}

/** The database number a client works in (pub/sub channels carry it: see keys.ts). */
export function dbOf(redis: Redis): number {
  return redis.options.db ?? 0;
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
