// src/page.ts: the board page's files from a folder; only the names found there, revalidated
// by ETag, and a 503 that says what to run while the page is not built.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageHandler } from '../src/page.js';
import { request } from './support/process.js';

const built = mkdtempSync(join(tmpdir(), 'ladder-page-'));
mkdirSync(join(built, 'web'));
writeFileSync(join(built, 'index.html'), '<!doctype html><title>board</title>');
writeFileSync(join(built, 'web', 'page.js'), 'export {};');
writeFileSync(join(built, 'web', 'page.js.map'), '{}');

/** A server with the page handler for `dir`; what it does not handle answers 418. */
async function serve(dir: string) {
  const page = createPageHandler(dir);
  const server = createServer((req, res) => {
    if (!page(req, res)) res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    get: (path: string, init?: RequestInit) => fetch(base + path, init),
  };
}

describe('the board page handler', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve(`${built}/`);
  });
  afterAll(() => {
    s.server.close();
  });

  it.each([
    ['/', 200, 'text/html; charset=utf-8'],
    ['/boards?season=3', 200, 'text/html; charset=utf-8'],
    ['/assets/web/page.js', 200, 'text/javascript; charset=utf-8'],
    ['/assets/web/page.js.map', 404, 'text/plain; charset=utf-8'],
    ['/assets/nope.js', 404, 'text/plain; charset=utf-8'],
    ['/graphql', 418, null],
    ['/ready', 418, null],
  ])('GET %s: %i', async (path, status, type) => {
    const res = await s.get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe(type);
  });

  it('serves no file outside the folder, whatever the raw path', async () => {
    for (const path of ['/assets/../../../../etc/passwd', '/assets/..%2f..%2fpackage.json', '/assets//etc/passwd']) {
      expect((await request(s.port, path)).status, path).toBe(404);
    }
  });

  it('leaves other methods to the server, and answers 304 to a matching ETag', async () => {
    expect((await s.get('/', { method: 'POST' })).status).toBe(418);
    const first = await s.get('/assets/web/page.js');
    expect(await first.text()).toBe('export {};');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await s.get('/assets/web/page.js', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

it('answers 503 with the command to run while the page is not built, and serves it once built', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ladder-page-'));
  const s = await serve(`${dir}/missing/`);
  try {
    const res = await s.get('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
    mkdirSync(join(dir, 'missing'));
    writeFileSync(join(dir, 'missing', 'index.html'), 'built');
    expect(await (await s.get('/')).text()).toBe('built');
  } finally {
    s.server.close();
  }
});
