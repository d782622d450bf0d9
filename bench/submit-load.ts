// Scenario e: game servers through the public mutation. ladder runs as operators start it
// (`node --import tsx src/main.ts`, roles api + ingest, one API process) on its own topic and
// group; this process plays game servers: `inFlight` closed-loop clients, each submitting matches
// of `perMatch` results (random players) and waiting for the answer, for `seconds`. The answer
// comes only after Kafka acknowledged the match (acks=all), so this measures claim + produce.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Db } from '../src/postgres/client.js';
import { createApiKeysRepo } from '../src/postgres/api-keys-repo.js';
import { createApiKey } from '../src/service/api-keys.js';
import { sampleTree, treeSeconds } from './cpu.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface SubmitReport {
  matches: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not `accepted`, by error code. */
  errors: Record<string, number>;
  /** CPU seconds of the ladder process (API + its ingest consumer) during the load. */
  serverCpu: number;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function runSubmitLoad(opts: {
  env: Record<string, string>;
  db: Db;
  seasonId: number;
  players: number;
  inFlight: number;
  perMatch: number;
  seconds: number;
}): Promise<SubmitReport> {
  const port = await freePort();
  // BENCH_SUBMIT_NODE_ARGS: extra node flags for the ladder process (e.g. --cpu-prof).
  const nodeArgs = (process.env.BENCH_SUBMIT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      ...opts.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LADDER_ROLES: process.env.BENCH_SUBMIT_ROLES ?? 'api,ingest',
      API_WORKERS: '1',
      RATE_LIMIT_SUBMITS_PER_SEC: '1000000',
      RATE_LIMIT_SUBMITS_BURST: '1000000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('ladder did not start within 60 s')), 60_000);
      child.once('exit', (code) => reject(new Error(`ladder exited (${code}) before it started`)));
      let partial = '';
      child.stdout!.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop()!;
        if (lines.some((l) => l.includes('"ladder started"'))) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const { key } = await createApiKey(createApiKeysRepo(opts.db), { name: 'bench submit', scopes: ['submit'] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: opts.inFlight });
    const query = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
    const post = (body: string) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const latencies: number[] = [];
    const errors: Record<string, number> = {};
    let player = 0;
    const cpu0 = sampleTree(child.pid!);
    const t0 = performance.now();
    const until = t0 + opts.seconds * 1000;
    const client = async () => {
      while (performance.now() < until) {
        const results = Array.from({ length: opts.perMatch }, () => ({
          playerId: String(1 + (player++ % opts.players)),
          points: player % 61,
        }));
        const input = {
          matchId: randomUUID(),
          seasonId: opts.seasonId,
          endedAt: new Date(Date.now() - 1000).toISOString(),
          results,
        };
        const t = performance.now();
        const answer = JSON.parse(await post(JSON.stringify({ query, variables: { input } }))) as {
          data?: { submitMatchResult?: { accepted: number } };
          errors?: Array<{ extensions?: { code?: string } }>;
        };
        if (answer.data?.submitMatchResult?.accepted === opts.perMatch) latencies.push(performance.now() - t);
        else {
          const code = answer.errors?.[0]?.extensions?.code ?? 'UNKNOWN';
          errors[code] = (errors[code] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: opts.inFlight }, client));
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = treeSeconds(cpu0, sampleTree(child.pid!));
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    return { matches: latencies.length, seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors, serverCpu };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
