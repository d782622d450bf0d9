// A season at the seeds' scale (issue 10, item 5): 10,000,000 players on one SEASON board.
//
//   npm run bench:10m                          # 10,000,000 players
//   npm run bench:10m -- --players 1000000     # a quicker look
//
// Standings are seeded straight into PostgreSQL by one INSERT ... SELECT generate_series (not
// through Kafka: ingest is what `npm run bench` measures). Then, each step timed with the CPU of
// this process, PostgreSQL and Redis beside it:
//   1. ladder's rebuild (service/rebuild-season.ts) into an empty Redis;
//   2. the same members and scores, read back from that board into arrays, reloaded by a raw
//      ordered reload: pipelined ZADD of 5,000 members per command, best first (the rebuild's
//      order), into a bare ZSET (the baseline of both time and bytes);
//   3. the same rows read from PostgreSQL in score order, nothing else (the rebuild's other half);
//   4. a second rebuild over the live board (the operational case: copy + board at the peak);
//   5. the close (service/close-season.ts with its PostgreSQL and Redis parts; nothing to drain,
//      the fixed waits for caches set to 0 and reported apart).
// Redis bytes per player: MEMORY USAGE ... SAMPLES 0 of the board and of the bare ZSET, and the
// used_memory delta of each load. It owns the database ladder_10m (created, and dropped at the
// end) and runs its own redis-server on a free port (10M members are ~1 GB: never the shared one).
import os from 'node:os';
import postgres from 'postgres';
import { ensureDatabase } from '../scripts/ensure-database.js';
import { boardExpireAt, seasonBoard } from '../src/domain/board.js';
import type { Season } from '../src/domain/season.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createSeasonLifecycleStore } from '../src/postgres/season-lifecycle-store.js';
import { createStandingsReader } from '../src/postgres/standings-reader.js';
import { createBoardRebuilder } from '../src/redis/board-rebuilder.js';
import { createRedis } from '../src/redis/client.js';
import { boardKey } from '../src/redis/keys.js';
import { createSeasonKeys } from '../src/redis/season-keys.js';
import { closeSeason } from '../src/service/close-season.js';
import { rebuildSeason } from '../src/service/rebuild-season.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { intArg } from './args.js';
import { cpuDelta, sampleCpu, type CpuTargets, type CpuUse } from './cpu.js';
import { createBenchSeason } from './season.js';

const N = intArg('players', 10_000_000, process.env.BENCH_PLAYERS);
const TTL = 90 * 24 * 3600;
const PAGE = 5_000; // members per ZADD of the raw reload: the rebuild's page size
const IN_FLIGHT = 4; // ZADD commands of the raw reload sent ahead of their replies
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_10m';
const DATABASE = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1));

interface Step {
  step: string;
  seconds: number;
  cpu: CpuUse;
  note: string;
}
const steps: Step[] = [];

/** Runs `fn`, recording its wall time and the CPU of this process, PostgreSQL and Redis. */
async function step<T>(name: string, fn: () => Promise<T>, note: (value: T, seconds: number) => string): Promise<T> {
  const cpu0 = sampleCpu(targets);
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuDelta(cpu0, sampleCpu(targets));
  steps.push({ step: name, seconds, cpu, note: note(value, seconds) });
  console.error(`  ${name}: ${seconds.toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(2)})`);
  return value;
}

