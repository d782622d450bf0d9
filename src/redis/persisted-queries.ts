import type { Redis } from 'ioredis';
import { persistedQueryKey } from './keys.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The query texts of automatic persisted queries, in Redis: a query registered through one API
 * process (a worker of API_WORKERS, another instance) is known to all of them, as a client
 * behind a load balancer expects. Each entry lives `ttlSeconds` past its last registration or
 * lookup; one that expired is registered again by the client (PERSISTED_QUERY_NOT_FOUND makes
 * it send the query). Redis trouble is no request's failure: a lookup that fails finds nothing
 * (the client then sends the query), a registration that fails is reported to `onError`.
 */
export function createPersistedQueries(redis: Redis, opts: { ttlSeconds: number; onError(err: unknown): void }) {
  return {
    async get(sha256Hash: string): Promise<string | undefined> {
      if (!SHA256_HEX.test(sha256Hash)) return undefined;
      try {
        return (await redis.getex(persistedQueryKey(sha256Hash), 'EX', opts.ttlSeconds)) ?? undefined;
      } catch (err) {
        opts.onError(err);
        return undefined;
      }
    },
    /** Stores a query whose hash was checked; does not wait for Redis. */
    set(sha256Hash: string, query: string): void {
      redis.set(persistedQueryKey(sha256Hash), query, 'EX', opts.ttlSeconds).catch(opts.onError);
    },
  };
}
