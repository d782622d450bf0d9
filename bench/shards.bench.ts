// npm run bench:shards -- --players N --reads R --concurrency C [--layouts one,1,3,6] [--base ID]
//                          [--keep] [--skip-load] [--pipelined]
// Rank (entry), around (radius 5) and top (100) reads of one board on the local Redis Cluster,
// against shard count: one key (unsharded), 1, 3 and 6 score-range shards, on the same data
// (N players, points uniform in 0..999, bounds splitting them evenly). The board is loaded
// directly (ZADD pages of 10,000, pipelined; then the kept shard sizes are counted), not through
// ingest. Prints the load time, used_memory per master and bytes per member, then reads/s,
// latency and CPU per read of the client (this process) and of the cluster's masters (INFO cpu).
// A large season in two steps: `--base ID --keep` loads and leaves the board, then
// `--base ID --skip-load` reads it (and frees it without --keep). Run it under
// `flock /work/bench.lock` on a shared machine. Needs `npm run stack:cluster`.
import type { Board } from '../src/domain/board.js';
import type { Season } from '../src/domain/season.js';
import type { BoardQuery } from '../src/service/leaderboard-reads.js';
import { createBoardReader } from '../src/redis/board-reader.js';
import { clusterUrl } from '../src/config.js';
import { createRedis, mastersOf } from '../src/redis/client.js';
import { boardKey, boardVersionsKey } from '../src/redis/keys.js';
import { seasonBoard } from '../src/domain/board.js';
import { chooseShardTags, masterSlotRanges } from '../src/redis/shard-placement.js';
import { codecOf } from '../src/domain/score-codec.js';
import { shardLowers, shardOf } from '../src/domain/shards.js';
import { recountShardSizes } from '../src/redis/shard-mover.js';
import { keptSizes, shardKeys, type Sharded } from '../src/redis/sharded-boards.js';
import { intArg, stringArg } from './args.js';

const PLAYERS = intArg('players', 200_000);
const READS = intArg('reads', 3_000);
const CONCURRENCY = intArg('concurrency', 16);
const LAYOUTS = (stringArg('layouts') ?? 'one,1,3,6').split(',').map((l) => (l === 'one' ? null : Number(l)));
const KEEP = process.argv.includes('--keep');
const SKIP_LOAD = process.argv.includes('--skip-load');
// --pipelined: read as the API does (src/app/api.ts), on a connection with auto-pipelining, so a
// read's calls to the shards of one master leave in one write.
const PIPELINED = process.argv.includes('--pipelined');
const NODES = process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';
const redis = createRedis(clusterUrl(NODES));
const masters = await mastersOf(redis);
const ranges = await masterSlotRanges(redis);

/** used_memory of each master, bytes. */
async function usedMemory(): Promise<number[]> {
  return Promise.all(masters.map(async (m) => Number(/used_memory:(\d+)/.exec(await m.info('memory'))![1])));
}

/** Redis CPU seconds used so far by every master. */
async function redisCpu(): Promise<number> {
  let total = 0;
  for (const m of masters) {
    const info = await m.info('cpu');
    total += Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_user:([\d.]+)/.exec(info)![1]);
  }
  return total;
}

// A fixed start: a board kept by one run (--keep) is read by the next with the same scores.
const startsAt = new Date('2026-01-01T00:00:00Z');
function season(id: number, shards: number | null): Season {
  const bounds =
    shards === null ? [] : Array.from({ length: shards - 1 }, (_, k) => Math.round(((k + 1) * 1000) / shards));
  return {
    id,
    name: `bench ${shards ?? 'one key'}`,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 24 * 3_600_000),
    status: 'ACTIVE',
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 1000,
    split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 },
    shards: shards === null ? null : { bounds, tags: chooseShardTags(id, shards, ranges) },
  };
}

const base = intArg('base', 900_000_000 + Math.floor(Math.random() * 1_000_000));
const rows: string[] = [];
const loads: string[] = [];
const readConnection = PIPELINED ? redis.duplicate({ enableAutoPipelining: true }) : redis;
const reader = createBoardReader(readConnection);
// The same players and points for every layout: player i has (i * 7919) % 1000 points.
const at = new Date(startsAt.getTime() + 1000);
const PAGE = 10_000;
const IN_FLIGHT = 8;

