// The README's examples as a newcomer pastes them: every fenced block after the marker comment runs
// against `npm run demo` (scripts/demo.ts as a real child process, as in demo.int.test.ts) on a new
// database, so the demo's seasons are 1, 2 and 3 and its keys 1 and 2, as the README says.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_KAFKA_BROKERS, TEST_REDIS_URL, uniqueName } from './support/env.js';
import { freePort, nodeArgsFor, spawnEntry, until, type Entry } from './support/process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const MARKER = '<!-- README example: test/readme.int.test.ts runs it against `npm run demo` -->';

/** The marked blocks of the README, in order: language, code, and the line it starts on. */
function examples(): Array<{ lang: string; code: string; line: number }> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const marker = MARKER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...readme.matchAll(new RegExp(`${marker}\\n\`\`\`(\\w+)\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g'))].map((m) => ({
    lang: m[1]!,
    code: m[2]!,
    line: readme.slice(0, m.index).split('\n').length + 1,
  }));
}

// A new database, as a newcomer's: leftovers of earlier runs are dropped by the global setup.
const databaseUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/ladder_readme_${Date.now()}` });
// Its own Redis database (3), emptied first: season ids start at 1 again, as on a new machine.
const redisUrl = Object.assign(new URL(TEST_REDIS_URL), { pathname: '/3' }).toString();
const env = {
  DATABASE_URL: databaseUrl.toString(),
  REDIS_URL: redisUrl,
  KAFKA_BROKERS: TEST_KAFKA_BROKERS,
  KAFKA_TOPIC: uniqueName('test-readme'),
  KAFKA_GROUP_ID: uniqueName('test-readme'),
};

let demo: Entry | undefined;
let port: number;
let submitKey: string;
// A working directory of links to the repository: what the examples write (final.csv, archives/) lands here.
const cwd = mkdtempSync(join(tmpdir(), 'ladder-readme-'));

beforeAll(async () => {
  for (const f of ['package.json', 'node_modules', 'src', 'drizzle', 'tsconfig.json']) {
    symlinkSync(join(root, f), join(cwd, f));
  }
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  redis.disconnect();
  port = await freePort();
  // Few players, so the README's players 7, 42 and 99 are on the board within seconds.
  demo = spawnEntry('scripts/demo.ts', { ...env, PORT: String(port), DEMO_RATE: '50', DEMO_PLAYERS: '100' });
  const entry = demo;
  submitKey = await until(
    'the demo printed its banner',
    60_000,
    async () => /submit \(used by the simulator\): (ldr_\S+)\n/.exec(entry.stdout)?.[1],
    entry,
  );
  expect(entry.stdout).toContain('Seasons:  1 "Demo season"');
  const gql = (query: string) => post({ query });
  await until(
    'players 1000007, 1000042 and 1000099 ranked',
    60_000,
    async () => {
      const { data } = await gql(
        '{ leaderboard(seasonId: 1) { friends(playerIds: ["1000007", "1000042", "1000099"]) { rank } } }',
      );
      return data?.leaderboard.friends.length === 3 ? true : undefined;
    },
    entry,
  );
}, 150_000);

afterAll(async () => {
  demo?.kill();
  await demo?.exited;
  rmSync(cwd, { recursive: true, force: true });
});

async function post(body: object): Promise<{ data?: any; errors?: unknown[] }> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { data?: any; errors?: unknown[] };
}

/** The first event of a subscription over graphql-ws, or its error. */
async function firstEvent(query: string, operationName: string): Promise<{ data?: any; errors?: unknown }> {
  const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  let stop = () => {};
  try {
    return await new Promise((resolve) => {
      setTimeout(() => resolve({ errors: 'no event within 20 s' }), 20_000).unref();
      stop = client.subscribe(
        { query, operationName },
        { next: resolve, error: (errors) => resolve({ errors }), complete: () => {} },
      );
    });
  } finally {
    stop();
    await client.dispose();
  }
}

