import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/domain/errors.js';
import { DomainError } from '../../src/domain/errors.js';
import { createApiKeysRepo, type ApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import {
  createApiKey,
  createAuthenticator,
  hashApiKey,
  requireScope,
  type ApiKeyStore,
  type Principal,
} from '../../src/service/api-keys.js';
import { testConfig, uniqueName } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

const CACHE_TTL_MS = 5_000;

let s: Services;
let repo: ApiKeysRepo;

beforeAll(() => {
  s = openServices(testConfig());
  repo = createApiKeysRepo(s.pg.db);
});

afterAll(async () => {
  await s?.close();
});

/** Asserts `p` rejects with a DomainError of this code (and field). */
async function expectCode(p: Promise<unknown>, code: ErrorCode, field?: string): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject(field ? { code, field } : { code });
}

/** The real repository, counting the lookups that reach PostgreSQL. */
function countingStore(): ApiKeyStore & { lookups: number } {
  const store = {
    lookups: 0,
    insert: repo.insert,
    findActiveByHash(hash: string) {
      store.lookups++;
      return repo.findActiveByHash(hash);
    },
  };
  return store;
}

const scopesOf = (p: Principal | null) => [...(p?.scopes ?? [])].sort();
// Well formed (ldr_ + 43 base64url characters) but never created.
const unknownKey = `ldr_${'A'.repeat(43)}`;