/** ZADDs every player onto the board's key or the shard of its score, PAGE members a call, IN_FLIGHT calls at once. */
async function load(s: Season): Promise<void> {
  const codec = codecOf(s);
  const scoreOf = Array.from({ length: 1000 }, (_, p) => codec.encode(p, at));
  const sharded = s.shards ? (s as Sharded) : null;
  const keys = sharded ? shardKeys(seasonBoard(sharded)) : [boardKey(seasonBoard(s))];
  const lowers = sharded ? shardLowers(sharded) : [];
  const shardOfPoints = scoreOf.map((score) => (sharded ? shardOf(lowers, score) : 0));
  const redisScore = scoreOf.map((score) => codec.toRedis(score));
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let from = next; from < PLAYERS; from = next) {
        next += PAGE;
        const args = keys.map((): string[] => []);
        for (let i = from; i < Math.min(from + PAGE, PLAYERS); i++) {
          const p = (i * 7919) % 1000;
          args[shardOfPoints[p]!]!.push(redisScore[p]!, String(i + 1));
        }
        await Promise.all(args.flatMap((a, k) => (a.length > 0 ? [redis.zadd(keys[k]!, ...a)] : [])));
      }
    }),
  );
  if (sharded) await recountShardSizes(redis, sharded, keptSizes(seasonBoard(sharded), 0));
}

for (const [i, shards] of LAYOUTS.entries()) {
  const s = season(base + i, shards);
  const t0 = Date.now();
  const before = await usedMemory();
  if (!SKIP_LOAD) await load(s);
  const seedS = (Date.now() - t0) / 1000;
  const after = await usedMemory();
  const grown = after.map((m, j) => m - before[j]!);
  if (!SKIP_LOAD) {
    loads.push(
      `| ${shards ?? 'one key'} | ${PLAYERS} | ${seedS.toFixed(1)} | ${Math.round(PLAYERS / seedS)} | ` +
        `${grown.map((g) => (g / 2 ** 20).toFixed(0)).join(' / ')} | ` +
        `${(grown.reduce((a, g) => a + g, 0) / PLAYERS).toFixed(1)} |`,
    );
  }
  const board: Board = { season: s, window: 'SEASON', period: '' };
  const queries: Array<[string, () => BoardQuery]> = [
    ['rank', () => ({ top: 0, pages: [], playerIds: [String(1 + Math.floor(Math.random() * PLAYERS))], arounds: [] })],
    [
      'around',
      () => ({
        top: 0,
        pages: [],
        playerIds: [],
        arounds: [{ playerId: String(1 + Math.floor(Math.random() * PLAYERS)), radius: 5 }],
      }),
    ],
    ['top', () => ({ top: 100, pages: [], playerIds: [], arounds: [] })],
  ];
  for (const [name, query] of queries) {
    const latencies: number[] = [];
    const cpu0 = process.cpuUsage();
    const redis0 = await redisCpu();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < READS) {
          const t = performance.now();
          await reader.read(board, query());
          latencies.push(performance.now() - t);
        }
      }),
    );
    const wall = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const redisS = (await redisCpu()) - redis0;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
    rows.push(
      `| ${shards ?? 'one key'} | ${name} | ${Math.round(READS / wall)} | ${q(0.5)} | ${q(0.99)} | ` +
        `${Math.round((cpu.user + cpu.system) / READS)} | ${Math.round((redisS / READS) * 1e6)} |`,
    );
  }
  if (KEEP) continue;
  // Free the board (UNLINK each key: they live in different slots).
  const keys = s.shards
    ? shardKeys(seasonBoard(s as Season & { shards: NonNullable<Season['shards']> }))
    : [boardKey(seasonBoard(s))];
  for (const k of [...keys, boardVersionsKey(s.id)]) await redis.unlink(k);
}

console.log(`\n${PLAYERS} players, ${READS} reads per row, ${CONCURRENCY} in flight, ${masters.length} masters`);
if (PIPELINED) console.log('reads on an auto-pipelining connection (as the API reads)');
console.log(`seasons ${base}..${base + LAYOUTS.length - 1}${KEEP ? ' kept' : ''}\n`);
if (loads.length > 0) {
  console.log('| shards | players | load s | members/s | used_memory grown per master MiB | B/member |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const l of loads) console.log(l);
  console.log(
    `\nused_memory now per master MiB: ${(await usedMemory()).map((m) => (m / 2 ** 20).toFixed(0)).join(' / ')}\n`,
  );
}
console.log('| shards | read | reads/s | p50 ms | p99 ms | client CPU µs/read | Redis CPU µs/read |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
redis.disconnect();
if (PIPELINED) readConnection.disconnect();
