// Live-updates benchmark: many WebSocket subscriptions on one API instance while results land
// through Kafka. Push latency, Redis commands caused by subscriptions, API CPU and memory per socket.
//
//   npm run bench:live                     # 1,000,000 players, 10,000 subscriptions, 1,000 results/s, 30 s per phase
//   npm run bench:live -- --players 50000 --subscriptions 1000 --rate 200 --seconds 10
//   npm run bench:live -- --api-workers 2   # the API on 2 processes (API_WORKERS): its CPU is the process tree's
//   npm run bench:live -- --client-processes 1   # every socket on one clients process (default: 2, or 1 on 1 core)
//   BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:live   # profile the API
//   (BENCH_INGEST_NODE_ARGS, BENCH_CLIENTS_NODE_ARGS: the same for ingest and the clients processes)
//   BENCH_API_NODE_ARGS=--trace-gc-nvp BENCH_API_LOG=/tmp/api.log npm run bench:live
//     (the API's output kept in that file, GC traces included)
//
// Processes: ladder's API (LADDER_ROLES=api) and ladder's ingest (LADDER_ROLES=ingest) as two
// children, the WebSocket clients in a third and fourth (bench/live-clients.ts), a redis-server of its own on
// --redis-port (so INFO commandstats counts ladder's commands only), and this process: seeding,
// the paced Kafka producer, sampling. It owns the database ladder_bench_live (emptied at start) and
// a Kafka topic and group of its own (deleted at the end). Numbers are printed, never asserted.
//
// Subscriptions: 90% rankChanged over distinct players spread over the SEASON board, 10%
// topChanged(SEASON, limit 10). Traffic, paced in 20 ms ticks, keyed by playerId:
//   - TOP_INJECTIONS_PER_SEC results that take rank 1 (a pool of new players, points above any
//     seeded score, each one new): matched when the pair (player, points) appears in a topChanged;
//   - half of the rest: a watched player (round robin) one point above their current best, so
//     their next rankChanged carrying those points maps back to this result's Kafka append time;
//   - the other half: a random unwatched player with random points (about half raise a score).
// Phases, each --seconds long: idle without subscriptions, load without subscriptions (what ingest
// alone costs), then the sockets are opened, idle with subscriptions, load with subscriptions.
// Push latency runs from a result's append to the topic (LogAppendTime, set by the broker) to when
// a clients process read the push; the same from its CreateTime is printed beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Partitioners, CompressionTypes, type Kafka, type Message, type Producer } from 'kafkajs';
import { Redis } from 'ioredis';
import type { Season } from '../src/domain/season.js';
import { codecOf } from '../src/domain/score-codec.js';
import type { MatchResultMessage } from '../src/domain/result-message.js';
import { decodeBoardEvent } from '../src/redis/live-pubsub.js';
import { dbOf } from '../src/redis/client.js';
import { allUpdatesPattern } from '../src/redis/keys.js';
import { createKafka } from '../src/kafka/client.js';
import { createLogger } from '../src/logger.js';
import { cpuDelta, sampleCpu, sampleTree, treeSeconds, type CpuSample, type CpuTargets } from './cpu.js';
import { prng } from './generate.js';
import { deleteKafkaState } from './kafka-e2e.js';
import { intArg } from './args.js';
import { builtLadder } from './built.js';
import { seedBoard } from './seed-board.js';
import type { Counters, FromClients, Receipt, ToClients } from './live-clients.js';

const PLAYERS = intArg('players', 1_000_000);
const API_WORKERS = intArg('api-workers', 1);
// The clients' sockets split over this many processes: devices are not one event loop.
const CLIENT_PROCESSES = intArg('client-processes', Math.min(2, os.availableParallelism()));
const SUBSCRIPTIONS = intArg('subscriptions', 10_000);
const RATE = intArg('rate', 1_000);
const SECONDS = intArg('seconds', 30);
const BATCH = intArg('batch', 200); // sockets opened at once
const REDIS_PORT = intArg('redis-port', 6391);
const API_PORT = intArg('port', 4710);
const TOP_SUBS = Math.round(SUBSCRIPTIONS / 10);
const RANK_SUBS = SUBSCRIPTIONS - TOP_SUBS;
const TOP_LIMIT = 10;
const TOP_INJECTIONS_PER_SEC = 2;
const TOP_POOL = 20;
const SEED_MAX_POINTS = 800_000; // seeded scores are below this; injected top scores above 900,000
const WARMUP_SECONDS = 3; // of load before each measured load window
const DRAIN_TIMEOUT_MS = 180_000;
const DATABASE = 'ladder_bench_live';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
const REDIS_URL = `redis://127.0.0.1:${REDIS_PORT}`;
const KAFKA_BROKERS = process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092';
const PARTITIONS = 6;
const runId = randomUUID().slice(0, 8);
const TOPIC = `bench-live-${runId}`;
const GROUP_ID = `bench-live-ingest-${runId}`;
const CPU_TARGETS: CpuTargets = { database: DATABASE, redisPort: String(REDIS_PORT) };
const ROOT = fileURLToPath(new URL('..', import.meta.url));

if (RANK_SUBS > PLAYERS)
  throw new Error(`--players (${PLAYERS}) must be at least the rankChanged subscriptions (${RANK_SUBS})`);
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

// ---------------------------------------------------------------- child processes

/** Extra node arguments for a child, from the environment variable `name` (space-separated). */
const nodeArgsOf = (name: string) => process.env[name]?.split(/\s+/).filter(Boolean) ?? [];

