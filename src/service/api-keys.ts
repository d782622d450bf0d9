import { createHash, randomBytes } from 'node:crypto';
import { badInput, forbidden, unauthenticated, unavailable } from '../domain/errors.js';

/** What an API key may do; reads need no key at all. */
export type Scope = 'submit' | 'admin';

/** Every scope a key can be given. */
export const SCOPES: readonly Scope[] = Object.freeze(['submit', 'admin']);

/** The authenticated caller of a request. */
export interface Principal {
  keyId: number;
  name: string;
  scopes: ReadonlySet<Scope>;
}

/** Where keys live; only their SHA-256 is ever stored (src/postgres/api-keys-repo.ts). */
export interface ApiKeyStore {
  insert(key: { name: string; keyHash: string; scopes: readonly Scope[] }): Promise<{ id: number }>;
  /** The key with this hash while it works (not revoked, or within a rotation's grace period). */
  findActiveByHash(keyHash: string): Promise<{ id: number; name: string; scopes: readonly string[] } | undefined>;
}

const KEY_PREFIX = 'ldr_';
// 32 random bytes are 43 base64url characters (no padding).
const KEY_SHAPE = /^ldr_[A-Za-z0-9_-]{43}$/;
// RFC 6750: "Bearer" (any case) then the token; tabs and trailing blanks tolerated.
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;
const MAX_NAME_LENGTH = 100;

/** SHA-256 hex of a key: a fast hash is enough because keys carry 256 random bits, not a password. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True for a known scope name. */
function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/** Creates a key; the returned `key` is the only copy anywhere, so show it once. */
export async function createApiKey(
  store: ApiKeyStore,
  input: { name: string; scopes: readonly string[] },
): Promise<{ id: number; name: string; scopes: Scope[]; key: string }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    throw badInput('name', `name must be 1..${MAX_NAME_LENGTH} characters`);
  }
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw badInput('scope', `unknown scope ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  }
  // A key without a scope could do nothing reads cannot do without a key.
  if (input.scopes.length === 0) {
    throw badInput('scope', `at least one scope is required (${SCOPES.join(', ')})`);
  }
  const scopes = SCOPES.filter((s) => input.scopes.includes(s));
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const { id } = await store.insert({ name, keyHash: hashApiKey(key), scopes });
  return { id, name, scopes, key };
}

/**
 * Replaces key `id` by a new one with its name and scopes, shown once; the old key stops working
 * after `graceSeconds` (0: at once), so game servers can switch without a gap.
 */
export async function rotateApiKey(
  store: ApiKeyStore & {
    get(id: number): Promise<{ name: string; scopes: string[]; revokedAt: Date | null } | undefined>;
    revoke(id: number, graceSeconds: number): Promise<boolean>;
  },
  id: number,
  graceSeconds: number,
): Promise<{ id: number; name: string; scopes: Scope[]; key: string; oldStopsAt: Date }> {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > 30 * 86_400)
    throw badInput('grace-seconds', 'the grace period must be 0..2592000 seconds (30 days)');
  const old = await store.get(id);
  if (!old || (old.revokedAt && old.revokedAt.getTime() <= Date.now()))
    throw badInput('id', `no working API key with id ${id}`);
  const created = await createApiKey(store, { name: old.name, scopes: old.scopes });
  if (!(await store.revoke(id, graceSeconds))) throw badInput('id', `no working API key with id ${id}`);
  return { ...created, oldStopsAt: new Date(Date.now() + graceSeconds * 1000) };
}

/**
 * Resolves `Authorization` headers to principals. Lookups (hits and misses) are cached per key
 * hash for `cacheTtlMs`, so the hot submit path does not query PostgreSQL per request; the cost
 * is that a revoked key keeps working on a running server for up to `cacheTtlMs`.
 */
export function createAuthenticator(
  store: ApiKeyStore,
  opts: { cacheTtlMs: number; now?: () => number; maxCacheEntries?: number },
) {
  const { cacheTtlMs, now = Date.now, maxCacheEntries = 10_000 } = opts;
  if (!(cacheTtlMs >= 0) || !(maxCacheEntries >= 1)) throw new RangeError('cacheTtlMs >= 0 and maxCacheEntries >= 1');
  // The promise is cached, not its value: concurrent first requests share one query.
  const cache = new Map<string, { principal: Promise<Principal | null>; expires: number }>();

  function lookup(keyHash: string): Promise<Principal | null> {
    const t = now();
    const hit = cache.get(keyHash);
    if (hit && hit.expires > t) return hit.principal;
    cache.delete(keyHash); // re-inserted below at the end: Map order stays expiry order
    // Misses are cached too, so guessing keys costs no query; the bound keeps that memory flat.
    while (cache.size >= maxCacheEntries) cache.delete(cache.keys().next().value!);
    const entry = { principal: load(keyHash), expires: t + cacheTtlMs };
    cache.set(keyHash, entry);
    // A failed lookup is not an answer: forget it so the next request asks again.
    entry.principal.catch(() => {
      if (cache.get(keyHash) === entry) cache.delete(keyHash);
    });
    return entry.principal;
  }

  async function load(keyHash: string): Promise<Principal | null> {
    let row: Awaited<ReturnType<ApiKeyStore['findActiveByHash']>>;
    try {
      row = await store.findActiveByHash(keyHash);
    } catch (err) {
      // Retryable for the caller (a game server resubmits), unlike a bad key.
      throw unavailable('API keys cannot be checked right now', err);
    }
    if (!row) return null;
    return Object.freeze({ keyId: row.id, name: row.name, scopes: new Set(row.scopes.filter(isScope)) });
  }

  return {
    /**
     * The principal of a request: null without an Authorization header (a blank one counts as
     * none), UNAUTHENTICATED when the header is malformed or names an unknown or revoked key.
     */
    async authenticate(authorization: string | null | undefined): Promise<Principal | null> {
      if (authorization == null || authorization.trim() === '') return null;
      const token = BEARER.exec(authorization)?.[1];
      if (!token) throw unauthenticated('expected "Authorization: Bearer <API key>"');
      // Checked before hashing: garbage never reaches the cache or PostgreSQL.
      if (!KEY_SHAPE.test(token)) throw unauthenticated('malformed API key');
      const principal = await lookup(hashApiKey(token));
      if (!principal) throw unauthenticated('unknown or revoked API key');
      return principal;
    },
  };
}

/** Returns the principal when it holds `scope`; UNAUTHENTICATED without one, FORBIDDEN without the scope. */
export function requireScope(principal: Principal | null, scope: Scope): Principal {
  if (!principal) throw unauthenticated(`an API key with scope ${scope} is required`);
  if (!principal.scopes.has(scope)) throw forbidden(`this API key lacks scope ${scope}`);
  return principal;
}
