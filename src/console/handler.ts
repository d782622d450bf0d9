// The console at /console (docs/operations.md#console): its page (web/console.html, served from
// dist/web like the board page) and its JSON API under /console/api/ (http.ts), in front of the
// board page's handler (src/page.ts) in the server's `page` slot.
import type { IncomingMessage, ServerResponse } from 'node:http';

// The page runs only its own scripts and styles, and is never framed (clickjacking).
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

export function withConsole(
  page: (req: IncomingMessage, res: ServerResponse) => boolean,
  api: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>,
) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/console/api/')) {
      // Answered asynchronously; the handler catches its own errors.
      void api(req, res, path.slice('/console/api'.length));
      return true;
    }
    if (path === '/console' || path === '/console/')
      for (const [k, v] of Object.entries(PAGE_HEADERS)) res.setHeader(k, v);
    return page(req, res);
  };
}
