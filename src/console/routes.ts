// The console's endpoints after sign-in (docs/operations.md#console), one table per page: a method,
// a path under /console/api (its groups are the params) and what answers. http.ts has already
// checked the session, and for a mutation the origin and CSRF token, before any of these runs.
import type { ServerResponse } from 'node:http';
import type { ConsoleActions } from './actions.js';
import type { ConsoleSession } from './sessions.js';

interface ConsoleRequest {
  session: ConsoleSession;
  /** A mutation's JSON object body ({} for GET). */
  body: Record<string, unknown>;
  /** The path's groups, in order. */
  params: string[];
  query: URLSearchParams;
  /** For a route that answers itself (a file download); otherwise its value is sent as JSON. */
  res: ServerResponse;
}

export interface ConsoleRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  run(r: ConsoleRequest): Promise<unknown>;
}

export const seasonRoutes = (a: ConsoleActions): ConsoleRoute[] => [
  { method: 'GET', path: /^\/seasons$/, run: () => a.seasons() },
  { method: 'POST', path: /^\/seasons$/, run: (r) => a.createSeason(r.session, r.body) },
  { method: 'POST', path: /^\/seasons\/([^/]+)\/close$/, run: (r) => a.closeSeason(r.session, r.params[0]!) },
];

export const keyRoutes = (a: ConsoleActions): ConsoleRoute[] => [
  { method: 'GET', path: /^\/keys$/, run: () => a.keys() },
  { method: 'POST', path: /^\/keys$/, run: (r) => a.createKey(r.session, r.body) },
  { method: 'POST', path: /^\/keys\/([^/]+)\/revoke$/, run: (r) => a.revokeKey(r.session, r.params[0]!) },
  { method: 'POST', path: /^\/keys\/([^/]+)\/rotate$/, run: (r) => a.rotateKey(r.session, r.params[0]!, r.body) },
];

/** The live charts: the text /metrics answers (the page parses the few series it draws). */
export const chartRoutes = (metricsText: () => Promise<string>): ConsoleRoute[] => [
  { method: 'GET', path: /^\/metrics$/, run: async () => ({ text: await metricsText() }) },
];
