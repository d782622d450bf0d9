// npm run bench:shards -- --players N --reads R --concurrency C
// Rank (entry), around (radius 5) and top (100) reads of one board on the local Redis Cluster,
// against shard count: one key (unsharded), 1, 3 and 6 score-range shards, on the same data
// (N players, points uniform in 0..999, bounds splitting them evenly). Prints reads/s, latency and
// CPU per read of the client (this process) and of the cluster's masters (INFO cpu). Run it under
// `flock /work/bench.lock` on a shared machine. Needs `npm run stack:cluster`.
import type { Board } from '../src/domain/board.js';
import type { Season } from '../src/domain/season.js';
import type { BoardQuery } from '../src/redis/board-reader.js';
import { createBoardReader } from '../src/redis/board-reader.js';
import { createBoardWriter } from '../src/redis/board-writer.js';
import { clusterUrl, createRedis, mastersOf } from '../src/redis/client.js';
import { boardKey, boardVersionsKey } from '../src/redis/keys.js';
import { chooseShardTags, masterSlotRanges } from '../src/redis/shard-placement.js';
import { shardKeys } from '../src/redis/sharded-boards.js';
import { intArg } from './args.js';

const PLAYERS = intArg('players', 200_000);
const READS = intArg('reads', 3_000);
const CONCURRENCY = intArg('concurrency', 16);
const NODES = process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';
const redis = createRedis(clusterUrl(NODES));
const masters = await mastersOf(redis);
const ranges = await masterSlotRanges(redis);

/** Redis CPU seconds used so far by every master. */
async function redisCpu(): Promise<number> {
  let total = 0;
  for (const m of masters) {
    const info = await m.info('cpu');
    total += Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_user:([\d.]+)/.exec(info)![1]);
  }
  return total;
}

const startsAt = new Date(Date.now() - 3_600_000);
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

const layouts: Array<number | null> = [null, 1, 3, 6];
const base = 900_000_000 + Math.floor(Math.random() * 1_000_000);
const rows: string[] = [];
const writer = createBoardWriter(redis, 0);
const reader = createBoardReader(redis);
// The same players and points for every layout.
const points = Array.from({ length: PLAYERS }, (_, i) => (i * 7919) % 1000);
const at = new Date(startsAt.getTime() + 1000);

for (const [i, shards] of layouts.entries()) {
  const s = season(base + i, shards);
  const t0 = Date.now();
  for (let from = 0; from < PLAYERS; from += 5_000) {
    const standings = points.slice(from, from + 5_000).map((p, j) => ({
      seasonId: s.id,
      window: 'SEASON' as const,
      period: '',
      playerId: String(from + j + 1),
      points: p,
      achievedAt: at,
    }));
    await writer.write(standings, () => s, Date.now());
  }
  const seedS = (Date.now() - t0) / 1000;
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
        `${Math.round(((cpu.user + cpu.system) / READS) * 1) / 1} | ${Math.round((redisS / READS) * 1e6)} | ${seedS.toFixed(1)} |`,
    );
  }
  // Free the board (UNLINK each key: they live in different slots).
  const keys = s.shards
    ? shardKeys(s as Season & { shards: NonNullable<Season['shards']> }, 'SEASON', '')
    : [boardKey(s.id, 'SEASON', '')];
  for (const k of [...keys, boardVersionsKey(s.id)]) await redis.unlink(k);
}

console.log(`\n${PLAYERS} players, ${READS} reads per row, ${CONCURRENCY} in flight, ${masters.length} masters\n`);
console.log('| shards | read | reads/s | p50 ms | p99 ms | client CPU µs/read | Redis CPU µs/read | seed s |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
redis.disconnect();