const children = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
// Whatever happens, no child outlives the bench.
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    console.error(`\n${sig}: killing children`);
    for (const c of children) c.kill('SIGKILL');
    process.exit(130);
  });
}

/** Starts a child and resolves once a stdout line matches `ready`; warnings and errors are echoed. */
function start(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let echoed = 0;
    let isReady = false;
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`${name} not ready after ${timeoutMs} ms`)), timeoutMs);
    const onLine = (line: string) => {
      if (!isReady && ready.test(line)) {
        isReady = true;
        clearTimeout(timer);
        resolve(child);
      }
      // pino JSON: echo warn (40) and above, a few per child, so a failure is visible.
      const level = /"level":(\d+)/.exec(line)?.[1];
      if ((level === undefined ? /error|warn|exception/i.test(line) : Number(level) >= 40) && echoed++ < 20) {
        console.error(`  [${name}] ${line.slice(0, 400)}`);
      }
    };
    const keep = name === 'api' && process.env.BENCH_API_LOG;
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', (d: Buffer) => {
        if (keep) appendFileSync(keep, d);
        const lines = (pending + d.toString()).split('\n');
        pending = lines.pop()!;
        for (const l of lines) onLine(l);
      });
    }
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!isReady) reject(new Error(`${name} exited with ${code ?? signal} before it was ready`));
      else if (!stopping.has(child)) console.error(`  [${name}] exited unexpectedly with ${code ?? signal}`);
    });
  });
}

