// Issue 13: a process that cannot start says why in one line and exits non-zero, quickly.
// Each case runs the real entry point as a child process against the real services. Loading
// the service's modules takes 2-3 s on an idle 2-core machine and several times that when other
// test files run beside this one: waits and wall-clock bounds leave room for that, and the
// deadline itself is measured on the process's own log timestamps.
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { freePort, occupyPort, request, spawnEntry, STACK_LINE, until, type Entry } from '../support/process.js';

const started: Entry[] = [];
afterAll(() => {
  for (const e of started) e.kill();
});

/** `script` with the test services, its own topic and group, one process unless `env` says otherwise. */
function run(script: string, env: Record<string, string> = {}): Entry {
  const entry = spawnEntry(script, testEnv({ LOG_LEVEL: 'info', API_WORKERS: '1', HOST: '127.0.0.1', ...env }));
  started.push(entry);
  return entry;
}

/** No stack trace anywhere: not as lines on stderr, not inside a JSON log line. */
function expectNoStack(e: Entry): void {
  expect(e.stderr).not.toMatch(STACK_LINE);
  expect(e.stdout).not.toMatch(STACK_LINE);
  expect(e.stdout).not.toContain('"stack"');
  expect(e.stdout).not.toMatch(/\\n\s+at /);
}

describe('a port already in use', () => {
  it('stops `npm start` with one line naming the port and the setting', async () => {
    const busy = await occupyPort();
    try {
      const e = run('src/main.ts', { PORT: String(busy.port) });
      const { code, ms } = await e.exited;
      expect(code, e.stderr).toBe(1);
      expect(e.stderr).toBe(
        `ladder could not start: port ${busy.port} on 127.0.0.1 is already in use: set PORT to another port\n`,
      );
      expectNoStack(e);
      // Checked before any dependency is waited for.
      expect(ms).toBeLessThan(20_000);
      expect(e.stdout).not.toContain('waiting for');
    } finally {
      await busy.close();
    }
  });

  // The primary does not listen (a listener of its own would reset the connections it caught:
  // issue 38): its first worker opens the port, the others are forked once it listens.
  it('stops a cluster (API_WORKERS=2) at its first worker: one line, no other worker forked, none forked again', async () => {
    const busy = await occupyPort();
    try {
      const e = run('src/main.ts', { PORT: String(busy.port), API_WORKERS: '2' });
      const { code } = await e.exited;
      expect(code, e.stderr).toBe(1);
      expect(e.stderr).toBe(
        `ladder could not start: port ${busy.port} on 127.0.0.1 is already in use: set PORT to another port\n`,
      );
      expect(e.stdout).not.toContain('API workers forked');
      expect(e.stdout).not.toContain('starting another');
      expectNoStack(e);
    } finally {
      await busy.close();
    }
  }, 150_000); // the primary and its first worker load before it fails: seconds each on a busy machine

  it('stops `npm run demo` before its simulator starts', async () => {
    const busy = await occupyPort();
    try {
      const e = run('scripts/demo.ts', { PORT: String(busy.port), LOG_LEVEL: 'error', DEMO_DURATION_S: '5' });
      const { code, ms } = await e.exited;
      expect(code, e.stdout + e.stderr).toBe(1);
      expect(e.stderr).toBe(
        `[demo] failed to start: port ${busy.port} on 127.0.0.1 is already in use: set PORT to another port\n`,
      );
      expect(e.stdout).not.toMatch(/ladder demo is running|\[demo\] simulator: /);
      expect(e.stdout).toContain('[demo] stopped');
      expectNoStack(e);
      expect(ms).toBeLessThan(45_000);
    } finally {
      await busy.close();
    }
  }, 90_000);
});

describe('a dependency unreachable at start-up', () => {
  const cases: Array<{ name: string; env: Record<string, string>; where: string; why: string }> = [
    {
      name: 'kafka',
      env: { KAFKA_BROKERS: '127.0.0.1:1' },
      where: '127.0.0.1:1 (KAFKA_BROKERS)',
      why: 'Connection error: connect ECONNREFUSED 127.0.0.1:1',
    },
    {
      name: 'postgres',
      env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/ladder_test' },
      where: '127.0.0.1:1/ladder_test (DATABASE_URL)',
      why: 'connect ECONNREFUSED 127.0.0.1:1',
    },
    {
      name: 'redis',
      env: { REDIS_URL: 'redis://127.0.0.1:1/1' },
      where: '127.0.0.1:1/1 (REDIS_URL)',
      why: 'connect ECONNREFUSED 127.0.0.1:1',
    },
  ];

  it.each(cases)(
    '$name: /health up and /ready false while waiting, one line per attempt, exit 1 at STARTUP_TIMEOUT_MS',
    async (c) => {
      const port = await freePort();
      const e = run('src/main.ts', { ...c.env, PORT: String(port), STARTUP_TIMEOUT_MS: '3000' });

      // While it waits the port answers: alive, not ready, and GraphQL is refused rather than left hanging.
      await until('/health', 45_000, async () => (await request(port, '/health')).status === 200 || undefined, e);
      const ready = await request(port, '/ready');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toMatchObject({
        ok: false,
        checks: { [c.name]: expect.any(String), startup: 'in progress' },
      });
      const gql = await request(port, '/graphql', {
        method: 'POST',
        body: JSON.stringify({ query: '{ seasons { id } }' }),
      });
      expect(gql.status).toBe(503);
      expect(gql.headers['retry-after']).toBe('1');
      expect(JSON.parse(gql.body)).toEqual({
        errors: [{ message: 'ladder is starting; retry shortly', extensions: { code: 'UNAVAILABLE' } }],
      });

      const { code, ms } = await e.exited;
      expect(code, e.stdout + e.stderr).toBe(1);
      const line = `${c.name} at ${c.where} was not available within 3 s (STARTUP_TIMEOUT_MS): ${c.why}`;
      expect(e.stderr).toBe(`ladder could not start: ${line}\n`);
      expectNoStack(e);
      // It waited out the deadline (3 s from the start of start-up), and no longer.
      const logs = e.logs();
      const waiting = logs.filter((l) =>
        String(l.msg).startsWith(`waiting for ${c.name} at ${c.where}: ${c.why}; next try in 2 s`),
      );
      expect(waiting.length).toBeGreaterThanOrEqual(1);
      expect(waiting.length).toBeLessThanOrEqual(3);
      expect(waiting.every((l) => l.level === 40)).toBe(true);
      const fatal = logs.find((l) => l.level === 60)!;
      expect(fatal.msg).toBe(`could not start: ${line}`);
      expect(fatal.time - waiting[0]!.time).toBeGreaterThanOrEqual(2_000);
      expect(fatal.time - waiting[0]!.time).toBeLessThan(4_500);
      expect(ms).toBeLessThan(60_000);
      // Nothing else complains meanwhile: no error-level lines, no per-reconnect chatter.
      expect(logs.filter((l) => l.level >= 50 && l !== fatal)).toEqual([]);
      expect(logs.filter((l) => l.level === 40 && !waiting.includes(l))).toEqual([]);
    },
    90_000,
  );
});

describe('bad configuration', () => {
  it('exits 1 at once with one line naming the setting', async () => {
    const e = run('src/main.ts', { PORT: 'abc' });
    const { code, ms } = await e.exited;
    expect(code).toBe(1);
    expect(e.stderr).toBe('invalid configuration: PORT: Invalid input: expected number, received NaN\n');
    expect(e.stdout).toBe('');
    expect(ms).toBeLessThan(20_000);
  });
});
