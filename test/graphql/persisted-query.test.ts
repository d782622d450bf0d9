import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.js';
import type { Params } from '../../src/graphql/http-params.js';
import { createPersistedQueryResolver, type PersistedQueries } from '../../src/graphql/persisted-query.js';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

/** The shared store as a map: what redis/persisted-queries.ts keeps for every API process. */
function sharedStore(entries: Record<string, string> = {}) {
  const map = new Map(Object.entries(entries));
  const gets: string[] = [];
  const store: PersistedQueries = {
    get: (h) => {
      gets.push(h);
      return Promise.resolve(map.get(h));
    },
    set: (h, q) => void map.set(h, q),
  };
  return { store, map, gets };
}

const withHash = (sha256Hash: unknown, query?: string): Params =>
  ({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } }) as Params;

describe('createPersistedQueryResolver', () => {
  it('leaves a request without the extension alone', async () => {
    const params: Params = { query: '{a}' };
    expect(await createPersistedQueryResolver(sharedStore().store).resolve(params)).toBeUndefined();
    expect(params.query).toBe('{a}');
  });

  it('hands a hash that is not a string to yoga', async () => {
    expect(await createPersistedQueryResolver(sharedStore().store).resolve(withHash(12))).toBe('yoga');
  });

  it('refuses a query whose hash does not match, and keeps nothing', async () => {
    const shared = sharedStore();
    const answer = await createPersistedQueryResolver(shared.store).resolve(withHash(hash('{b}'), '{a}'));
    expect(isDomainError(answer) && answer.code).toBe('BAD_USER_INPUT');
    expect(shared.map.size).toBe(0);
  });

  it('registers a query with its hash, then answers the hash alone without asking the shared store', async () => {
    const shared = sharedStore();
    const resolver = createPersistedQueryResolver(shared.store);
    expect(await resolver.resolve(withHash(hash('{a}'), '{a}'))).toBeUndefined();
    expect(shared.map.get(hash('{a}'))).toBe('{a}');
    const params = withHash(hash('{a}'));
    expect(await resolver.resolve(params)).toBeUndefined();
    expect(params.query).toBe('{a}');
    expect(shared.gets).toEqual([]);
  });

  it('finds a hash another process registered, once', async () => {
    const shared = sharedStore({ [hash('{c}')]: '{c}' });
    const resolver = createPersistedQueryResolver(shared.store);
    for (let i = 0; i < 2; i++) {
      const params = withHash(hash('{c}'));
      expect(await resolver.resolve(params)).toBeUndefined();
      expect(params.query).toBe('{c}');
    }
    expect(shared.gets).toEqual([hash('{c}')]);
  });

  it('answers PERSISTED_QUERY_NOT_FOUND for an unknown hash', async () => {
    const answer = await createPersistedQueryResolver(sharedStore().store).resolve(withHash(hash('{d}')));
    expect(answer instanceof Error && (answer as { extensions?: { code?: string } }).extensions?.code).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });
});
