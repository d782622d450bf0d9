// Console sessions (docs/operations.md#console): a random id in an HttpOnly cookie, and in Redis
// under the SHA-256 of that id (a copy of Redis holds no usable cookie) the API key's id and name
// and the session's CSRF token, never the key. Redis expires them after the session's TTL.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a session knows: whose key signed it in, and the token its mutations must carry. */
export interface ConsoleSession {
  keyId: number;
  name: string;
  csrf: string;
}

const keyOf = (id: string) => `console:session:${createHash('sha256').update(id).digest('hex')}`;
const ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function createConsoleSessions(redis: Redis, ttlSeconds: number) {
  return {
    ttlSeconds,
    /** A new session for the key; returns its id (the cookie's value) and the session. */
    async create(key: { keyId: number; name: string }): Promise<{ id: string; session: ConsoleSession }> {
      const id = randomBytes(32).toString('base64url');
      const session = { keyId: key.keyId, name: key.name, csrf: randomBytes(32).toString('base64url') };
      await redis.set(keyOf(id), JSON.stringify(session), 'EX', ttlSeconds);
      return { id, session };
    },
    /** The session of this id while it lasts; undefined for an unknown, expired or malformed one. */
    async get(id: string | undefined): Promise<ConsoleSession | undefined> {
      if (!id || !ID_SHAPE.test(id)) return undefined;
      const raw = await redis.get(keyOf(id));
      return raw ? (JSON.parse(raw) as ConsoleSession) : undefined;
    },
    async delete(id: string | undefined): Promise<void> {
      if (id && ID_SHAPE.test(id)) await redis.del(keyOf(id));
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;

/** Constant-time comparison of a request's CSRF token with the session's. */
export function csrfMatches(session: ConsoleSession, token: string | string[] | undefined): boolean {
  if (typeof token !== 'string') return false;
  const a = Buffer.from(token);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}
