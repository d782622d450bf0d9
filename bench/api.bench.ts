// Read-path benchmark (STYLE 15): ladder's GraphQL reads beside a plain Node HTTP server that
// returns the same top(100) JSON, pre-serialised, measured in one run on the same machine with
// the same number of server processes, all loaded by wrk.
//
//   npm run bench:api                      # 100,000 players, 50 connections, 5 s per scenario
//   npm run bench:api -- --players 20000 --seconds 3
//   options: --players N  --connections N (50)  --seconds N (5)  --threads N (wrk threads, 2)
//            --workers N (server processes, default os.availableParallelism())
//            --rate N (the mix's offered requests/s, 5000)
//            --redis-url URL (redis://127.0.0.1:6379/2)  --only top,around (those scenarios; the plain server always)
//            --only scopes: the scoped reads alone (top(10), entry, around on the board, in a region, in a group)
//            --scoped-rounds N: the scoped reads N times over, one round after the other (1)
//            --response-cache-max-age-ms N: ladder's RESPONSE_CACHE_MAX_AGE_MS (0: no answer is served from
//            the response cache, so every read does its Redis work; default ladder's own)
//   BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:api -- --only around   # profile ladder
//
// What it measures, per scenario: successful responses per second (200 and 304), wrk's latency
// percentiles, the ratio to the plain server, and CPU per response of the server processes (the
// whole process tree: cluster primary and workers), of wrk and of Redis (the redis-server of
// --redis-url, shared with whoever else uses it). Scenarios: top(100) by POST, by persisted GET
// (Automatic Persisted Queries), by GET with If-None-Match, top with player names, entry, around
// and friends of random players, and a mix offered at a fixed rate, open loop. Then the scoped
// reads (docs/design.md#scopes): top(10), and entry and around of random players of the same
// 1,000 (members of every scope read, so the response cache's hit rate is the same in all three),
// on the whole board, within the region BR (1/8 of the players) and within the group clan7 (1/100),
// measured one after the other, and compared. Then the targets, met or not. Numbers are printed,
// never asserted.
//
// ladder runs as its own process tree (built: `node dist/main.js`, bench/built.ts; LADDER_ROLES=api,
// API_WORKERS=--workers), the plain server (bench/plain-server.mjs) with as many processes, wrk
// (bench/wrk.ts, bench/wrk/requests.lua) as a third. The bench owns the database
// ladder_bench_api and Redis database 2, or the one of --redis-url (both emptied at start). Needs wrk: installed with
// apt-get when missing. If ladder dies mid-run (see REDIS_URL), the rows left say so and the
// table is still printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { intArg, stringArg } from './args.js';
import { cpuDelta, sampleCpu, sampleTree, treeSeconds, type CpuTargets } from './cpu.js';
import { builtLadder } from './built.js';
import { seedBoard } from './seed-board.js';
import { boardKey, boardLabel, boardVersionsKey } from '../src/redis/keys.js';
import { seasonBoard } from '../src/domain/board.js';
import { currentWrk, ensureWrk, runWrk, type RequestKind, type WrkResult } from './wrk.js';

const PLAYERS = intArg('players', 100_000);
const CONNECTIONS = intArg('connections', 50);
const SECONDS = intArg('seconds', 5);
const WORKERS = intArg('workers', os.availableParallelism());
const THREADS = intArg('threads', 2);
const RATE = intArg('rate', 5_000);
// The scoped reads (`--only scopes` picks them all): each read on the board, in a region, in a group.
const SCOPED_KEYS = [
  'top10Board',
  'top10Region',
  'top10Group',
  'entryBoard',
  'entryRegion',
  'entryGroup',
  'aroundBoard',
  'aroundRegion',
  'aroundGroup',
] as const;
const SCOPED_ROUNDS = intArg('scoped-rounds', 1);
const RESPONSE_CACHE_MAX_AGE_MS = stringArg('response-cache-max-age-ms');
const ONLY = stringArg('only')
  ?.split(',')
  .flatMap((k) => (k === 'scopes' ? [...SCOPED_KEYS] : [k]));
const DATABASE = 'ladder_bench_api';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
// Redis pub/sub ignores the database number: another ladder publishing board updates on this Redis
// reaches this one. --redis-url to a private redis-server isolates the bench from that.
const REDIS_URL = stringArg('redis-url') ?? 'redis://127.0.0.1:6379/2';
const CPU_TARGETS: CpuTargets = { database: DATABASE, redisPort: new URL(REDIS_URL).port || '6379' };
const PORT = 4700;
const PLAIN_PORT = 4701;
const FLOOR_PORT = 4702;
const LADDER = `http://127.0.0.1:${PORT}`;
const PLAIN = `http://127.0.0.1:${PLAIN_PORT}`;
const FLOOR = `http://127.0.0.1:${FLOOR_PORT}`;

// ---------------------------------------------------------------------------------------------
// Seeding

