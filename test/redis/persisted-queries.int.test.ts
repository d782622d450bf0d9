import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { persistedQueryKey } from '../../src/redis/keys.js';
import { createPersistedQueries } from '../../src/redis/persisted-queries.js';
import { testConfig } from '../support/env.js';
import { openServices, waitFor, type Services } from '../support/services.js';

// The automatic persisted queries every API process shares, on the real Redis.
let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

it('stores a query by its hash with a TTL that each lookup renews', async () => {
  const errors: unknown[] = [];
  const store = createPersistedQueries(s.redis, { ttlSeconds: 600, onError: (e) => errors.push(e) });
  const query = `{ seasons { id } } # ${randomUUID()}`;
  const hash = sha256(query);
  expect(await store.get(hash)).toBeUndefined();

  store.set(hash, query);
  await waitFor('the stored query', async () => (await store.get(hash)) === query);
  await s.redis.expire(persistedQueryKey(hash), 5);
  expect(await store.get(hash)).toBe(query);
  expect(await s.redis.ttl(persistedQueryKey(hash))).toBeGreaterThan(590);
  expect(errors).toEqual([]);
});

it('looks up nothing but SHA-256 hex digests', async () => {
  const store = createPersistedQueries(s.redis, { ttlSeconds: 600, onError: () => {} });
  // A key that exists, under a name no digest has: never read.
  const notADigest = `x${'0'.repeat(63)}`;
  await s.redis.set(persistedQueryKey(notADigest), '{ seasons { id } }', 'EX', 60);
  expect(await store.get(notADigest)).toBeUndefined();
  expect(await store.get('A'.repeat(64))).toBeUndefined();
});

it('finds nothing while Redis is unreachable, and reports the failures', async () => {
  const down = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  down.on('error', () => {}); // the connection's own failures: each command's is what counts here
  const errors: unknown[] = [];
  const store = createPersistedQueries(down, { ttlSeconds: 600, onError: (e) => errors.push(e) });
  const query = `{ seasons { id } } # ${randomUUID()}`;
  expect(await store.get(sha256(query))).toBeUndefined();
  store.set(sha256(query), query);
  await waitFor('both failures reported', async () => errors.length === 2);
  down.disconnect();
});
