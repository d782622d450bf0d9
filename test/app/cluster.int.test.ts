// API_WORKERS=2: `npm start` as a cluster of real processes. Requests are answered by two
// worker processes, /metrics adds up every process, a killed worker is replaced, and SIGTERM
// stops them all and exits 0.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { freePort, request, spawnEntry, until, type Entry } from '../support/process.js';

let ladder: Entry | undefined;
const agents: http.Agent[] = [];
afterAll(() => {
  for (const a of agents) a.destroy();
  ladder?.kill();
});

/** The pid /ready reports: which process answered. */
async function pidOf(port: number, agent?: http.Agent): Promise<number> {
  return (JSON.parse((await request(port, '/ready', { agent })).body) as { pid: number }).pid;
}

/** The value of one sample of the Prometheus text, 0 when absent. */
function sample(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('serves from two workers, aggregates /metrics, replaces a dead worker, and stops cleanly on SIGTERM', async () => {
  const port = await freePort();
  ladder = spawnEntry(
    'src/main.ts',
    testEnv({
      API_WORKERS: '2',
      LADDER_ROLES: 'api,ingest',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    }),
  );
  const e = ladder;

  // Each new connection goes to the next worker: two workers, each ready, each its own pid.
  const workers = await until(
    '/ready from two workers',
    60_000,
    async () => {
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) {
        const res = await request(port, '/ready');
        if (res.status === 200) pids.add((JSON.parse(res.body) as { pid: number }).pid);
      }
      return pids.size === 2 ? [...pids] : undefined;
    },
    e,
  );
  expect(workers).not.toContain(e.child.pid);
  expect(JSON.parse((await request(port, '/ready')).body).checks).toEqual({
    postgres: 'ok',
    redis: 'ok',
    ingest: 'ok',
  });

  // Two kept-alive connections, one per worker: 7 queries through one, 3 through the other.
  const conn = new Map<number, http.Agent>();
  await until('a connection to each worker', 10_000, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const pid = await pidOf(port, agent);
    if (!conn.has(pid)) conn.set(pid, agent);
    return conn.size === 2 || undefined;
  });
  const [a, b] = [...conn.values()] as [http.Agent, http.Agent];
  const queries = 'ladder_graphql_duration_seconds_count{operation_type="query"}';
  const before = sample((await request(port, '/metrics', { agent: a })).body, queries);
  const query = JSON.stringify({ query: '{ seasons { id } }' });
  for (let i = 0; i < 10; i++) {
    const res = await request(port, '/graphql', { method: 'POST', body: query, agent: i < 7 ? a : b });
    expect(res.status).toBe(200);
  }
  // Either worker answers for the whole cluster: its own queries and the other's, and the primary's gauge.
  for (const agent of [a, b]) {
    const metrics = (await request(port, '/metrics', { agent })).body;
    expect(sample(metrics, queries) - before).toBe(10);
    expect(sample(metrics, 'ladder_api_workers')).toBe(2);
    expect(metrics.match(/^# TYPE ladder_graphql_duration_seconds histogram$/gm)).toHaveLength(1);
  }
  // A persisted query registered through one worker is known to the other (shared through Redis).
  const persisted = `{ seasons { id } } # ${randomUUID()}`;
  const extensions = {
    persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(persisted).digest('hex') },
  };
  const byHash = `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`;
  expect(JSON.parse((await request(port, byHash, { agent: b })).body).errors[0].extensions.code).toBe(
    'PERSISTED_QUERY_NOT_FOUND',
  );
  const registered = await request(port, '/graphql', {
    method: 'POST',
    body: JSON.stringify({ query: persisted, extensions }),
    agent: a,
  });
  expect(JSON.parse(registered.body)).toMatchObject({ data: { seasons: expect.any(Array) } });
  await until('the persisted query through the other worker', 10_000, async () => {
    const res = JSON.parse((await request(port, byHash, { agent: b })).body);
    return res.data?.seasons ? true : undefined;
  });
  for (const agent of [a, b]) agent.destroy();

  // A worker that dies is logged and replaced.
  process.kill(workers[0]!, 'SIGKILL');
  const replaced = await until(
    'a new worker',
    60_000,
    async () => {
      const pid = await pidOf(port);
      return !workers.includes(pid) ? pid : undefined;
    },
    e,
  );
  expect(e.logs().find((l) => l.msg === 'API worker exited unexpectedly; starting another')).toMatchObject({
    level: 50,
    pid: workers[0],
    signal: 'SIGKILL',
  });
  expect(sample((await request(port, '/metrics')).body, 'ladder_api_worker_restarts_total')).toBe(1);

  // SIGTERM: the workers drain and exit, then the primary; exit 0, nothing left behind.
  const t0 = Date.now();
  e.child.kill('SIGTERM');
  const { code } = await e.exited;
  expect(code, e.stdout + e.stderr).toBe(0);
  expect(Date.now() - t0).toBeLessThan(10_000);
  for (const pid of [workers[1]!, replaced]) expect(isAlive(pid)).toBe(false);
  expect(e.logs().filter((l) => l.msg === 'ladder stopped')).toHaveLength(3);
}, 150_000);