const stopping = new Set<ChildProcess>();
/** SIGTERM, then SIGKILL after `graceMs`. */
async function stop(child: ChildProcess | undefined, graceMs = 15_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  stopping.add(child);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** utime + stime of one process, in CPU seconds (0 once it exited). */
function procCpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------- seeding

const seedPoints = (p: number) => (Math.imul(p, 0x9e3779b1) >>> 0) % SEED_MAX_POINTS;

async function seed(): Promise<Season> {
  const t0 = performance.now();
  let shown = 0;
  return seedBoard({
    databaseUrl: DATABASE_URL,
    redisUrl: REDIS_URL,
    flush: 'all',
    name: `bench live ${runId}`,
    players: PLAYERS,
    points: seedPoints,
    agoMs: (p) => 60_000 + ((p * 104_729) % 3_600_000),
    onProgress: (done) => {
      if (performance.now() - shown <= 5_000 && done !== PLAYERS) return;
      shown = performance.now();
      const s = (shown - t0) / 1000;
      log(`seeded ${fmt(done)} / ${fmt(PLAYERS)} players (${fmt(done / s)}/s, ${s.toFixed(0)} s)`);
    },
  });
}

// ---------------------------------------------------------------- traffic

/**
 * One recorded result, keyed "player:points": when this producer handed it over (its CreateTime)
 * and when the broker appended it (the topic's LogAppendTime, from the produce response; NaN until
 * acknowledged). One request's partitions are appended a few ms apart and the response gives each
 * partition's time, not each message's: a message takes the earliest of its request, so a latency
 * from it can only come out a little long.
 */
interface Sample {
  key: string;
  created: number;
  appended: number;
}

interface Window {
  results: number;
  watched: Sample[];
  injected: Sample[];
}

/** The paced producer: RATE results/s in 20 ms ticks, until stopped. */
function createLoad(producer: Producer, seasonId: number, watched: readonly string[]) {
  const rand = prng(20_261_130);
  const order = [...watched];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const watchedSet = new Set(watched);
  const points = new Map(watched.map((id) => [id, seedPoints(Number(id))]));
  let nextWatched = 0;
  let topPoints = 900_000;
  let nextTop = 0;
  let matches = 0;
  let flip = false;
  const ackMs: number[] = [];
  let sendErrors = 0;
  let noAppendTime = 0;
  let produced = 0;
  let window: Window | undefined;

  const message = (playerId: string, p: number, ts: number): Message => {
    const m: MatchResultMessage = {
      v: 1,
      matchId: `10000000-0000-4000-8000-${(++matches).toString(16).padStart(12, '0')}`,
      seasonId,
      endedAt: new Date(ts - 1_000).toISOString(),
      playerId,
      points: p,
    };
    return { key: playerId, value: JSON.stringify(m), timestamp: String(ts) };
  };

  let running: Promise<void> | undefined;
  let stopRequested = false;

  async function loop(): Promise<void> {
    const t0 = performance.now();
    let sent = 0;
    let injected = 0;
    const pending = new Set<Promise<void>>();
    while (!stopRequested) {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.floor(elapsed * RATE) - sent;
      const topDue = Math.min(due, Math.floor(elapsed * TOP_INJECTIONS_PER_SEC) - injected);
      if (due > 0) {
        const ts = Date.now();
        const messages: Message[] = [];
        const samples: Sample[] = [];
        const sample = (key: string) => {
          const s = { key, created: ts, appended: NaN };
          samples.push(s);
          return s;
        };
        for (let i = 0; i < topDue; i++) {
          const id = String(PLAYERS + 1 + (nextTop++ % TOP_POOL));
          topPoints++;
          messages.push(message(id, topPoints, ts));
          window?.injected.push(sample(`${id}:${topPoints}`));
        }
        for (let i = topDue; i < due; i++) {
          flip = !flip;
          if (flip && order.length > 0) {
            const id = order[nextWatched++ % order.length]!;
            const p = points.get(id)! + 1;
            points.set(id, p);
            messages.push(message(id, p, ts));
            window?.watched.push(sample(`${id}:${p}`));
          } else {
            let id: string;
            do id = String(1 + Math.floor(rand() * PLAYERS));
            while (watchedSet.has(id));
            messages.push(message(id, Math.floor(rand() * SEED_MAX_POINTS), ts));
          }
        }
        sent += due;
        injected += topDue;
        produced += due;
        if (window) window.results += due;
        const send = producer
          .send({ topic: TOPIC, acks: -1, compression: CompressionTypes.None, messages })
          .then(
            (acked) => {
              ackMs.push(Date.now() - ts);
              const appended = Math.min(...acked.map((m) => Number(m.logAppendTime ?? -1)));
              if (!(appended > 0)) noAppendTime++;
              for (const s of samples) s.appended = appended > 0 ? appended : NaN;
            },
            () => {
              sendErrors++;
            },
          )
          .finally(() => pending.delete(send));
        pending.add(send);
      }
      await sleep(20 - ((performance.now() - t0) % 20));
    }
    await Promise.all(pending);
  }

  return {
    start() {
      stopRequested = false;
      running = loop();
    },
    async stop() {
      stopRequested = true;
      await running;
    },
    /** Starts recording what is produced (for latency matching and per-result figures). */
    record(): Window {
      window = { results: 0, watched: [], injected: [] };
      return window;
    },
    endRecord(): void {
      window = undefined;
    },
    get produced() {
      return produced;
    },
    get sendErrors() {
      return sendErrors;
    },
    /** Produce requests acknowledged without a LogAppendTime (the topic not configured for it). */
    get noAppendTime() {
      return noAppendTime;
    },
    ackMs,
  };
}

// ---------------------------------------------------------------- measuring

interface Snapshot {
  at: number;
  commands: Map<string, number>;
  api: number;
  ingest: number;
  clients: number;
  cpu: CpuSample;
  /** Pushes received so far by the clients process (0 before it runs). */
  pushes: { rank: number; top: number };
  /** The API's event-loop delay since the previous scrape (prom-client resets it on every scrape). */
  apiLoop: { p99: number; max: number };
}

/** Commands a client sends that run a script: one round trip each, whatever the script calls inside. */
const SCRIPT_CALLS = ['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro'];

function parseCommandStats(info: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

interface PhaseStats {
  seconds: number;
  commands: Map<string, number>;
  totalCommands: number;
  /** Of totalCommands, the script calls (EVALSHA...): Redis also counts every command a script runs. */
  scriptCalls: number;
  pushes: { rank: number; top: number };
  /** The API's event-loop delay over the phase, ms. */
  apiLoop: { p99: number; max: number };
  apiCpu: number;
  ingestCpu: number;
  clientsCpu: number;
  cpu: ReturnType<typeof cpuDelta>;
}

function delta(a: Snapshot, b: Snapshot): PhaseStats {
  const commands = new Map<string, number>();
  for (const [name, calls] of b.commands) {
    // Our own INFO calls are not ladder's.
    if (name === 'info') continue;
    const d = calls - (a.commands.get(name) ?? 0);
    if (d > 0) commands.set(name, d);
  }
  return {
    seconds: (b.at - a.at) / 1000,
    commands,
    totalCommands: [...commands.values()].reduce((x, y) => x + y, 0),
    scriptCalls: SCRIPT_CALLS.reduce((x, name) => x + (commands.get(name) ?? 0), 0),
    pushes: { rank: b.pushes.rank - a.pushes.rank, top: b.pushes.top - a.pushes.top },
    apiLoop: b.apiLoop,
    apiCpu: b.api - a.api,
    ingestCpu: b.ingest - a.ingest,
    clientsCpu: b.clients - a.clients,
    cpu: cpuDelta(a.cpu, b.cpu),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

// ---------------------------------------------------------------- main

const tmp = mkdtempSync(`${os.tmpdir()}/ladder-bench-live-`);
let redisServer: ChildProcess | undefined;
let api: ChildProcess | undefined;
let ingest: ChildProcess | undefined;
let clients: ChildProcess[] = [];
let kafka: Kafka | undefined;
let failed = false;

try {
  await main();
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  for (const c of clients) if (c.connected) c.send({ type: 'close' } satisfies ToClients);
  await Promise.all(clients.map((c) => stop(c, 10_000)));
  await Promise.all([stop(api), stop(ingest)]);
  if (kafka) {
    const problems = await deleteKafkaState(kafka, [TOPIC, `${TOPIC}.dlq`], GROUP_ID).catch((e: Error) => [e.message]);
    for (const p of problems) console.error(`cleanup: ${p}`);
  }
  await stop(redisServer, 5_000);
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

async function main(): Promise<void> {
  const load0 = os.loadavg();
  if (await portInUse(REDIS_PORT)) throw new Error(`port ${REDIS_PORT} is in use: pass --redis-port`);
  if (await portInUse(API_PORT)) throw new Error(`port ${API_PORT} is in use: pass --port`);
  redisServer = await start(
    'redis',
    'redis-server',
    [
      '--port',
      String(REDIS_PORT),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      '--dir',
      tmp,
      '--daemonize',
      'no',
    ],
    {},
    /Ready to accept connections/,
  );
  log(`redis-server on ${REDIS_PORT} (pid ${redisServer.pid}); seeding ${fmt(PLAYERS)} players`);
  const season = await seed();

  const logger = createLogger('warn');
  kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: 'ladder-bench-live', logger });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      // Latency starts when the broker appends a result (issue 7: "from the result's Kafka append").
      {
        topic: TOPIC,
        numPartitions: PARTITIONS,
        configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
      },
      { topic: `${TOPIC}.dlq`, numPartitions: PARTITIONS },
    ],
    waitForLeaders: true,
  });
  const common = {
    DATABASE_URL,
    REDIS_URL,
    KAFKA_BROKERS,
    KAFKA_TOPIC: TOPIC,
    KAFKA_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: 'info',
    // The board is seeded straight into Redis: no restore (a rebuild of it) at start.
    BOARD_RESTORE_INTERVAL_MS: '0',
  };
  const nodeArgs = builtLadder();
  // e.g. BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the API.
  const apiArgs = [...nodeArgsOf('BENCH_API_NODE_ARGS'), ...nodeArgs];
  api = await start(
    'api',
    process.execPath,
    apiArgs,
    {
      ...common,
      LADDER_ROLES: 'api',
      API_WORKERS: String(API_WORKERS),
      PORT: String(API_PORT),
      HOST: '127.0.0.1',
      KAFKA_GROUP_ID: `${GROUP_ID}-api-unused`,
      KAFKA_CLIENT_ID: 'ladder-bench-live-api',
      WS_SOCKETS_PER_ADDRESS: String(2 * SUBSCRIPTIONS + 100),
      WS_SUBSCRIPTIONS_PER_SOCKET: '1000',
      HTTP_CONNECTIONS_PER_ADDRESS: '0', // every client is on 127.0.0.1
      RATE_LIMIT_READS_PER_SEC: '1000000000',
      RATE_LIMIT_READS_BURST: '1000000000',
    },
    /GraphQL API listening/,
  );
  ingest = await start(
    'ingest',
    process.execPath,
    [...nodeArgsOf('BENCH_INGEST_NODE_ARGS'), ...nodeArgs],
    {
      ...common,
      LADDER_ROLES: 'ingest',
      KAFKA_GROUP_ID: GROUP_ID,
      KAFKA_CLIENT_ID: 'ladder-bench-live-ingest',
    },
    /ladder started/,
  );
  log(`api pid ${api.pid}, ingest pid ${ingest.pid}, topic ${TOPIC}`);

  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 5,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER },
  });
  await producer.connect();
  const redis = new Redis(REDIS_URL);
  // Ingest's share of a push's latency: when each (player, points) reached 1 in a SEASON update
  // event, heard here on ladder's own channel like the API hears it.
  const events = new Redis(REDIS_URL);
  const eventSeen = new Map<string, number>();
  const codec = codecOf(season);
  events.on('pmessage', (_pattern: string, channel: string, message: string) => {
    const at = Date.now();
    const e = decodeBoardEvent(channel, message);
    if (e.window !== 'SEASON') return;
    for (const c of e.changes) {
      if (c.score !== null) eventSeen.set(`${c.playerId}:${codec.decode(Number(c.score)).points}`, at);
    }
  });
  await events.psubscribe(allUpdatesPattern(dbOf(redis)));
  const metricsUrl = `http://127.0.0.1:${API_PORT}/metrics`;

  /** Committed offsets of the ingest group against the log end, summed over partitions. */
  async function lag(): Promise<number> {
    const [ends, groups] = await Promise.all([
      admin.fetchTopicOffsets(TOPIC),
      admin.fetchOffsets({ groupId: GROUP_ID, topics: [TOPIC] }),
    ]);
    const committed = new Map(groups[0]?.partitions.map((p) => [p.partition, Math.max(0, Number(p.offset))]) ?? []);
    return ends.reduce((sum, p) => sum + Number(p.high) - Math.min(committed.get(p.partition) ?? 0, Number(p.high)), 0);
  }
  async function drain(): Promise<number> {
    const t0 = performance.now();
    for (;;) {
      const left = await lag();
      if (left === 0) return (performance.now() - t0) / 1000;
      if (performance.now() - t0 > DRAIN_TIMEOUT_MS)
        throw new Error(`ingest did not catch up in ${DRAIN_TIMEOUT_MS} ms (${left} behind)`);
      await sleep(100);
    }
  }
  // Replaced once the clients process runs.
  let countPushes = async () => ({ rank: 0, top: 0 });
  /**
   * The instant is taken first, with the CPU figures (read synchronously) and Redis INFO (Redis
   * answers at once): a busy API or clients process answers its scrape or count late, and that
   * must not stretch the window the rates are divided by.
   */
  async function snapshot(): Promise<Snapshot> {
    const at = performance.now();
    const cpu = {
      api: api?.pid ? treeSeconds(new Map(), sampleTree(api.pid)) : 0, // the API's workers included
      ingest: procCpuSeconds(ingest?.pid),
      clients: clients.reduce((sum, c) => sum + procCpuSeconds(c.pid), 0),
      cpu: sampleCpu(CPU_TARGETS),
    };
    const info = redis.info('commandstats');
    const [pushes, metrics] = await Promise.all([countPushes(), fetch(metricsUrl).then((r) => r.text())]);
    const metric = (name: string) => 1000 * Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN);
    return {
      at,
      ...cpu,
      commands: parseCommandStats(await info),
      pushes,
      apiLoop: { p99: metric('nodejs_eventloop_lag_p99_seconds'), max: metric('nodejs_eventloop_lag_max_seconds') },
    };
  }
  async function idlePhase(name: string): Promise<PhaseStats> {
    log(`phase: ${name} (${SECONDS} s)`);
    const a = await snapshot();
    await sleep(SECONDS * 1000);
    return delta(a, await snapshot());
  }
  const watched = Array.from({ length: RANK_SUBS }, (_, i) => String(1 + Math.floor((i * PLAYERS) / RANK_SUBS)));
  const traffic = createLoad(producer, season.id, watched);
  async function loadPhase(
    name: string,
  ): Promise<{ stats: PhaseStats; window: Window; lagAtEnd: number; drainSeconds: number }> {
    log(`phase: ${name} (${WARMUP_SECONDS} s warm-up + ${SECONDS} s at ${fmt(RATE)} results/s)`);
    traffic.start();
    await sleep(WARMUP_SECONDS * 1000);
    // Same instant: snapshot() reads its clock before its first await, and a stalled API may
    // answer that snapshot's scrape seconds later, while results keep being produced.
    const window = traffic.record();
    const a = await snapshot();
    await sleep(SECONDS * 1000);
    traffic.endRecord();
    const b = await snapshot();
    await traffic.stop();
    const lagAtEnd = await lag();
    const drainSeconds = await drain();
    return { stats: delta(a, b), window, lagAtEnd, drainSeconds };
  }
  async function memory(): Promise<{ rss: number; heap: number }> {
    const samples: Array<{ rss: number; heap: number }> = [];
    for (let i = 0; i < 5; i++) {
      const text = await (await fetch(metricsUrl)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
      samples.push({ rss: value('process_resident_memory_bytes'), heap: value('nodejs_heap_size_used_bytes') });
      await sleep(1_000);
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    return { rss: median(samples.map((s) => s.rss)), heap: median(samples.map((s) => s.heap)) };
  }
  async function openSubscriptions(): Promise<string> {
    const text = await (await fetch(metricsUrl)).text();
    return [...text.matchAll(/^ladder_subscriptions\{kind="(\w+)"\} (\S+)/gm)].map((m) => `${m[1]} ${m[2]}`).join(', ');
  }

  // One result through the whole pipe: the ingest group has joined and consumes.
  log('waiting for the ingest group to consume a first message');
  traffic.start();
  await sleep(100);
  await traffic.stop();
  await drain();

  const idleNoSubs = await idlePhase('idle, no subscriptions');
  const loadNoSubs = await loadPhase('load, no subscriptions');
  await sleep(2_000);
  const memBefore = await memory();

  // ---- open the sockets
  log(
    `opening ${fmt(SUBSCRIPTIONS)} sockets (${fmt(RANK_SUBS)} rankChanged, ${fmt(TOP_SUBS)} topChanged), ${BATCH} at a time`,
  );
  const group = (clients = Array.from({ length: CLIENT_PROCESSES }, () =>
    track(
      // e.g. BENCH_CLIENTS_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the clients.
      spawn(process.execPath, [...nodeArgsOf('BENCH_CLIENTS_NODE_ARGS'), '--import', 'tsx', 'bench/live-clients.ts'], {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    ),
  ));
  const inboxes = group.map((): FromClients[] => []);
  const progress = group.map(() => ({ subscribed: 0, failed: 0, total: 0 }));
  let wake: (() => void) | undefined;
  let shown = 0;
  group.forEach((c, i) => {
    c.once('exit', (code, signal) => {
      if (!stopping.has(c)) console.error(`  [clients ${i}] exited with ${code ?? signal}`);
    });
    c.on('message', (m: FromClients) => {
      if (m.type === 'progress') {
        progress[i] = m;
        const all = progress.reduce((a, p) => ({
          subscribed: a.subscribed + p.subscribed,
          failed: a.failed + p.failed,
          total: a.total + p.total,
        }));
        if (all.subscribed + all.failed === SUBSCRIPTIONS || performance.now() - shown > 5_000) {
          shown = performance.now();
          log(
            `  subscribed ${fmt(all.subscribed)} / ${fmt(SUBSCRIPTIONS)}${all.failed ? `, ${fmt(all.failed)} failed` : ''}`,
          );
        }
        return;
      }
      inboxes[i]!.push(m);
      wake?.();
    });
  });
  /** The next message of `type` from every clients process. */
  const receiveAll = async <T extends FromClients['type']>(
    type: T,
    timeoutMs: number,
  ): Promise<Array<Extract<FromClients, { type: T }>>> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const at = inboxes.map((inbox) => inbox.findIndex((m) => m.type === type));
      if (at.every((i) => i >= 0))
        return inboxes.map((inbox, k) => inbox.splice(at[k]!, 1)[0] as Extract<FromClients, { type: T }>);
      if (group.some((c) => c.exitCode !== null || c.signalCode !== null)) throw new Error('a clients process exited');
      if (performance.now() > deadline) throw new Error(`no '${type}' from the clients processes in ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 500);
      });
    }
  };
  const sumCounters = (cs: Counters[]): Counters => ({
    subscribed: cs.reduce((n, c) => n + c.subscribed, 0),
    failed: cs.reduce((n, c) => n + c.failed, 0),
    closed: cs.reduce((n, c) => n + c.closed, 0),
    rankPushes: cs.reduce((n, c) => n + c.rankPushes, 0),
    topPushes: cs.reduce((n, c) => n + c.topPushes, 0),
    errors: cs.flatMap((c) => c.errors),
  });
  /** What every process recorded, as one: rank keys are each one process's, top keys everyone's. */
  const collect = async () => {
    for (const c of group) c.send({ type: 'collect' } satisfies ToClients);
    const parts = await receiveAll('collected', 60_000);
    const top = new Map<string, Receipt[]>();
    for (const p of parts) for (const [k, rs] of p.top) top.set(k, [...(top.get(k) ?? []), ...rs]);
    return {
      counters: sumCounters(parts.map((p) => p.counters)),
      rank: parts.flatMap((p) => p.rank),
      top: [...top],
      loopDelayP99Ms: Math.max(...parts.map((p) => p.loopDelayP99Ms)),
      loopDelayMaxMs: Math.max(...parts.map((p) => p.loopDelayMaxMs)),
    };
  };
  countPushes = async () => {
    for (const c of group) c.send({ type: 'count' } satisfies ToClients);
    const { rankPushes, topPushes } = sumCounters((await receiveAll('counted', 60_000)).map((m) => m.counters));
    return { rank: rankPushes, top: topPushes };
  };
  group.forEach((c, i) =>
    c.send({
      type: 'open',
      url: `ws://127.0.0.1:${API_PORT}/graphql`,
      seasonId: season.id,
      rankPlayers: watched.filter((_, j) => j % CLIENT_PROCESSES === i),
      topSubscriptions: Math.floor(TOP_SUBS / CLIENT_PROCESSES) + (i < TOP_SUBS % CLIENT_PROCESSES ? 1 : 0),
      topLimit: TOP_LIMIT,
      batch: Math.max(1, Math.round(BATCH / CLIENT_PROCESSES)),
    } satisfies ToClients),
  );
  const openedParts = await receiveAll('opened', 30 * 60_000);
  const opened = {
    ms: Math.max(...openedParts.map((m) => m.ms)),
    counters: sumCounters(openedParts.map((m) => m.counters)),
  };
  log(
    `opened in ${(opened.ms / 1000).toFixed(1)} s: ${fmt(opened.counters.subscribed)} subscribed, ${fmt(opened.counters.failed)} failed` +
      `${opened.counters.errors.length ? `; errors: ${opened.counters.errors.slice(0, 3).join(' | ')}` : ''}`,
  );
  log(`server counts: ${await openSubscriptions()}`);
  await sleep(5_000);
  const memAfter = await memory();

  const idleSubs = await idlePhase(`idle, ${fmt(SUBSCRIPTIONS)} subscriptions`);
  await collect(); // drops what was recorded before the load
  const loadSubs = await loadPhase(`load, ${fmt(SUBSCRIPTIONS)} subscriptions`);
  await sleep(3_000); // the last pushes of the window
  const afterLoad = await collect();
  log(`server counts after load: ${await openSubscriptions()}`);
  await producer.disconnect();
  await admin.disconnect();
  redis.disconnect();
  events.disconnect();

  // ---- latency: each recorded result to the push that shows it
  const rankSeen = new Map(afterLoad.rank);
  const topSeen = new Map(afterLoad.top);
  // Each sample from the broker's append to when the clients process read the message, and to when
  // it had parsed and handled it (live-socket.ts; the rounds before 2026-12-01 measured the second);
  // and from its CreateTime, as the rounds before 2026-12-02 did (that adds this process's send and
  // the broker's handling of it, which the issue's "from the Kafka append" leaves out).
  const startOf = (s: Sample) => (Number.isNaN(s.appended) ? s.created : s.appended);
  const rankLat: number[] = [];
  const rankLatHandled: number[] = [];
  const rankLatCreated: number[] = [];
  let rankMissed = 0;
  for (const s of loadSubs.window.watched) {
    const t = rankSeen.get(s.key);
    if (t === undefined) rankMissed++;
    else {
      rankLat.push(t[0] - startOf(s));
      rankLatHandled.push(t[1] - startOf(s));
      rankLatCreated.push(t[0] - s.created);
    }
  }
  const topLat: number[] = [];
  const topLatHandled: number[] = [];
  const topLatCreated: number[] = [];
  let topMissed = 0;
  for (const s of loadSubs.window.injected) {
    const seen = topSeen.get(s.key) ?? [];
    for (const t of seen) {
      topLat.push(t[0] - startOf(s));
      topLatHandled.push(t[1] - startOf(s));
      topLatCreated.push(t[0] - s.created);
    }
    topMissed += Math.max(0, TOP_SUBS - seen.length);
  }
  // The update event of each recorded result: what ingest took, before the API's part.
  const eventLat: number[] = [];
  for (const s of [...loadSubs.window.watched, ...loadSubs.window.injected]) {
    const t = eventSeen.get(s.key);
    if (t !== undefined) eventLat.push(t - startOf(s));
  }
  for (const xs of [rankLat, rankLatHandled, rankLatCreated, topLat, topLatHandled, topLatCreated, eventLat])
    xs.sort((x, y) => x - y);
  const acks = [...traffic.ackMs].sort((x, y) => x - y);

  // ---- Redis: what subscriptions add, idle and under load
  const perSec = (s: PhaseStats) => s.totalCommands / s.seconds;
  const rateOf = (p: { stats: PhaseStats; window: Window }) => p.window.results / p.stats.seconds;
  const ingestPerResult = (perSec(loadNoSubs.stats) - perSec(idleNoSubs)) / rateOf(loadNoSubs);
  const causedIdle = perSec(idleSubs) - perSec(idleNoSubs);
  const causedLoad = perSec(loadSubs.stats) - perSec(idleNoSubs) - ingestPerResult * rateOf(loadSubs);
  const subscribed = opened.counters.subscribed;
  const per1k = (x: number) => x / (subscribed / 1000);
  // The same subtraction for script calls alone (round trips rather than Redis work).
  const scriptsPerSec = (s: PhaseStats) => s.scriptCalls / s.seconds;
  const scriptsIngestPerResult = (scriptsPerSec(loadNoSubs.stats) - scriptsPerSec(idleNoSubs)) / rateOf(loadNoSubs);
  const scriptsCausedIdle = scriptsPerSec(idleSubs) - scriptsPerSec(idleNoSubs);
  const scriptsCausedLoad =
    scriptsPerSec(loadSubs.stats) - scriptsPerSec(idleNoSubs) - scriptsIngestPerResult * rateOf(loadSubs);
  const withScripts = (s: PhaseStats) => `${fmt(perSec(s), 1)}/s (script calls ${fmt(scriptsPerSec(s), 1)}/s)`;

  const cpuCell = (s: PhaseStats) => {
    const us = (s.apiCpu * 1e6) / s.seconds;
    return `${fmt(us)} µs/s = ${(us / 1e4).toFixed(1)}% of a core`;
  };
  const latCell = (xs: number[], extra: string) =>
    xs.length === 0
      ? `no samples (${extra})`
      : `${fmt(percentile(xs, 0.5))} / ${fmt(percentile(xs, 0.99))} ms (max ${fmt(xs[xs.length - 1]!)}; ${extra})`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const loadPushes = loadSubs.stats.pushes;
  const idlePushes = idleSubs.pushes.rank + idleSubs.pushes.top;

  const rows: Array<[string, string, string]> = [
    [
      'push latency rankChanged p50 / p99 (Kafka append → read by client)',
      latCell(rankLat, `n=${fmt(rankLat.length)}, ${fmt(rankMissed)} never pushed`),
      'p99 ≤ 250 ms',
    ],
    [
      'push latency topChanged p50 / p99 (Kafka append → read by client)',
      latCell(
        topLat,
        `n=${fmt(topLat.length)}: ${fmt(loadSubs.window.injected.length)} new top entries × ${fmt(TOP_SUBS)} clients, ${fmt(topMissed)} missed`,
      ),
      'p99 ≤ 250 ms',
    ],
    [
      '  the same to when the client had handled it, rankChanged / topChanged p50 / p99',
      `${fmt(percentile(rankLatHandled, 0.5))} / ${fmt(percentile(rankLatHandled, 0.99))} ms; ` +
        `${fmt(percentile(topLatHandled, 0.5))} / ${fmt(percentile(topLatHandled, 0.99))} ms`,
      '',
    ],
    [
      '  the same from CreateTime (before this producer sent it), rankChanged / topChanged p50 / p99',
      `${fmt(percentile(rankLatCreated, 0.5))} / ${fmt(percentile(rankLatCreated, 0.99))} ms; ` +
        `${fmt(percentile(topLatCreated, 0.5))} / ${fmt(percentile(topLatCreated, 0.99))} ms`,
      '',
    ],
    [
      '  produce → broker ack (acks=all) p50 / p99',
      `${fmt(percentile(acks, 0.5))} / ${fmt(percentile(acks, 0.99))} ms`,
      '',
    ],
    [
      '  of which Kafka append → board update event heard (ingest) p50 / p99',
      `${fmt(percentile(eventLat, 0.5))} / ${fmt(percentile(eventLat, 0.99))} ms (n=${fmt(eventLat.length)})`,
      '',
    ],
    ['Redis cmds/s, idle, no subscriptions (background)', withScripts(idleNoSubs), ''],
    [`Redis cmds/s, idle, ${fmt(subscribed)} subscriptions`, withScripts(idleSubs), ''],
    [
      'Redis cmds/s caused by subscriptions, idle',
      `${fmt(causedIdle, 1)}/s = ${fmt(per1k(causedIdle), 1)}/s per 1,000 subs (script calls ${fmt(scriptsCausedIdle, 1)}/s)`,
      '0 (proportional to updates)',
    ],
    [
      `Redis cmds/s, load, no subscriptions (${fmt(rateOf(loadNoSubs))} results/s)`,
      `${withScripts(loadNoSubs.stats)} = ${fmt(ingestPerResult, 2)} per result (ingest)`,
      '',
    ],
    [
      `Redis cmds/s, load, ${fmt(subscribed)} subscriptions (${fmt(rateOf(loadSubs))} results/s)`,
      withScripts(loadSubs.stats),
      '',
    ],
    [
      'Redis cmds/s caused by subscriptions, load',
      `${fmt(causedLoad)}/s = ${fmt(per1k(causedLoad), 1)}/s per 1,000 subs = ${fmt(causedLoad / rateOf(loadSubs), 2)} per result (script calls ${fmt(scriptsCausedLoad, 1)}/s)`,
      'proportional to updates',
    ],
    ['API CPU, idle, no subscriptions', cpuCell(idleNoSubs), ''],
    [`API CPU, idle, ${fmt(subscribed)} subscriptions`, cpuCell(idleSubs), ''],
    ['API CPU, load, no subscriptions', cpuCell(loadNoSubs.stats), ''],
    [`API CPU, load, ${fmt(subscribed)} subscriptions`, cpuCell(loadSubs.stats), ''],
    [
      'API RSS per idle socket',
      `${kb((memAfter.rss - memBefore.rss) / subscribed)} (${fmt(memBefore.rss / 2 ** 20)} → ${fmt(memAfter.rss / 2 ** 20)} MiB)`,
      '≤ 20 KB',
    ],
    [
      'API V8 heap used per idle socket',
      `${kb((memAfter.heap - memBefore.heap) / subscribed)} (${fmt(memBefore.heap / 2 ** 20)} → ${fmt(memAfter.heap / 2 ** 20)} MiB)`,
      '≤ 20 KB',
    ],
    ['pushes received, idle with subscriptions', `${fmt(idlePushes)} in ${SECONDS} s`, '0'],
    [
      'pushes received/s, load (rankChanged / topChanged)',
      `${fmt(loadPushes.rank / loadSubs.stats.seconds)} / ${fmt(loadPushes.top / loadSubs.stats.seconds)}`,
      '',
    ],
    [
      'ingest: lag at end of window / drain after',
      `${fmt(loadNoSubs.lagAtEnd)} & ${fmt(loadSubs.lagAtEnd)} msgs / ${loadNoSubs.drainSeconds.toFixed(1)} & ${loadSubs.drainSeconds.toFixed(1)} s (no subs & subs)`,
      '',
    ],
  ];

  console.log(
    `\nlive benchmark: ${fmt(PLAYERS)} players, ${fmt(subscribed)} of ${fmt(SUBSCRIPTIONS)} subscriptions open ` +
      `(${fmt(RANK_SUBS)} rankChanged, ${fmt(TOP_SUBS)} topChanged limit ${TOP_LIMIT}), ${fmt(RATE)} results/s ` +
      `(${TOP_INJECTIONS_PER_SEC}/s into the top), ${SECONDS} s per phase; ${os.availableParallelism()} cores, Node ${process.version}`,
  );
  const widths = [0, 1, 2].map((i) =>
    Math.max(...rows.map((r) => r[i]!.length), ['metric', 'value', 'target'][i]!.length),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  console.log(line(['metric', 'value', 'target']));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(line(r));

  // ---- context
  console.log(
    '\nRedis commands per second by command (INFO commandstats; commands run inside Lua scripts count on their own):',
  );
  for (const [name, s] of [
    ['idle, no subs', idleNoSubs],
    ['load, no subs', loadNoSubs.stats],
    ['idle, subs', idleSubs],
    ['load, subs', loadSubs.stats],
  ] as const) {
    const top = [...s.commands]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8)
      .map(([cmd, n]) => `${cmd} ${fmt(n / s.seconds, 1)}`);
    console.log(`  ${name.padEnd(14)} ${top.join(', ') || '-'}`);
  }
  console.log('\nCPU seconds per second of phase (api / ingest / clients / bench / redis / pg / kafka / other):');
  for (const [name, s] of [
    ['idle, no subs', idleNoSubs],
    ['load, no subs', loadNoSubs.stats],
    ['idle, subs', idleSubs],
    ['load, subs', loadSubs.stats],
  ] as const) {
    const parts = [
      s.apiCpu,
      s.ingestCpu,
      s.clientsCpu,
      s.cpu.node,
      s.cpu.redis,
      s.cpu.pg,
      s.cpu.kafka,
      Math.max(0, s.cpu.other - s.apiCpu - s.ingestCpu - s.clientsCpu),
    ].map((x) => (x / s.seconds).toFixed(2));
    console.log(`  ${name.padEnd(14)} ${parts.join(' / ')}`);
  }
  console.log('\nAPI event-loop delay p99 / max per phase (prom-client, reset at each scrape):');
  for (const [name, s] of [
    ['idle, no subs', idleNoSubs],
    ['load, no subs', loadNoSubs.stats],
    ['idle, subs', idleSubs],
    ['load, subs', loadSubs.stats],
  ] as const) {
    console.log(`  ${name.padEnd(14)} ${fmt(s.apiLoop.p99, 1)} / ${fmt(s.apiLoop.max, 1)} ms`);
  }
  const phases = [
    ['idle, no subs', idleNoSubs],
    ['load, no subs', loadNoSubs.stats],
    ['idle, subs', idleSubs],
    ['load, subs', loadSubs.stats],
  ] as const;
  const busy = phases
    .map(([name, s]) => [name, (s.cpu.other - s.apiCpu - s.ingestCpu - s.clientsCpu) / s.seconds] as const)
    .filter(([, cores]) => cores > 0.25 * os.availableParallelism());
  if (busy.length > 0) {
    console.log(
      `\nWARNING: processes outside this bench used ${busy.map(([name, cores]) => `${cores.toFixed(2)} cores during "${name}"`).join(', ')} ` +
        `(of ${os.availableParallelism()}): that phase's latencies, CPU and ingest lag are inflated by contention; rerun on a quiet machine.`,
    );
  }
  console.log(
    `\nclients processes (${CLIENT_PROCESSES}), the worst one's event-loop delay during load: p99 ${afterLoad.loopDelayP99Ms.toFixed(1)} ms, max ${afterLoad.loopDelayMaxMs.toFixed(1)} ms` +
      ` (adds to the measured latency); sockets closed after subscribing: ${afterLoad.counters.closed}; producer send errors: ${traffic.sendErrors}`,
  );
  if (afterLoad.counters.errors.length) console.log(`client errors: ${afterLoad.counters.errors.join(' | ')}`);
  if (traffic.noAppendTime > 0) {
    console.log(
      `WARNING: ${fmt(traffic.noAppendTime)} produce requests were acknowledged without a LogAppendTime: ` +
        'their results are measured from their CreateTime.',
    );
  }
  console.log(
    `machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, loadavg(1m) ${load0[0]!.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after. ` +
      'Kafka, PostgreSQL, Redis, both ladder processes, the clients and this producer share the machine.',
  );
  console.log(
    "Latency is from the result's Kafka append (the topic's LogAppendTime, the earliest of its produce request's partitions) to when the clients process read the message off its socket" +
      ' (before it was parsed: bench/live-socket.ts; "handled": after, as measured before 2026-12-01, fourth session);' +
      " rankChanged: the first push showing the watched player's new points; topChanged: each client's first push showing the injected entry.",
  );
}
