// The console's JSON API under /console/api/ (docs/operations.md#console). Sign-in takes an admin
// API key once, in a POST body, and answers with a session cookie (HttpOnly, SameSite=Strict,
// Path=/console, Secure over TLS); every later request is the session's. A mutation (any method
// but GET) must come from the console's own origin (Origin, else Referer) and carry the session's
// CSRF token in X-CSRF-Token: else 403, and nothing is done. No CORS headers: other origins
// cannot read an answer. Sign-in attempts are limited per client address (429 with Retry-After).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TLSSocket } from 'node:tls';
import { isDomainError } from '../domain/errors.js';
import { addressOf } from '../graphql/context.js';
import type { Principal } from '../service/api-keys.js';
import type { ConsoleRoute } from './routes.js';
import { csrfMatches, type ConsoleSession, type ConsoleSessions } from './sessions.js';

const COOKIE = 'ladder_console';
const MAX_KEY_LENGTH = 200;

export interface ConsoleApiDeps {
  sessions: ConsoleSessions;
  /** The console's endpoints after sign-in (routes.ts): the first whose method and path match answers. */
  routes: readonly ConsoleRoute[];
  /** The principal of an API key: null or an error when it is unknown, revoked or malformed. */
  authenticate(key: string): Promise<Principal | null>;
  /** Whether key `id` still works: a session ends with its key's revocation. */
  keyWorks(id: number): Promise<boolean>;
  /** Counts a sign-in attempt from `address`: 0 when allowed, else the milliseconds until one is. */
  signInAttempt(address: string): number;
  onError(err: unknown): void;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function overTls(req: IncomingMessage): boolean {
  return req.socket instanceof TLSSocket || req.headers['x-forwarded-proto'] === 'https';
}

/** The console's own origin as this request reached it. */
function ownOrigin(req: IncomingMessage): string {
  return `${overTls(req) ? 'https' : 'http'}://${req.headers.host ?? ''}`;
}

/** The origin the request says it came from: Origin, else Referer's; undefined without either. */
function claimedOrigin(req: IncomingMessage): string | undefined {
  if (req.headers.origin) return req.headers.origin;
  try {
    return req.headers.referer ? new URL(req.headers.referer).origin : undefined;
  } catch {
    return undefined;
  }
}

function sessionId(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === COOKIE) return v;
  }
  return undefined;
}

function cookie(req: IncomingMessage, value: string, maxAge: number): string {
  const secure = overTls(req) ? '; Secure' : '';
  return `${COOKIE}=${value}; Max-Age=${maxAge}; Path=/console; HttpOnly; SameSite=Strict${secure}`;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
    })
    .end(JSON.stringify(body));
}

function parseBody(req: IncomingMessage): Record<string, unknown> {
  const raw = (req as IncomingMessage & { body?: string }).body;
  if (!raw) return {};
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
    throw new Refusal(415, 'expected application/json');
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // below
  }
  throw new Refusal(400, 'the body must be a JSON object');
}

const STATUS: Record<string, number> = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  SEASON_NOT_FOUND: 404,
  SEASON_CLOSED: 409,
  UNAVAILABLE: 503,
};

export function createConsoleApi(deps: ConsoleApiDeps) {
  const { sessions } = deps;

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every attempt counts, before the key is looked at: parallel guesses cannot outrun the count.
    const waitMs = deps.signInAttempt(addressOf(req));
    if (waitMs > 0)
      throw new Refusal(429, 'too many sign-in attempts; wait and retry', {
        'retry-after': String(Math.ceil(waitMs / 1000)),
      });
    const { key } = parseBody(req);
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH)
      throw new Refusal(400, 'an admin API key is required');
    let principal: Principal | null;
    try {
      principal = await deps.authenticate(key);
    } catch (err) {
      if (isDomainError(err) && err.code === 'UNAUTHENTICATED') principal = null;
      else throw err;
    }
    if (!principal) throw new Refusal(401, 'unknown or revoked API key');
    if (!principal.scopes.has('admin')) throw new Refusal(403, 'this API key lacks scope admin');
    await sessions.delete(sessionId(req)); // a new id at every sign-in (no session fixation)
    const { id, session } = await sessions.create({ keyId: principal.keyId, name: principal.name });
    send(
      res,
      200,
      { name: session.name, keyId: session.keyId, csrf: session.csrf },
      {
        'set-cookie': cookie(req, id, sessions.ttlSeconds),
      },
    );
  }

  /** The request's session, checked: still stored and its key still working; else 401. */
  async function sessionOf(req: IncomingMessage): Promise<ConsoleSession> {
    const session = await sessions.get(sessionId(req));
    if (!session) throw new Refusal(401, 'not signed in, or the session expired');
    if (!(await deps.keyWorks(session.keyId))) {
      await sessions.delete(sessionId(req));
      throw new Refusal(401, 'the API key of this session no longer works');
    }
    return session;
  }

  async function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    const mutation = method !== 'GET' && method !== 'HEAD';
    // Before anything else: a cross-site mutation is refused whatever it carries.
    if (mutation && claimedOrigin(req) !== ownOrigin(req)) throw new Refusal(403, 'cross-origin request refused');
    if (path === '/session' && method === 'POST') return signIn(req, res);
    const session = await sessionOf(req);
    if (mutation && !csrfMatches(session, req.headers['x-csrf-token']))
      throw new Refusal(403, 'missing or wrong CSRF token');
    const body = mutation ? parseBody(req) : {};
    if (path === '/session' && method === 'GET')
      return send(res, 200, { name: session.name, keyId: session.keyId, csrf: session.csrf });
    if (path === '/session' && method === 'DELETE') {
      await sessions.delete(sessionId(req));
      return send(res, 200, { signedOut: true }, { 'set-cookie': cookie(req, '', 0) });
    }
    for (const r of deps.routes) {
      const m = r.method === method ? r.path.exec(path) : null;
      if (!m) continue;
      const query = new URL(req.url ?? '/', 'http://console').searchParams;
      const value = await r.run({ session, body, params: m.slice(1), query, res });
      // A route that answered itself (a download) has sent its headers.
      if (!res.headersSent) send(res, 200, value);
      return;
    }
    throw new Refusal(404, 'no such console endpoint');
  }

  /** Answers a request under /console/api/ (`path`: the rest of its path). */
  return async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      await route(req, res, path);
    } catch (err) {
      if (res.headersSent) return;
      if (err instanceof Refusal) return send(res, err.status, { error: err.message }, err.headers);
      if (isDomainError(err))
        return send(res, STATUS[err.code] ?? 400, { error: err.message, code: err.code, field: err.field ?? null });
      deps.onError(err);
      send(res, 500, { error: 'internal error' });
    }
  };
}