async function run(): Promise<string[]> {
  const season = await createBenchSeason(pg.db, 'bench 10m');
  const board = boardKey(seasonBoard(season));
  await step(
    'seed standings (INSERT ... SELECT generate_series)',
    () => pg.sql`
      insert into standings (season_id, "window", period, player_id, points, achieved_at)
      select ${season.id}, 'SEASON', '', g, floor(random() * 1000000)::int,
             ${season.startsAt.toISOString()}::timestamptz + random() * interval '9 days'
      from generate_series(1, ${N}) g`,
    () => `${count(N)} rows`,
  );
  await step(
    'VACUUM ANALYZE standings',
    () => pg.sql`vacuum analyze standings`,
    () => '',
  );

  const empty = await settledMemory();
  const rebuilt = await step(
    '1. rebuild into an empty Redis (ladder)',
    () => rebuild(season),
    (r, s) => `${rate(r.members, s)}`,
  );
  const boardUsed = (await settledMemory()) - empty;
  const boardBytes = await memoryUsage(board);
  const encoding = await redis.object('ENCODING', board);

  // The board's members and scores, best first, as plain arrays: the raw reload's input.
  const { ids, scores } = await readBack(board);
  const beforeBare = await settledMemory();
  await step(
    '2. raw ordered reload (pipelined ZADD, best first)',
    () => rawReload('bare', ids, scores),
    (_, s) => `${rate(N, s)}; ${count(PAGE)} members per ZADD, ${IN_FLIGHT} in flight`,
  );
  const bareUsed = (await settledMemory()) - beforeBare;
  const bareBytes = await memoryUsage('bare');
  if ((await redis.zcard('bare')) !== rebuilt.members) throw new Error('the bare ZSET and the board differ in size');
  await redis.unlink('bare');

  await step(
    '3. read every standing in score order (PostgreSQL alone)',
    () => readAll(season),
    (n, s) => `${rate(n, s)}; the rebuild's COPY, pages of ${count(PAGE)}`,
  );
  await step(
    '4. rebuild over the live board (ladder)',
    () => rebuild(season),
    (r, s) => `${rate(r.members, s)}; copy and board side by side until the swap`,
  );
  const peakBytes = Number(/used_memory_peak:(\d+)/.exec(await redis.info('memory'))![1]);
  const closed = await step(
    '5. close: finalize + remove keys (waits for caches = 0)',
    () => close(season),
    (r) =>
      `final standings ${count(r.rows)} rows: finalize ${secs(r.steps.finalize! / 1000)}, ` +
      `remove keys ${secs(r.steps.removeKeys! / 1000)}`,
  );
  if (closed.rows !== N) throw new Error(`close wrote ${closed.rows} final standings, expected ${N}`);

  const lines = table([
    ['step', 'seconds', 'CPU s node/pg/redis (other)', 'note'],
    ...steps.map((s) => [
      s.step,
      s.seconds.toFixed(1),
      `${s.cpu.node.toFixed(1)}/${s.cpu.pg.toFixed(1)}/${s.cpu.redis.toFixed(1)} (${s.cpu.other.toFixed(1)})`,
      s.note,
    ]),
  ]);
  const [rebuildStep, rawStep, readStep] = [steps[2]!, steps[3]!, steps[4]!];
  lines.push(
    '',
    `rebuild / raw ordered reload: ${(rebuildStep.seconds / rawStep.seconds).toFixed(2)}x time ` +
      `(rebuild ${secs(rebuildStep.seconds)}, raw reload ${secs(rawStep.seconds)}, PostgreSQL read alone ${secs(readStep.seconds)})`,
    `Redis bytes per player, season board vs bare ZSET of the same members and scores:`,
    `  MEMORY USAGE SAMPLES 0: ${perPlayer(boardBytes)} vs ${perPlayer(bareBytes)} = ${(boardBytes / bareBytes).toFixed(3)}x`,
    `  used_memory delta:      ${perPlayer(boardUsed)} vs ${perPlayer(bareUsed)} = ${(boardUsed / bareUsed).toFixed(3)}x`,
    `  encoding ${encoding}, used_memory peak ${mib(peakBytes)} (a rebuild over the live board holds copy + board)`,
    `close: ${secs(closed.durationMs / 1000)} without its fixed waits; in production add SEASON_CACHE_TTL_MS twice and ` +
      'SEASON_CLOSE_GRACE_MS (caches expiring, validated submissions reaching Kafka) and the drain of ingest lag',
    '',
    `machine: nproc ${os.availableParallelism()}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `loadavg(1m) ${load0.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end; "other": CPU s the rest of the machine used`,
  );
  return lines;

  function perPlayer(bytes: number): string {
    return `${(bytes / N).toFixed(1)} B`;
  }
}

function rebuild(season: Season) {
  return rebuildSeason(
    {
      source: createStandingsReader(pg.sql),
      target: createBoardRebuilder(redis, TTL),
      expireAt: (b) => boardExpireAt(b, TTL),
      now: Date.now,
    },
    season,
  );
}

function close(season: Season) {
  return closeSeason(
    {
      store: createSeasonLifecycleStore(pg),
      // Nothing of this season went through Kafka: no partition to wait for.
      ingest: { endOffsets: async () => [], committedOffsets: async () => new Map() },
      keys: createSeasonKeys(redis),
      invalidate: () => {},
      cacheTtlMs: 0,
      graceMs: 0,
      drainTimeoutMs: 60_000,
    },
    season.id,
    { actor: 'bench', reason: 'bench:10m' },
  );
}

/** Members (player ids) and scores of a board, best first, read by ZRANGE pages. */
async function readBack(key: string): Promise<{ ids: Float64Array; scores: Float64Array }> {
  const size = await redis.zcard(key);
  const ids = new Float64Array(size);
  const scores = new Float64Array(size);
  for (let start = 0; start < size; start += 100_000) {
    const flat = await redis.zrange(key, start, start + 99_999, 'REV', 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) {
      ids[start + i / 2] = Number(flat[i]);
      scores[start + i / 2] = Number(flat[i + 1]);
    }
  }
  return { ids, scores };
}

/** The baseline: plain pipelined ZADD of the same members and scores, in the same order. */
async function rawReload(key: string, ids: Float64Array, scores: Float64Array): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  for (let start = 0; start < ids.length; start += PAGE) {
    const args: string[] = [];
    for (let i = start; i < Math.min(start + PAGE, ids.length); i++) args.push(String(scores[i]), String(ids[i]));
    const p = redis.zadd(key, ...args).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

async function readAll(season: Season): Promise<number> {
  let n = 0;
  for await (const page of createStandingsReader(pg.sql).seasonPages(season.id, season.order, PAGE))
    n += page.playerIds.length;
  return n;
}

/** used_memory once lazy freeing (UNLINK's background thread) is done. */
async function settledMemory(): Promise<number> {
  for (;;) {
    const info = await redis.info('memory');
    if (Number(/lazyfree_pending_objects:(\d+)/.exec(info)?.[1] ?? 0) === 0)
      return Number(/used_memory:(\d+)/.exec(info)![1]);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function memoryUsage(key: string): Promise<number> {
  return Number(await redis.memory('USAGE', key, 'SAMPLES', 0));
}

const count = (n: number) => n.toLocaleString('en-US');
const secs = (s: number) => `${s.toFixed(1)} s`;
const rate = (n: number, s: number) => `${count(Math.round(n / s))}/s`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

function table(data: string[][]): string[] {
  const widths = data[0]!.map((_, i) => Math.max(...data.map((r) => r[i]!.length)));
  return data.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

// Last: the helpers above are consts, initialised only once the module body reaches them.
const load0 = os.loadavg()[0]!;
await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 4);
const server = await startRedisServer();
const redis = createRedis(server.url);
const targets: CpuTargets = { database: DATABASE, redisPort: String(server.port) };
console.error(`bench:10m: ${count(N)} players, database ${DATABASE}, redis-server on port ${server.port}`);
try {
  await pg.sql`truncate seasons, standings, season_final_standings cascade`;
  console.log((await run()).join('\n'));
} finally {
  redis.disconnect();
  await pg.close();
  await server.stop();
  // The database is the bench's own: dropped, not kept (10M standings and final standings are ~3 GB).
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${DATABASE.replaceAll('"', '""')}" with (force)`);
  await admin.end({ timeout: 5 });
}
