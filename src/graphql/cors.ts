import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for browsers calling the API from other origins. `*` (the default): any origin may read,
 * without credentials (the API uses no cookies; API keys go in the Authorization header, which a
 * preflight allows). A list: only those origins, echoed, with credentials. yoga's own CORS
 * echoed any origin with credentials allowed.
 */
export function createCors(origins: '*' | readonly string[]) {
  const allowed = new Set(origins === '*' ? [] : origins);
  function headersFor(origin: string | undefined): Record<string, string> | undefined {
    if (!origin) return undefined;
    if (origins === '*') return { 'access-control-allow-origin': '*' };
    if (!allowed.has(origin)) return undefined;
    return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
  }
  return {
    /** Sets the CORS headers of the answer to `req` on `res` (before anything writes it). */
    apply(req: IncomingMessage, res: ServerResponse): void {
      for (const [k, v] of Object.entries(headersFor(req.headers.origin) ?? {})) res.setHeader(k, v);
    },
    /** Answers a preflight (OPTIONS); false when `req` is none. */
    preflight(req: IncomingMessage, res: ServerResponse): boolean {
      if (req.method !== 'OPTIONS') return false;
      const headers = headersFor(req.headers.origin);
      res
        .writeHead(
          204,
          headers
            ? {
                ...headers,
                'access-control-allow-methods': 'GET, POST, OPTIONS',
                'access-control-allow-headers': 'content-type, authorization, accept, if-none-match',
                'access-control-max-age': '600',
              }
            : {},
        )
        .end();
      return true;
    },
  };
}
