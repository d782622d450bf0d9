// The live leaderboard page: the files `npm run build` (or `npm run build:web`) writes to
// dist/web, served by the API at / (and /boards) and /assets/*; the console's page at /console
// (src/console/). No CDN: graphql-ws's browser module is copied there by the build too. The files
// are read once, on the first request after they exist, and kept (a few dozen kB); only names found
// there are served, so no path can reach outside the folder.
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ifNoneMatchHits } from './http-etag.js';

// src/page.ts and dist/page.js both sit one level below the package root.
const defaultDir = fileURLToPath(new URL('../dist/web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

type File = { body: Buffer; type: string; etag: string };

function load(dir: string): Map<string, File> {
  const files = new Map<string, File>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (!type) continue; // source maps, folders
    const body = readFileSync(dir + name);
    files.set(name.split('\\').join('/'), {
      body,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    });
  }
  return files;
}

/**
 * A request handler for the page's paths: true when it answered (GET or HEAD of /, /boards,
 * /assets/<file>), false for every other request, which the server handles as before.
 */
export function createPageHandler(dir = defaultDir) {
  let files: Map<string, File> | undefined;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0]!;
    const name =
      path === '/' || path === '/boards'
        ? 'index.html'
        : path === '/console' || path === '/console/'
          ? 'console.html'
          : path.startsWith('/assets/')
            ? path.slice('/assets/'.length)
            : undefined;
    if (name === undefined) return false;
    try {
      files ??= load(dir);
    } catch {
      res
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
        .end('The board page is not built: run `npm run build` (or `npm run build:web`).\n');
      return true;
    }
    const file = files.get(name);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return true;
    }
    // Revalidated on every load (the same URLs get new builds), 304 while unchanged.
    const headers = {
      'content-type': file.type,
      'cache-control': 'no-cache',
      etag: file.etag,
      'x-content-type-options': 'nosniff',
    };
    if (ifNoneMatchHits(req.headers['if-none-match'], file.etag)) res.writeHead(304, headers).end();
    else
      res
        .writeHead(200, { ...headers, 'content-length': file.body.length })
        .end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
