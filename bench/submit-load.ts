// Scenario e: game servers through the public mutation. ladder runs built, as operators start it
// (`node dist/main.js`, one API process, LADDER_ROLES=api), on its own topic and group; its ingest
// runs beside it as a second process (LADDER_ROLES=ingest, `ingest: 'process'`), inside it
// (LADDER_ROLES=api,ingest, `ingest: 'inline'`) or not at all (`ingest: 'none'`). wrk (C, its own
// process) plays the game servers: `inFlight` connections in a closed loop, each submitting matches
// of `perMatch` results (fresh random matchIds, consecutive random players) for `seconds`. The
// answer comes only after Kafka acknowledged the match (acks=all): this measures validation, the
// matchId claim, produce and HTTP/GraphQL handling.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Db } from '../src/postgres/client.js';
import { createApiKeysRepo } from '../src/postgres/api-keys-repo.js';
import { createApiKey } from '../src/service/api-keys.js';
import { freePort } from '../test/support/process.js';
import { sampleTree, treeSeconds } from './cpu.js';
import { ensureWrk, runWrkArgs } from './wrk.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./wrk/submit.lua', import.meta.url));

export type IngestMode = 'none' | 'process' | 'inline';

export interface SubmitReport {
  ingest: IngestMode;
  /** Seasons each match counts in (submitMatchResult's seasonIds). */
  seasons: number;
  /** Boards of each season: each result carries points and a stat per further board. */
  boards: number;
  inFlight: number;
  matches: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not `accepted` (their codes, up to 200 characters), and socket errors. */
  bad: number;
  badCodes: string;
  socketErrors: number;
  /** CPU seconds of the API process during the load, and of the ingest process (0 when none or inline). */
  apiCpu: number;
  ingestCpu: number;
  /** CPU seconds of wrk itself. */
  wrkCpu: number;
}

/** Starts `node <args>` with `env` and resolves once it logged "ladder started". */
async function startLadder(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ladder did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`ladder exited (${code}) before it started`)));
    let partial = '';
    child.stdout!.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      if (lines.some((l) => l.includes('"ladder started"'))) {
        clearTimeout(timer);
        child.stdout!.resume();
        resolve();
      }
    });
  });
  return child;
}

async function stopLadder(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export async function runSubmitLoad(opts: {
  /** node arguments that run the built ladder (bench/built.ts). */
  ladder: string[];
  env: Record<string, string>;
  db: Db;
  /** The seasons each match counts in: one submission, `seasonIds`. */
  seasonIds: readonly number[];
  /** Boards of each season (1: points alone; n: points and stats s2..sn). */
  boards: number;
  /** endedAt of every match: inside the season, in the past. */
  endedAt: Date;
  players: number;
  inFlight: number;
  perMatch: number;
  seconds: number;
  ingest: IngestMode;
}): Promise<SubmitReport> {
  ensureWrk();
  const port = await freePort();
  // BENCH_SUBMIT_NODE_ARGS: extra node flags for the API process (e.g. --cpu-prof).
  const nodeArgs = (process.env.BENCH_SUBMIT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const env = {
    ...opts.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    API_WORKERS: '1',
    RATE_LIMIT_SUBMITS_PER_SEC: '1000000',
    RATE_LIMIT_SUBMITS_BURST: '1000000',
    LOG_LEVEL: 'info',
  };
  const children: ChildProcess[] = [];
  try {
    const api = await startLadder([...nodeArgs, ...opts.ladder], {
      ...env,
      LADDER_ROLES: opts.ingest === 'inline' ? 'api,ingest' : 'api',
    });
    children.push(api);
    if (opts.ingest === 'process') {
      children.push(await startLadder(opts.ladder, { ...env, PORT: String(await freePort()), LADDER_ROLES: 'ingest' }));
    }
    const { key } = await createApiKey(createApiKeysRepo(opts.db), { name: 'bench submit', scopes: ['submit'] });
    const cpu0 = children.map((c) => sampleTree(c.pid!));
    const wrk = await runWrkArgs<WrkSubmitResult>([
      '-t1',
      `-c${opts.inFlight}`,
      `-d${opts.seconds}s`,
      '--latency',
      // A submission answers within SUBMIT_TIMEOUT_MS; wrk's own 2 s would count slow answers as lost.
      '--timeout',
      '15s',
      '-s',
      SCRIPT,
      `http://127.0.0.1:${port}`,
      '--',
      key,
      opts.seasonIds.join(','),
      opts.endedAt.toISOString(),
      String(opts.players),
      String(opts.perMatch),
      String(opts.boards - 1),
    ]);
    const cpu = children.map((c, i) => treeSeconds(cpu0[i]!, sampleTree(c.pid!)));
    const e = wrk.errors;
    return {
      ingest: opts.ingest,
      seasons: opts.seasonIds.length,
      boards: opts.boards,
      inFlight: opts.inFlight,
      matches: wrk.requests - wrk.badResponses,
      seconds: wrk.seconds,
      p50Ms: wrk.p50,
      p99Ms: wrk.p99,
      bad: wrk.badResponses,
      badCodes: wrk.badCodes,
      socketErrors: e.connect + e.read + e.write + e.timeout,
      apiCpu: cpu[0]!,
      ingestCpu: cpu[1] ?? 0,
      wrkCpu: wrk.cpuSeconds,
    };
  } finally {
    await Promise.all(children.map(stopLadder));
  }
}

/** What bench/wrk/submit.lua's done() prints (latencies in ms). */
interface WrkSubmitResult {
  seconds: number;
  requests: number;
  badResponses: number;
  badCodes: string;
  errors: { connect: number; read: number; write: number; timeout: number };
  p50: number;
  p99: number;
  cpuSeconds: number;
}
