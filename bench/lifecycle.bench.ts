// Rebuild and reconcile of one large season board (STYLE 15), against raw PostgreSQL reads measured
// in the same run (reconcile's defaults: pages of 200, report only):
//
//   npx tsx bench/lifecycle.bench.ts                    # 1,000,000 players
//   npx tsx bench/lifecycle.bench.ts --players 200000
//
// Standings are filled by one INSERT ... SELECT generate_series (the ingest path is not what is
// measured here). It owns the database ladder_bench_lifecycle (truncated at start and end) and
// runs its own redis-server on a free port, so INFO used_memory counts this board alone.
import { ensureDatabase } from '../scripts/ensure-database.js';
import type { Season } from '../src/domain/season.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createStandingsPages } from '../src/postgres/standings-pages.js';
import { createStandingsReader } from '../src/postgres/standings-reader.js';
import { createBoardInspector } from '../src/redis/board-inspector.js';
import { createBoardRebuilder } from '../src/redis/board-rebuilder.js';
import { boardExpireAt, seasonBoard } from '../src/domain/board.js';
import { codecOf } from '../src/domain/score-codec.js';
import { createRedis } from '../src/redis/client.js';
import { boardKey } from '../src/redis/keys.js';
import { rebuildSeason } from '../src/service/rebuild-season.js';
import { reconcileSeason, type ReconcileOptions } from '../src/service/reconcile-season.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { intArg } from './args.js';
import { createBenchSeason } from './season.js';

const N = intArg('players', 1_000_000);
if (N < 1000) throw new Error('--players must be an integer >= 1000');
const DAMAGED = Math.max(1, Math.round(N / 1000)); // members of each kind of drift
const TTL = 90 * 24 * 3600;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_bench_lifecycle';

async function run(): Promise<void> {
  const season = await createBenchSeason(pg.db, 'bench lifecycle');
  const fill = await timed(
    () => pg.sql`
    insert into standings (season_id, "window", period, player_id, points, achieved_at)
    select ${season.id}, 'SEASON', '', g, floor(random() * 1000000)::int,
           ${season.startsAt.toISOString()}::timestamptz + random() * interval '9 days'
    from generate_series(1, ${N}) g`,
  );
  await pg.sql`vacuum analyze standings`;
  rows.push(['fill standings (INSERT ... SELECT)', secs(fill.seconds), `${count(N)} rows, then VACUUM ANALYZE`]);

  const total = await timed(() => createStandingsPages(pg.sql).boardSizes(season.id));
  rows.push(['count query (progress total)', secs(total.seconds), `${count(total.value[0]!.members)} members`]);
  const scan = await timed(() => readAll(season));
  rows.push(['baseline: read every row, score order', secs(scan.seconds), `${rate(N, scan.seconds)}; PostgreSQL only`]);
  const keyset = await timed(() => readKeyset(season));
  rows.push([
    'baseline: keyset pages by player id',
    secs(keyset.seconds),
    `${rate(N, keyset.seconds)}; PostgreSQL only, 1,000 a page (reconcile's)`,
  ]);

  const before = await usedMemory();
  const rebuilt = await timed(() => rebuild(season));
  const after = await usedMemory();
  rows.push(['rebuild into an empty Redis', secs(rebuilt.seconds), `${rate(rebuilt.value.members, rebuilt.seconds)}`]);
  rows.push([
    'Redis used_memory before / after',
    `${mib(before)} / ${mib(after)}`,
    `${((after - before) / N).toFixed(1)} B per member`,
  ]);
  const again = await timed(() => rebuild(season));
  rows.push([
    'rebuild over the live board',
    secs(again.seconds),
    `peak used_memory ${mib(await peakMemory())}: copy + live board`,
  ]);

  await measureReconcile(season);
}