// Every player has a region and a clan, stored before their result so that seeding writes the
// scope boards through ingest's own scope lookup (bench/seed-board.ts), as the consumer does. By
// id range, so that the random ids 1..n of a scoped read are all members: players 1..P/8 are in
// BR (8 regions of P/8), players 1..P/100 in clan7 (100 clans of P/100). Points and times do not
// follow ids, so a scope's ranks are as mixed as the board's.
const REGIONS = ['BR', 'US', 'DE', 'FR', 'JP', 'KR', 'GB', 'PL'];
const REGION_MEMBERS = Math.floor(PLAYERS / REGIONS.length);
const GROUP_MEMBERS = Math.floor(PLAYERS / 100);
const playerScopes = (p: number) => ({
  region: REGIONS[Math.floor(((p - 1) * REGIONS.length) / PLAYERS)]!,
  groups: [`clan${(Math.floor(((p - 1) * 100) / PLAYERS) + 7) % 100}`],
});

async function seed(): Promise<number> {
  const season = await seedBoard({
    databaseUrl: DATABASE_URL,
    redisUrl: REDIS_URL,
    flush: 'db',
    name: 'bench',
    players: PLAYERS,
    points: (p) => (p * 7919) % 50_000,
    agoMs: (p) => (p * 104_729) % 86_400_000,
    // Every standing has metadata (as the demo's), so top(100) with it reads 100 values.
    metadata: (p) => JSON.stringify({ character: `hero ${p % 8}`, map: `map ${p % 4}`, replay: `r-${p}` }),
    scopes: playerScopes,
  });
  return season.id;
}

// ---------------------------------------------------------------------------------------------
// Server processes: started here, all stopped in `stopServers` (from `cleanUp`: finally, SIGINT, SIGTERM)

const servers: ChildProcess[] = [];
let stopping = false;

/**
 * Starts `node <args>` and resolves once `ready` appeared on `expected` stdout lines (one per
 * listening process), or 10 s after the first one: a server that starts fewer processes than asked
 * (one that ignores API_WORKERS) is still measured, and the caller reports how many listened.
 */
function startServer(
  label: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  expected: number,
): Promise<{ child: ChildProcess; listening: number }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let listening = 0;
    let settled = false;
    let partial = '';
    let forwarded = 0;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      clearTimeout(grace);
      if (err) reject(err);
      else resolve({ child, listening });
    };
    const giveUp = setTimeout(() => settle(new Error(`${label} was not ready after 60 s`)), 60_000);
    let grace: NodeJS.Timeout | undefined;
    child.once('exit', (code, signal) => {
      if (settled && !stopping) console.error(`${label} exited (${signal ?? code})`);
      settle(new Error(`${label} exited (${signal ?? code}) before it was ready`));
    });
    // Read stdout for the whole run: a full pipe would block the server's logging.
    child.stdout!.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        // pino warn/error/fatal: show a few, they explain failures; never flood the table.
        if (/"level":(40|50|60)/.test(line) && forwarded++ < 10) console.error(`${label}: ${line}`);
        if (settled || !ready.test(line)) continue;
        if (++listening >= expected) settle();
        else grace ??= setTimeout(() => settle(), 10_000);
      }
    });
  });
}