function sh(code: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // `npm run cli --` is src/cli/main.ts through tsx; here its build, as every src/ entry point in
  // these tests (support/process.ts nodeArgsFor): the same code, seconds sooner per call.
  const script = code
    .replaceAll('localhost:4000', `127.0.0.1:${port}`)
    .replace('KEY=ldr_...', `KEY=${submitKey}`)
    .replaceAll(
      /npm run (-s )?cli --/g,
      `node ${nodeArgsFor('src/cli/main.ts')
        .map((a) => (a.startsWith('dist/') ? root + a : a))
        .join(' ')}`,
    );
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd, env: { ...process.env, ...env, LOG_LEVEL: 'error' }, timeout: 150_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err.code as number | undefined) ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the README examples, pasted against npm run demo', () => {
  const blocks = examples();

  it('are marked: one GraphQL block and six shell blocks', () => {
    expect(blocks.map((b) => b.lang)).toEqual(['graphql', 'sh', 'sh', 'sh', 'sh', 'sh', 'sh']);
  });

  it('GraphQL: every operation answers without errors (queries over HTTP, subscriptions over graphql-ws)', async () => {
    for (const { code, line } of blocks.filter((b) => b.lang === 'graphql')) {
      const operations = parse(code).definitions.filter(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      );
      expect(operations.length, `README.md:${line}`).toBeGreaterThan(0);
      for (const op of operations) {
        const name = op.name!.value;
        const result =
          op.operation === 'subscription'
            ? await firstEvent(code, name)
            : await post({ query: code, operationName: name });
        expect(result.errors, `README.md:${line} ${name}`).toBeUndefined();
        const data = result.data as Record<string, any>;
        if (name === 'Board') {
          expect(data.leaderboard.size).toBeGreaterThan(0);
          expect(data.leaderboard.top[0]).toMatchObject({ rank: 1, player: { displayName: expect.any(String) } });
          expect(data.leaderboard.entry).toMatchObject({ rank: expect.any(Number), percentile: expect.any(Number) });
          expect(data.leaderboard.friends).toHaveLength(3);
          expect(data.leaderboard.friendsPage).toMatchObject({ hasNextPage: true, entries: [{}, {}] });
          // The simulator attaches a character and a map to every result.
          expect(data.leaderboard.top[0].metadata).toEqual({ character: expect.any(String), map: expect.any(String) });
        } else if (name === 'Month') {
          expect(data.leaderboard.size).toBeGreaterThan(0);
          expect(data.leaderboard.periodStart).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
        } else if (name === 'Windows') {
          expect(data.season).toEqual({ windows: ['SEASON', 'DAY'], resetOffsetMinutes: 240 });
        } else if (name === 'RankHistory') {
          expect(data.leaderboard.entry.rankHistory, JSON.stringify(result)).toEqual(expect.any(Array));
        } else {
          expect(Object.values(data)[0], name).toBeTruthy();
        }
      }
    }
  }, 90_000);

  it('shell: every block exits 0, every JSON answer has data and no errors', async () => {
    for (const { code, line } of blocks.filter((b) => b.lang === 'sh')) {
      const run = await sh(code);
      const where = `README.md:${line}\n${run.stdout}\n${run.stderr}\ndemo's stderr:\n${demo!.stderr.slice(-4000)}`;
      expect(run.code, where).toBe(0);
      const answers = run.stdout
        .split('\n')
        // GraphQL answers; `cli audit` prints NDJSON entries of its own (checked below).
        .filter((l) => l.startsWith('{') && !l.startsWith('{"id":'))
        .map((l) => JSON.parse(l) as { data?: unknown; errors?: unknown });
      for (const answer of answers) expect(answer, where).toMatchObject({ data: expect.anything() });
      for (const answer of answers) expect(answer.errors, where).toBeUndefined();
      if (code.includes('persistedQuery')) expect(answers, where).toHaveLength(2);
      if (code.includes('submitMatchResult'))
        expect(answers, where).toEqual([{ data: { submitMatchResult: { accepted: 2 } } }]);
      if (code.includes('keys revoke')) expect(run.stdout, where).toMatch(/^ldr_[\w-]{43}$/m);
      if (code.includes('cli -- audit')) expect(run.stdout, where).toMatch(/^\{"id":\d+,.*"action":"history_archive"/m);
      if (code.includes('export')) expect(run.stdout, where).toMatch(/closed season \d+: .*\n[\s\S]*exported \d+ rows/);
      if (code.includes('rebuild')) expect(run.stderr, where).toContain('rebuild [');
      if (code.includes('Winter cup')) expect(run.stdout, where).toMatch(/closed season \d+: /);
    }
  }, 300_000);
});