async function measureReconcile(season: Season): Promise<void> {
  for (const pageSize of [200, 1_000, 5_000]) {
    await redis.config('RESETSTAT');
    const clean = await timed(() => reconcile(season, { pageSize }));
    rows.push([
      `reconcile, clean, page ${count(pageSize)}`,
      secs(clean.seconds),
      `${rate(N, clean.seconds)}; drift ${drift(clean.value)}; ZMSCORE blocks Redis ${await usecPerCall('zmscore')} µs`,
    ]);
  }
  await damage(season);
  await redis.config('RESETSTAT');
  const found = await timed(() => reconcile(season));
  rows.push([
    'reconcile, damaged (+ ZSCAN pass)',
    secs(found.seconds),
    `drift ${drift(found.value)}; ZSCAN blocks Redis ${await usecPerCall('zscan')} µs`,
  ]);
  const repaired = await timed(() => reconcile(season, { repair: true }));
  rows.push(['reconcile --repair', secs(repaired.seconds), `repaired ${count(repaired.value.total.repaired)}`]);
  const verify = await timed(() => reconcile(season));
  rows.push(['reconcile after repair', secs(verify.seconds), `drift ${drift(verify.value)}`]);
}

/** Removes, rescores and adds DAMAGED members each, straight in Redis. */
async function damage(season: Season): Promise<void> {
  const key = boardKey(seasonBoard(season));
  const victims = await redis.zrandmember(key, DAMAGED * 2);
  await redis.zrem(key, ...victims.slice(0, DAMAGED));
  await redis.zadd(key, ...victims.slice(DAMAGED).flatMap((m) => ['1', m]));
  await redis.zadd(key, ...Array.from({ length: DAMAGED }, (_, i) => ['1', String(N + 1 + i)]).flat());
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

function reconcile(season: Season, options: ReconcileOptions = {}) {
  return reconcileSeason(
    {
      standings: createStandingsPages(pg.sql),
      boards: createBoardInspector(redis, TTL),
      codecOf,
      isFinalized: async () => false,
      expireAt: (b) => boardExpireAt(b, TTL),
      now: Date.now,
    },
    season,
    options,
  );
}

async function readAll(season: Season): Promise<number> {
  let n = 0;
  for await (const page of createStandingsReader(pg.sql).seasonPages(season.id, season.order, 5_000))
    n += page.playerIds.length;
  return n;
}

async function readKeyset(season: Season): Promise<number> {
  const pages = createStandingsPages(pg.sql);
  let n = 0;
  for (let after = '0'; ;) {
    const page = await pages.page(seasonBoard(season), after, 1_000);
    n += page.length;
    if (page.length < 1_000) return n;
    after = page.at(-1)!.playerId;
  }
}

/** Redis's own time per call of a command since the last CONFIG RESETSTAT (INFO commandstats). */
async function usecPerCall(command: string): Promise<string> {
  const m = new RegExp(`cmdstat_${command}:.*usec_per_call=([\\d.]+)`).exec(await redis.info('commandstats'));
  return m ? Number(m[1]).toFixed(0) : '?';
}

async function usedMemory(): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

async function peakMemory(): Promise<number> {
  return Number(/used_memory_peak:(\d+)/.exec(await redis.info('memory'))![1]);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - t0) / 1000 };
}

const count = (n: number) => n.toLocaleString('en-US');
const secs = (s: number) => `${s.toFixed(2)} s`;
const rate = (n: number, s: number) => `${count(Math.round(n / s))}/s`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const drift = (r: { total: { missing: number; extra: number; different: number } }) =>
  `${r.total.missing}/${r.total.extra}/${r.total.different} (missing/extra/different)`;

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
await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 4);
const server = await startRedisServer();
const redis = createRedis(server.url);
const rows: Array<[string, string, string]> = [];
try {
  await pg.sql`truncate seasons cascade`;
  await run();
  console.log(table([['step', 'result', 'note'], ...rows]).join('\n'));
} finally {
  await pg.sql`truncate seasons cascade`;
  redis.disconnect();
  await pg.close();
  await server.stop();
}