function alive(pid: string): boolean {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to each server (the primaries stop their workers); SIGKILL whatever of the tree is left after 10 s. */
async function stopServers(): Promise<void> {
  stopping = true;
  currentWrk?.kill('SIGTERM');
  const trees = servers
    .filter((c) => c.pid !== undefined && c.exitCode === null && c.signalCode === null)
    .map((c) => ({ child: c, pids: [...sampleTree(c.pid!).keys()] }));
  servers.length = 0;
  for (const { child } of trees) child.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && trees.some((t) => t.pids.some(alive))) await new Promise((r) => setTimeout(r, 100));
  for (const pid of trees.flatMap((t) => t.pids).filter(alive)) {
    console.error(`process ${pid} did not stop on SIGTERM: SIGKILL`);
    process.kill(Number(pid), 'SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

const JSON_POST = { 'content-type': 'application/json' };

/** A POST body; a variable given as '{{players}}' becomes the raw JSON list requests.lua writes there. */
function gqlBody(query: string, variables?: Record<string, string>, extensions?: unknown): string {
  // Lists and numbers go in raw (wrk/requests.lua fills them), not as JSON strings.
  return JSON.stringify({ query, variables, extensions }).replace(/"(\{\{(?:players|players1000|place)\}\})"/g, '$1');
}

const post = (body: string): RequestKind => ({ weight: 1, method: 'POST', path: '/graphql', headers: JSON_POST, body });

/** Apollo's Automatic Persisted Queries: the hash instead of the query text. */
const persistedExtension = (query: string) => ({
  persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') },
});

/**
 * The request once, placeholders filled with fixed ids, to see what the server answers before
 * loading it. On a connection of its own (the cluster hands each new connection to the next
 * worker), so that probing a request twice per worker asks each of them.
 */
async function probe(kind: RequestKind): Promise<{ status: number; etag?: string; body: string; problem?: string }> {
  const fill = (s: string) =>
    s
      .replaceAll('{{players1000}}', '["1","2","3"]')
      .replaceAll('{{players}}', '["1","2","3"]')
      .replaceAll('{{place}}', '1')
      .replaceAll('{{player}}', '1');
  const res = await new Promise<{ status: number; etag?: string; body: string }>((resolve, reject) => {
    const req = http.request(
      LADDER + fill(kind.path),
      { method: kind.method, headers: kind.headers, agent: false },
      (r) => {
        let body = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (body += chunk));
        r.on('end', () => resolve({ status: r.statusCode!, etag: r.headers.etag, body }));
        r.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(kind.body && fill(kind.body));
  });
  const { body } = res;
  let problem: string | undefined;
  if (res.status !== 200 && res.status !== 304) problem = `status ${res.status}: ${body.slice(0, 200)}`;
  else if (res.status === 200) {
    try {
      const errors = (JSON.parse(body) as { errors?: Array<{ message: string; extensions?: { code?: string } }> })
        .errors;
      if (errors?.length)
        problem = `200 with errors: ${errors[0]!.extensions?.code ?? ''} ${errors[0]!.message}`.slice(0, 240);
    } catch {
      problem = `200 but not JSON: ${body.slice(0, 120)}`;
    }
  }
  return { status: res.status, etag: res.etag, body, problem };
}

const warn = (line: string) => console.log(`warning: ${line}`);

type Key =
  | 'plain'
  | 'plainPaced'
  | 'redisFloor'
  | 'top'
  | 'persisted'
  | 'etag'
  | 'names'
  | 'entry'
  | 'around'
  | 'friends'
  | 'percentile'
  | 'friends1000'
  | 'friendsPage'
  | 'cutoff'
  | 'metadata'
  | (typeof SCOPED_KEYS)[number]
  | 'mix';

interface Scenario {
  key: Key;
  name: string;
  base: string;
  kinds: RequestKind[];
  /** Offered requests/s, open loop (WrkRun.rate); otherwise as fast as the connections go. */
  rate?: number;
  /** A first response was bad: have wrk check every response (see WrkRun.checkResponses). */
  checkResponses?: boolean;
  /** What the requests are, when the name does not say. */
  detail?: string;
  /** Highest id for {{player}} (the members of a scope: 1..n); default every player. */
  maxPlayer?: number;
}

/** A ladder scenario; each of its requests is probed first, and a bad answer is printed as a warning. */
async function ladderScenario(
  key: Key,
  name: string,
  kinds: RequestKind[],
  extra: Partial<Scenario> = {},
): Promise<Scenario> {
  let checkResponses = false;
  // Twice per worker: a request that only some workers answer well (state one worker holds) shows.
  for (const kind of kinds) {
    for (let i = 0; i < 2 * WORKERS; i++) {
      const { problem } = await probe(kind);
      if (!problem) continue;
      warn(`${name}: ${problem} (loaded anyway, every response checked: the failures are counted)`);
      checkResponses = true;
      break;
    }
  }
  return { key, name, base: LADDER, kinds, checkResponses, ...extra };
}

/** The GraphQL scenarios, after registering the persisted query and fetching the ETag. */
async function ladderScenarios(seasonId: number): Promise<{ scenarios: Scenario[]; topBytes: string }> {
  const board = `leaderboard(seasonId: ${seasonId})`;
  const topQuery = `{ ${board} { top(limit: 100) { rank playerId points achievedAt } } }`;
  const topPost = post(gqlBody(topQuery));
  const top = await probe(topPost);
  if (top.problem) throw new Error(`ladder top(100) does not answer: ${top.problem}`);

  // Persisted GET: register by POSTing query + hash once, then load with the hash alone.
  const extension = persistedExtension(topQuery);
  const registered = await probe(post(gqlBody(topQuery, undefined, extension)));
  if (registered.problem) warn(`registering the persisted query: ${registered.problem}`);
  const persisted: RequestKind = {
    weight: 1,
    method: 'GET',
    path: `/graphql?extensions=${encodeURIComponent(JSON.stringify(extension))}`,
    headers: { accept: 'application/json' },
  };

  // If-None-Match: the ETag of a plain GET, then conditional GETs that should all answer 304.
  const get: RequestKind = {
    weight: 1,
    method: 'GET',
    path: `/graphql?query=${encodeURIComponent(topQuery)}`,
    headers: { accept: 'application/json' },
  };
  const etag = (await probe(get)).etag;
  const conditional: RequestKind = { ...get, headers: etag ? { ...get.headers, 'if-none-match': etag } : get.headers };
  if (!etag) warn('top(100) by GET has no etag header: the If-None-Match scenario sends none and counts 200s');
  else {
    const p = await probe(conditional);
    if (p.status !== 304) warn(`GET with if-none-match: ${etag} answered ${p.status}, not 304`);
  }

  const names = post(gqlBody(`{ ${board} { top(limit: 100) { rank playerId player { displayName } } } }`));
  const metadata = post(gqlBody(`{ ${board} { top(limit: 100) { rank playerId points achievedAt metadata } } }`));
  // Random ids go in variables, as a real client sends them: the query text stays the same, so
  // the server parses and validates it once (inline literals would measure a parse per request).
  const entry = post(
    gqlBody(`query ($p: ID!) { ${board} { entry(playerId: $p) { rank points } } }`, { p: '{{player}}' }),
  );
  const around = post(
    gqlBody(`query ($p: ID!) { ${board} { around(playerId: $p, radius: 5) { rank playerId points } } }`, {
      p: '{{player}}',
    }),
  );
  const friends = post(
    gqlBody(`query ($ps: [ID!]!) { ${board} { friends(playerIds: $ps) { rank playerId } } }`, { ps: '{{players}}' }),
  );

  // Issue 31's reads, each beside its same-run baseline above: entry with its percentile (entry),
  // 1,000 friends and a page of 20 of them (friends of 50), the entry at a deep place (entry).
  const percentile = post(
    gqlBody(`query ($p: ID!) { ${board} { entry(playerId: $p) { rank points percentile } } }`, { p: '{{player}}' }),
  );
  const friends1000 = post(
    gqlBody(`query ($ps: [ID!]!) { ${board} { friends(playerIds: $ps) { rank playerId } } }`, {
      ps: '{{players1000}}',
    }),
  );
  const friendsPage = post(
    gqlBody(
      `query ($ps: [ID!]!) { ${board} { friendsPage(playerIds: $ps, first: 20) { entries { rank playerId } endCursor } } }`,
      { ps: '{{players1000}}' },
    ),
  );
  const cutoff = post(
    gqlBody(`query ($r: Int!) { ${board} { cutoff(rank: $r) { points achievedAt } } }`, { r: '{{place}}' }),
  );

  const scenarios = [
    await ladderScenario('top', 'top(100) by POST', [topPost]),
    await ladderScenario('persisted', 'top(100) by persisted GET (APQ)', [persisted]),
    await ladderScenario('etag', `top(100) by GET, If-None-Match${etag ? '' : ' (no etag: 200s)'}`, [conditional]),
    await ladderScenario('names', 'top(100) with player names, POST', [names]),
    await ladderScenario('metadata', 'top(100) with metadata, POST', [metadata]),
    await ladderScenario('entry', 'entry(random player), POST', [entry]),
    await ladderScenario('around', 'around(random player, radius 5), POST', [around]),
    await ladderScenario('friends', 'friends(50 random players), POST', [friends]),
    await ladderScenario('percentile', 'entry(random player) with percentile, POST', [percentile]),
    await ladderScenario('friends1000', 'friends(1,000 random players), POST', [friends1000]),
    await ladderScenario('friendsPage', 'friendsPage(1,000 random players, first 20), POST', [friendsPage]),
    await ladderScenario('cutoff', 'cutoff(random place), POST', [cutoff]),
  ];
  scenarios.push(...(await scopedScenarios(seasonId)));
  // The mix reads top by persisted GET, as a deployed client would; by POST if this server cannot.
  const persistedWorks = !scenarios.find((s) => s.key === 'persisted')!.checkResponses;
  if (!persistedWorks) warn('the mixed scenario reads top(100) by POST: persisted GET failed');
  scenarios.push(
    await ladderScenario(
      'mix',
      `mixed reads, ${RATE.toLocaleString('en')} req/s offered`,
      [
        { ...(persistedWorks ? persisted : topPost), weight: 60 },
        { ...entry, weight: 20 },
        { ...around, weight: 10 },
        { ...friends, weight: 10 },
      ],
      {
        rate: RATE,
        detail: `60% top(100) by ${persistedWorks ? 'persisted GET' : 'POST'}, 20% entry, 10% around, 10% friends`,
      },
    ),
  );
  return { topBytes: top.body, scenarios };
}

/**
 * The same three reads on the whole board, within the region BR and within the group clan7, by
 * POST with the player in a variable: top(10) (one query text, answered from the response cache
 * while the board is still), entry and around(radius 5) of a random player of 1..P/100: members of
 * clan7 and BR, so all three draw from the same 1,000 ids and the response cache (which stores an
 * entry from its second ask) sees the same repeats in each. Drawing from each scope's own members
 * would compare cache hit rates (1,000 ids repeat; 100,000 hardly do), not the reads.
 */
async function scopedScenarios(seasonId: number): Promise<Scenario[]> {
  const where = [
    { key: 'Board', label: `board (${PLAYERS.toLocaleString('en')})`, scope: '' },
    { key: 'Region', label: `region BR (${REGION_MEMBERS.toLocaleString('en')})`, scope: ', scope: { region: "BR" }' },
    {
      key: 'Group',
      label: `group clan7 (${GROUP_MEMBERS.toLocaleString('en')})`,
      scope: ', scope: { group: "clan7" }',
    },
  ] as const;
  const reads = [
    ['top10', 'top(10)', '{ top(limit: 10) { rank playerId points } }'],
    [
      'entry',
      `entry(random of 1..${GROUP_MEMBERS.toLocaleString('en')})`,
      'query ($p: ID!) { entry(playerId: $p) { rank points } }',
    ],
    [
      'around',
      `around(random of 1..${GROUP_MEMBERS.toLocaleString('en')}, radius 5)`,
      'query ($p: ID!) { around(playerId: $p, radius: 5) { rank playerId points } }',
    ],
  ] as const;
  const out: Scenario[] = [];
  // Rounds one after the other (A B C, A B C): the machine's drift falls on every read alike.
  for (let round = 1; round <= SCOPED_ROUNDS; round++)
    for (const [read, label, operation] of reads)
      for (const w of where) {
        // The operation's selection, inside leaderboard(...) with the scope argument or without.
        const query = operation.replace('{ ', `{ leaderboard(seasonId: ${seasonId}${w.scope}) { `) + ' }';
        const kind = post(gqlBody(query, read === 'top10' ? undefined : { p: '{{player}}' }));
        const key: Key = `${read}${w.key}`;
        const name = `${label}, ${w.label}${SCOPED_ROUNDS > 1 ? `, round ${round}` : ''}`;
        out.push(await ladderScenario(key, name, [kind], { maxPlayer: GROUP_MEMBERS }));
      }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measuring

interface Measured {
  scenario: Scenario;
  /** Something that makes the row suspect (the server died during it). */
  note?: string;
  wrk: WrkResult;
  /** 200s and 304s per second. */
  okRate: number;
  failed: number;
  serverUsPerReq: number;
  wrkUsPerReq: number;
  redisUsPerReq: number;
}

async function measure(scenario: Scenario, serverPid: number, seconds = SECONDS): Promise<Measured> {
  const tree0 = sampleTree(serverPid);
  const cpu0 = sampleCpu(CPU_TARGETS);
  let wrk: WrkResult;
  try {
    wrk = await runWrk({
      baseUrl: scenario.base,
      kinds: scenario.kinds,
      seconds,
      connections: CONNECTIONS,
      threads: THREADS,
      maxPlayer: scenario.maxPlayer ?? PLAYERS,
      rate: scenario.rate,
      checkResponses: scenario.checkResponses,
    });
  } catch (err) {
    // wrk refuses to start when it cannot connect (the server died): a row of dashes, not a crash.
    const nothing = {
      seconds: seconds,
      requests: 0,
      rps: 0,
      non2xx3xx: 0,
      badResponses: -1,
      late: 0,
      p50: NaN,
      p90: NaN,
      p99: NaN,
      cpuSeconds: 0,
    };
    return {
      scenario,
      note: `wrk failed: ${(err as Error).message.split('\n')[0]}`,
      okRate: NaN,
      failed: NaN,
      wrk: { ...nothing, errors: { connect: 0, read: 0, write: 0, timeout: 0 } },
      serverUsPerReq: NaN,
      wrkUsPerReq: NaN,
      redisUsPerReq: NaN,
    };
  }
  const serverSeconds = treeSeconds(tree0, sampleTree(serverPid));
  const redisSeconds = cpuDelta(cpu0, sampleCpu(CPU_TARGETS)).redis;
  const e = wrk.errors;
  const bad = wrk.badResponses >= 0 ? wrk.badResponses : wrk.non2xx3xx;
  const perReq = (s: number) => (wrk.requests > 0 ? (s * 1e6) / wrk.requests : NaN);
  return {
    scenario,
    wrk,
    okRate: (wrk.requests - bad) / wrk.seconds,
    failed: bad + e.connect + e.read + e.write + e.timeout,
    serverUsPerReq: perReq(serverSeconds),
    wrkUsPerReq: perReq(wrk.cpuSeconds),
    redisUsPerReq: perReq(redisSeconds),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = {
  int: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '-'),
  ms: (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-'),
  ratio: (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '-'),
  pct: (n: number) => (Number.isFinite(n) ? `${(100 * n).toFixed(1)}%` : '-'),
};

function printTable(rows: Measured[], plainRate: number): void {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'vs plain',
    'server µs/req',
    'wrk µs/req',
    'redis µs/req',
    'failed',
  ];
  const cells = rows.map((r) => [
    r.scenario.name,
    fmt.int(r.okRate),
    fmt.ms(r.wrk.p50),
    fmt.ms(r.wrk.p90),
    fmt.ms(r.wrk.p99),
    r.scenario.rate ? '-' : fmt.ratio(r.okRate / plainRate),
    fmt.int(r.serverUsPerReq),
    fmt.int(r.wrkUsPerReq),
    fmt.int(r.redisUsPerReq),
    fmt.int(r.failed),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((s, i) => (i === 0 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  for (const c of cells) console.log(line(c));
}

/** Each target with its measured value; a target whose rows failed or were not measured is not met. */
function printTargets(row: (key: Key) => Measured | undefined, plainRate: number): void {
  const target = (label: string, keys: Key[], measure: (...rows: Measured[]) => { value: string; met: boolean }) => {
    if (ONLY && keys.some((k) => !ONLY.includes(k))) return; // a scenario left out by --only
    const rows = keys.map(row);
    if (rows.some((r) => r === undefined || r.note)) {
      console.log(`  ${label}: not measured (${rows.find((r) => r?.note)?.note ?? 'ladder had exited'})  not met`);
      return;
    }
    const { value, met } = measure(...(rows as Measured[]));
    const failed = (rows as Measured[]).reduce((n, r) => n + r.failed, 0);
    console.log(
      `  ${label}: ${value}  ${met && failed === 0 ? 'met' : 'not met'}${failed ? ` (${fmt.int(failed)} failed)` : ''}`,
    );
  };
  const vsPlain = (r: Measured | undefined) => (r ? r.okRate / plainRate : NaN);
  const atLeast = (min: number) => (r: Measured) => ({ value: fmt.ratio(vsPlain(r)), met: vsPlain(r) >= min });
  console.log('\ntargets:');
  target('cached top(100) by POST >= 0.5x plain', ['top'], (top) => ({
    value: `${fmt.ratio(vsPlain(top))} (persisted GET ${fmt.ratio(vsPlain(row('persisted')))}, If-None-Match ${fmt.ratio(vsPlain(row('etag')))})`,
    met: vsPlain(top) >= 0.5,
  }));
  target('entry >= 0.25x plain', ['entry'], atLeast(0.25));
  target('around >= 0.25x plain', ['around'], atLeast(0.25));
  target('top with names >= 0.9x top', ['names', 'top'], (names, top) => ({
    value: fmt.ratio(names.okRate / top.okRate),
    met: names.okRate / top.okRate >= 0.9,
  }));
  // Issue 31's reads against their same-run baselines (rates and server CPU per response).
  const beside = (r: Measured, base: Measured) =>
    `${fmt.ratio(r.okRate / base.okRate)} the rate, ${fmt.int(r.serverUsPerReq)} vs ${fmt.int(base.serverUsPerReq)} µs server CPU, ${fmt.int(r.redisUsPerReq)} vs ${fmt.int(base.redisUsPerReq)} µs Redis CPU`;
  target('top(100) with metadata >= 0.8x top(100)', ['metadata', 'top'], (m, top) => ({
    value: beside(m, top),
    met: m.okRate / top.okRate >= 0.8,
  }));
  target('entry with percentile >= 0.9x entry', ['percentile', 'entry'], (p, entry) => ({
    value: beside(p, entry),
    met: p.okRate / entry.okRate >= 0.9,
  }));
  target('cutoff(random place) >= 0.9x entry', ['cutoff', 'entry'], (c, entry) => ({
    value: beside(c, entry),
    met: c.okRate / entry.okRate >= 0.9,
  }));
  target('friends of 1,000 >= 1/20 of friends of 50 (linear in ids)', ['friends1000', 'friends'], (f, base) => ({
    value: beside(f, base),
    met: f.okRate / base.okRate >= 1 / 20,
  }));
  // The same Redis work (every id's score and rank), a smaller answer.
  target('friendsPage(first 20) of 1,000 >= 0.8x friends of 1,000', ['friendsPage', 'friends1000'], (p, f) => ({
    value: beside(p, f),
    met: p.okRate >= 0.8 * f.okRate,
  }));
  const floors = [
    ['plainPaced', 'plain Node offered the same'],
    ['redisFloor', "plain Node with the mix's Redis calls"],
  ] as const;
  const lateShare = (r: Measured) => (r.wrk.requests > 0 ? r.wrk.late / r.wrk.requests : 1);
  const lateNote = (r: Measured) => `, ${fmt.pct(lateShare(r))} late`;
  target(`p99 <= 5 ms at ${RATE.toLocaleString('en')} req/s mixed (<= 1% late)`, ['mix'], (mix) => ({
    value:
      `p99 ${fmt.ms(mix.wrk.p99)} ms at ${fmt.int(mix.okRate)} req/s achieved${lateNote(mix)}` +
      floors
        .map(([key, label]) => {
          const floor = row(key);
          return floor
            ? ` (${label}: p99 ${fmt.ms(floor.wrk.p99)} ms at ${fmt.int(floor.okRate)} req/s${lateNote(floor)})`
            : '';
        })
        .join(''),
    met: mix.wrk.p99 <= 5 && lateShare(mix) <= 0.01,
  }));
}

/** Each scoped read beside the same read of the whole board, measured just before it, per round. */
function printScoped(rows: Measured[]): void {
  const reads = [
    ['top(10)', 'top10Board', 'top10Region', 'top10Group'],
    ['entry', 'entryBoard', 'entryRegion', 'entryGroup'],
    ['around', 'aroundBoard', 'aroundRegion', 'aroundGroup'],
  ] as const;
  const lines: string[] = [];
  for (let round = 0; round < SCOPED_ROUNDS; round++)
    for (const [label, ...keys] of reads) {
      const [board, region, group] = keys.map((k) => rows.filter((r) => r.scenario.key === k)[round]);
      if (!board || (!region && !group)) continue;
      const vs = (r: Measured | undefined, name: string) =>
        r
          ? `${name} ${fmt.int(r.okRate)} req/s (${fmt.ratio(r.okRate / board.okRate)}), ` +
            `${fmt.int(r.serverUsPerReq)} µs server, ${fmt.int(r.redisUsPerReq)} µs Redis`
          : `${name} not measured`;
      lines.push(
        `  ${SCOPED_ROUNDS > 1 ? `round ${round + 1}, ` : ''}${label}: board ${fmt.int(board.okRate)} req/s, ` +
          `${fmt.int(board.serverUsPerReq)} µs server, ${fmt.int(board.redisUsPerReq)} µs Redis; ` +
          `${vs(region, 'region BR')}; ${vs(group, 'group clan7')}`,
      );
    }
  if (lines.length === 0) return;
  console.log(
    `\nscoped reads (same process count, one after the other; scope boards written by seeding's ingest path): ` +
      `board of ${PLAYERS.toLocaleString('en')}, region BR of ${REGION_MEMBERS.toLocaleString('en')}, ` +
      `group clan7 of ${GROUP_MEMBERS.toLocaleString('en')}; entry and around of players 1..${GROUP_MEMBERS.toLocaleString('en')} ` +
      `in all three; response cache max age ${RESPONSE_CACHE_MAX_AGE_MS ?? "ladder's default"} ms; CPU per response`,
  );
  for (const l of lines) console.log(l);
}

/** Why rows failed: wrk's error kinds, so a timeout is not mistaken for an error answer. */
function printFailures(rows: Measured[]): void {
  for (const r of rows.filter((row) => row.failed > 0)) {
    const e = r.wrk.errors;
    const bad =
      r.wrk.badResponses >= 0
        ? `${r.wrk.badResponses} bad responses (not 200/304, or errors in the body)`
        : `${r.wrk.non2xx3xx} with status >= 400`;
    const socket = [
      ['timeouts (wrk: no response within 2 s)', e.timeout],
      ['connect errors', e.connect],
      ['read errors', e.read],
      ['write errors', e.write],
    ]
      .filter(([, n]) => Number(n) > 0)
      .map(([what, n]) => `${n} ${what}`);
    console.log(`  failed, ${r.scenario.name}: ${[bad, ...socket].join(', ')}`);
  }
}

function printNotes(mix: Scenario): void {
  console.log(
    [
      'req/s counts 200 and 304 only; failed = status >= 400 + socket errors + timeouts, and, in scenarios whose first',
      'response was bad (warnings above), every response other than 200/304 or with "errors" in its body.',
      `µs/req is CPU (user + system) per response: server = its whole process tree, redis = redis-server on ${CPU_TARGETS.redisPort}`,
      "(other users' load on it lands there too). Latencies are wrk's, which corrects for coordinated omission its own way (a",
      'response slower than twice the mean per-connection interval adds synthetic samples).',
      `mixed: ${mix.detail}. Offered open loop: requests are due at the times of a Poisson process of`,
      `${RATE.toLocaleString('en')}/s (each wrk thread half of it), whether or not earlier ones were answered, and each is sent at its`,
      `time on a free connection of the ${CONNECTIONS}. "late" counts requests sent more than 1 ms after their time because every`,
      'connection was waiting for an answer: their wait before sending is not in the latencies, so a p99 with more than 1% late',
      'understates; wrk measures each latency from the send.',
    ].join('\n'),
  );
}

/** Node processes in a server's tree (tsx adds an esbuild process that serves no request). */
function nodeProcesses(root: number): number {
  return [...sampleTree(root).keys()].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node';
    } catch {
      return false;
    }
  }).length;
}

// ---------------------------------------------------------------------------------------------
// Main

ensureWrk();
const loadAtStart = os.loadavg();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ladder-bench-api-'));
const cleanUp = async () => {
  await stopServers();
  rmSync(tmp, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}
const loadavg = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
try {
  console.log(`seeding ${PLAYERS.toLocaleString('en')} players into ${DATABASE} / ${REDIS_URL} ...`);
  const seasonId = await seed();
  const ladder = await startServer(
    'ladder',
    [...(process.env.BENCH_API_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []), ...builtLadder()],
    {
      LADDER_ROLES: 'api',
      API_WORKERS: String(WORKERS),
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATABASE_URL,
      REDIS_URL,
      LOG_LEVEL: 'info',
      KAFKA_TOPIC: 'bench-api-results',
      RATE_LIMIT_READS_PER_SEC: '1000000000',
      RATE_LIMIT_READS_BURST: '1000000000',
      // The board is seeded straight into Redis: no restore (a rebuild of it) at start.
      BOARD_RESTORE_INTERVAL_MS: '0',
      ...(RESPONSE_CACHE_MAX_AGE_MS !== undefined ? { RESPONSE_CACHE_MAX_AGE_MS } : {}),
    },
    /GraphQL API listening/,
    WORKERS,
  );
  const { scenarios, topBytes } = await ladderScenarios(seasonId);
  const mix = scenarios.find((s) => s.key === 'mix')!;
  const bodyFile = path.join(tmp, 'top100.json');
  writeFileSync(bodyFile, topBytes);
  const plain = await startServer(
    'plain server',
    ['bench/plain-server.mjs', String(PLAIN_PORT), bodyFile, String(WORKERS)],
    {},
    /^ready$/,
    1,
  );
  // The floor of the mix: plain Node making only the Redis calls of its uncached reads (plain-server.mjs).
  const floorServer =
    (!ONLY || ONLY.includes('mix')) &&
    (await startServer(
      'Redis floor server',
      [
        'bench/plain-server.mjs',
        String(FLOOR_PORT),
        bodyFile,
        String(WORKERS),
        REDIS_URL,
        boardKey(seasonBoard({ id: seasonId })),
        boardVersionsKey(seasonId),
        boardLabel(seasonBoard({ id: seasonId })),
      ],
      {},
      /^ready$/,
      1,
    ));

  console.log(
    `\n${PLAYERS.toLocaleString('en')} players, ${CONNECTIONS} connections, ${SECONDS} s per scenario, ` +
      `${WORKERS} server processes each (ladder API_WORKERS=${WORKERS}, plain cluster of ${WORKERS}), wrk -t${THREADS}; ` +
      `${os.availableParallelism()} cores, Node ${process.version}, load average at start ${loadavg(loadAtStart)}`,
  );
  if (ladder.listening < WORKERS) {
    warn(
      `ladder: ${ladder.listening} of ${WORKERS} processes logged "GraphQL API listening" (${nodeProcesses(ladder.child.pid!)} node ` +
        'process(es) in its tree): this ladder does not run API_WORKERS, so the plain server runs more processes than ladder',
    );
  }

  // Warm-up, not reported: JIT, caches, connection pools, every kind of request.
  await measure({ ...mix, rate: 0 }, ladder.child.pid!, Math.min(2, SECONDS));
  const plainRow = await measure(
    {
      key: 'plain',
      name: 'plain Node HTTP, same top(100) bytes',
      base: PLAIN,
      kinds: [{ weight: 1, method: 'GET', path: '/', headers: {} }],
    },
    plain.child.pid!,
  );
  const rows = [plainRow];
  // The floors of the mix at the same offered rate: plain Node answering the same bytes (at a low
  // rate each request pays its own wake-ups, on this VM several times its CPU at saturation), and
  // plain Node making the Redis calls of the mix's uncached reads, the least any server reading
  // ranks from Redis pays for them.
  if (floorServer) {
    rows.push(
      await measure(
        {
          ...plainRow.scenario,
          key: 'plainPaced',
          name: `plain Node HTTP, ${RATE.toLocaleString('en')} req/s offered`,
          rate: mix.rate,
        },
        plain.child.pid!,
      ),
    );
    const redisFloor: Scenario = {
      ...mix,
      key: 'redisFloor',
      name: `plain Node + the mix's Redis calls, ${RATE.toLocaleString('en')} req/s`,
      base: FLOOR,
    };
    await measure({ ...redisFloor, rate: 0 }, floorServer.child.pid!, 1); // warm-up: JIT, the scripts
    rows.push(await measure(redisFloor, floorServer.child.pid!));
  }
  // Warm-up of the scoped reads' own paths (the scope argument, the scope boards' first reads),
  // on ids that are members everywhere, so the first scoped row does not pay it.
  const scoped = scenarios.filter((x) => (SCOPED_KEYS as readonly string[]).includes(x.key));
  if (scoped.some((x) => !ONLY || ONLY.includes(x.key)))
    await measure(
      { ...scoped[0]!, kinds: scoped.flatMap((x) => x.kinds), maxPlayer: GROUP_MEMBERS },
      ladder.child.pid!,
      Math.min(2, SECONDS),
    );
  // Redis pub/sub is shared by all databases: another ladder on this Redis can crash this one.
  const exited = () => ladder.child.exitCode ?? ladder.child.signalCode;
  for (const s of scenarios.filter((x) => !ONLY || ONLY.includes(x.key))) {
    if (exited() !== null) {
      warn(`not measured, ladder had exited: ${s.name}`);
      continue;
    }
    const row = await measure(s, ladder.child.pid!);
    if (exited() !== null) row.note = `ladder exited (${exited()}) during this scenario`;
    rows.push(row);
  }

  console.log('');
  printTable(rows, plainRow.okRate);
  printFailures(rows);
  for (const r of rows.filter((row) => row.note)) console.log(`  ${r.scenario.name}: ${r.note}`);
  console.log(`load average at end ${loadavg(os.loadavg())}\n`);
  printNotes(mix);
  printScoped(rows);
  printTargets((key) => rows.find((r) => r.scenario.key === key)!, plainRow.okRate);
} finally {
  await cleanUp();
}
