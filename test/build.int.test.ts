// Issue 12: `npm run build` compiles the service to dist/, and `npm start` runs it with plain
// node (no TypeScript loader): as a cluster, finding its non-TypeScript files (Lua scripts, the
// migrations folder, the board page), with stack traces that point at src/ through the source maps.
// The integration tests' global setup ran `npm run build` (every test runs the service built).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { testEnv } from './support/env.js';
import { freePort, nodeArgsFor, request, spawnEntry, until, type Entry } from './support/process.js';

const run = promisify(execFile);
const npmStart = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string;
let ladder: Entry | undefined;
afterAll(() => ladder?.kill());

it('npm start is plain node on dist/ with source maps', () => {
  expect(npmStart).toBe('node --enable-source-maps dist/main.js');
  const js = (readdirSync('dist', { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
  expect(js.length).toBeGreaterThan(50);
  for (const f of js) expect(readFileSync(join('dist', f), 'utf8'), f).not.toMatch(/from '(tsx|typescript)/);
});

it('the built service starts two API workers, migrates, loads its Lua scripts, answers GraphQL and serves the board page', async () => {
  const port = await freePort();
  expect(nodeArgsFor('src/main.ts')).toEqual(npmStart.split(' ').slice(1));
  ladder = spawnEntry(
    'src/main.ts',
    testEnv({ API_WORKERS: '2', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
  );
  const e = ladder;
  await until(
    '/ready from two workers',
    60_000,
    async () => {
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) {
        const res = await request(port, '/ready');
        if (res.status === 200) pids.add((JSON.parse(res.body) as { pid: number }).pid);
      }
      return pids.size === 2 ? pids : undefined;
    },
    e,
  );
  for (let i = 0; i < 2; i++) {
    const res = await request(port, '/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: '{ seasons { id } }' }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).errors).toBeUndefined();
  }
  const page = await request(port, '/');
  expect(page.status).toBe(200);
  expect(page.body).toContain('/assets/web/page.js');
  for (const asset of [
    '/assets/web/page.js',
    '/assets/src/client/ladder-client.js',
    '/assets/vendor/graphql-ws/client.js',
  ]) {
    expect((await request(port, asset)).status, asset).toBe(200);
  }
  e.child.kill('SIGTERM');
  expect((await e.exited).code).toBe(0);
});

it('a stack trace of the built code names the TypeScript source', async () => {
  const failed = await run(process.execPath, [
    '--enable-source-maps',
    '--input-type=module',
    '-e',
    "const { parseConfig } = await import('./dist/config.js'); parseConfig({ PORT: 'x' });",
  ]).catch((err: { stderr: string }) => err);
  expect((failed as { stderr: string }).stderr).toMatch(/at parseConfig \(.*src\/config\.ts:\d+:\d+\)/);
});