describe('createApiKey', () => {
  it('returns a random ldr_ key that authenticates with exactly its scopes', async () => {
    const created = await createApiKey(repo, { name: uniqueName('game-server'), scopes: ['submit'] });
    expect(created.key).toMatch(/^ldr_[A-Za-z0-9_-]{43}$/);
    const principal = await createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(
      `Bearer ${created.key}`,
    );
    expect(principal).toMatchObject({ keyId: created.id, name: created.name });
    expect(scopesOf(principal)).toEqual(['submit']);
  });

  it('stores only the SHA-256 of the key, never the key itself', async () => {
    const created = await createApiKey(repo, { name: uniqueName('stored'), scopes: ['submit', 'admin'] });
    const rows = await s.pg.sql`select * from api_keys where id = ${created.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(hashApiKey(created.key));
    expect(hashApiKey(created.key)).toMatch(/^[0-9a-f]{64}$/);
    // Not in any column of any row, nor any part of the key's random body.
    const [{ n }] = await s.pg.sql<[{ n: number }]>`
      select count(*)::int as n from api_keys k where strpos(k::text, ${created.key.slice(4)}) > 0`;
    expect(n).toBe(0);
  });

  it('gives every key different random bytes', async () => {
    const name = uniqueName('twice');
    const [a, b] = await Promise.all([0, 1].map(() => createApiKey(repo, { name, scopes: ['submit'] })));
    expect(a!.key).not.toBe(b!.key);
  });

  it.each<[string, { name: string; scopes: string[] }, string]>([
    ['an unknown scope', { name: 'k', scopes: ['submit', 'root'] }, 'scope'],
    ['no scope at all', { name: 'k', scopes: [] }, 'scope'],
    ['an empty name', { name: '', scopes: ['submit'] }, 'name'],
    ['a blank name', { name: '   ', scopes: ['submit'] }, 'name'],
    ['a name over 100 characters', { name: 'x'.repeat(101), scopes: ['submit'] }, 'name'],
  ])('refuses %s with BAD_USER_INPUT on its field', async (_, input, field) => {
    const store = {
      insert: () => Promise.reject(new Error('must not be stored')),
      findActiveByHash: repo.findActiveByHash,
    };
    await expectCode(createApiKey(store, input), 'BAD_USER_INPUT', field);
  });

  it('accepts a name of exactly 100 characters', async () => {
    const created = await createApiKey(repo, { name: `${uniqueName('n')}`.padEnd(100, 'x'), scopes: ['admin'] });
    expect(created.name).toHaveLength(100);
  });
});

describe('authenticate', () => {
  it('returns null when there is no Authorization header', async () => {
    const auth = createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS });
    expect(await auth.authenticate(undefined)).toBeNull();
    expect(await auth.authenticate(null)).toBeNull();
    expect(await auth.authenticate('')).toBeNull();
  });

  it('accepts the Bearer scheme in any case', async () => {
    const { key, id } = await createApiKey(repo, { name: uniqueName('case'), scopes: ['submit'] });
    const auth = createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS });
    for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER  ${key} `]) {
      expect((await auth.authenticate(header))?.keyId, header).toBe(id);
    }
  });

  it('refuses a well-formed key that was never created', async () => {
    await expectCode(
      createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(`Bearer ${unknownKey}`),
      'UNAUTHENTICATED',
    );
  });

  it.each([
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a scheme without a key', 'Bearer'],
    ['no space after the scheme', `Bearer${unknownKey}`],
    ['a bare key', unknownKey],
    ['two tokens', `Bearer ${unknownKey} extra`],
    ['a key without the ldr_ prefix', `Bearer ${'A'.repeat(47)}`],
    ['a truncated key', `Bearer ${unknownKey.slice(0, -1)}`],
    ['a key with characters outside base64url', `Bearer ldr_${'+'.repeat(43)}`],
  ])('refuses a malformed header (%s) without asking the store', async (_, header) => {
    const store = countingStore();
    await expectCode(createAuthenticator(store, { cacheTtlMs: CACHE_TTL_MS }).authenticate(header), 'UNAUTHENTICATED');
    expect(store.lookups).toBe(0);
  });

  it('serves a hot key from its cache: one lookup for many requests, concurrent or not', async () => {
    const { key } = await createApiKey(repo, { name: uniqueName('hot'), scopes: ['submit'] });
    const store = countingStore();
    const auth = createAuthenticator(store, { cacheTtlMs: CACHE_TTL_MS, now: () => 0 });
    await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(`Bearer ${key}`)));
    for (let i = 0; i < 50; i++) await auth.authenticate(`Bearer ${key}`);
    expect(store.lookups).toBe(1);
  });

  it('caches misses too, so guessing keys does not query PostgreSQL per guess', async () => {
    const store = countingStore();
    const auth = createAuthenticator(store, { cacheTtlMs: CACHE_TTL_MS, now: () => 0 });
    for (let i = 0; i < 5; i++) await expectCode(auth.authenticate(`Bearer ${unknownKey}`), 'UNAUTHENTICATED');
    expect(store.lookups).toBe(1);
  });

  it('refuses a revoked key once the cache TTL has passed, and not before', async () => {
    const { key, id } = await createApiKey(repo, { name: uniqueName('revoked'), scopes: ['submit'] });
    let t = 1_000_000;
    const auth = createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS, now: () => t });
    expect((await auth.authenticate(`Bearer ${key}`))?.keyId).toBe(id);
    expect(await repo.revoke(id)).toBe(true);
    t += 4_999; // documented staleness: still cached
    expect((await auth.authenticate(`Bearer ${key}`))?.keyId).toBe(id);
    t += 1;
    await expectCode(auth.authenticate(`Bearer ${key}`), 'UNAUTHENTICATED');
    // A fresh authenticator (a restarted server) refuses it at once.
    await expectCode(
      createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(`Bearer ${key}`),
      'UNAUTHENTICATED',
    );
  });

  it('answers UNAVAILABLE when the store fails, and asks again on the next request', async () => {
    let fail = true;
    const { key } = await createApiKey(repo, { name: uniqueName('flaky'), scopes: ['submit'] });
    const store: ApiKeyStore = {
      insert: repo.insert,
      findActiveByHash: (h) => (fail ? Promise.reject(new Error('connection refused')) : repo.findActiveByHash(h)),
    };
    const auth = createAuthenticator(store, { cacheTtlMs: CACHE_TTL_MS, now: () => 0 });
    await expectCode(auth.authenticate(`Bearer ${key}`), 'UNAVAILABLE');
    fail = false;
    expect(await auth.authenticate(`Bearer ${key}`)).not.toBeNull();
  });
});

describe('requireScope', () => {
  it('refuses an anonymous caller with UNAUTHENTICATED', () => {
    expect(() => requireScope(null, 'submit')).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
  });

  it('refuses a key without the scope with FORBIDDEN, and passes one with it', async () => {
    const { key } = await createApiKey(repo, { name: uniqueName('submit-only'), scopes: ['submit'] });
    const principal = await createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(`Bearer ${key}`);
    expect(requireScope(principal, 'submit')).toBe(principal);
    expect(() => requireScope(principal, 'admin')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });
});
