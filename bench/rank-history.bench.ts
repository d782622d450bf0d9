// bench:rank-history — what rank history costs (docs/design.md#rank-history).
//
//   npm run bench:rank-history
//   npm run bench:rank-history -- --players 1000000 --snapshots 10 --big 10000000 --rate 2000
//
// In one run, on the shared PostgreSQL (database ladder_bench), Redis and Kafka:
//   1. Storage: --players on a SEASON board, --snapshots daily snapshots (a twentieth of the
//      players improve between two), bytes per player per snapshot; beside it, the same run's
//      baseline: one snapshot stored the plain way, a row (season, boundary, player, rank) per
//      player with its primary key. Then Entry.rankHistory's query: one player, and 100 at once.
//   2. A snapshot of --big players while ladder's ingest (a separate process, src/main.ts) takes
//      --rate results/s on another season through Kafka: how long the scheduler's slot pass takes
//      to slot them all, then the day's snapshot and the next day's, and ingest freshness before,
//      during and after them (bench/freshness.ts), CPU beside.
// The standings are written with SQL (what ingest would have left); the bench's seasons and rank
// history are deleted at the end. Numbers are printed, never asserted.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { ensureDatabase } from '../scripts/ensure-database.js';
import { parseConfig } from '../src/config.js';
import { seasonBoard } from '../src/domain/board.js';
import type { Season } from '../src/domain/season.js';
import { createKafka } from '../src/kafka/client.js';
import { createLogger } from '../src/logger.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createHistoryArchive } from '../src/postgres/history-archive.js';
import { createRankSnapshots } from '../src/postgres/rank-snapshots.js';
import { rankedStandings } from '../src/postgres/ranked-standings.js';
import { createRedis } from '../src/redis/client.js';
import { intArg } from './args.js';
import { unlinkSeason } from './checks.js';
import { cpuDelta, sampleCpu, sampleTree, treeSeconds, type CpuTargets } from './cpu.js';
import { deleteKafkaState } from './kafka-e2e.js';
import { printFreshness, quantile, startIngestProcesses, startLoad } from './freshness.js';
import { createBenchSeason } from './season.js';

const arg = (name: string, fallback: number) =>
  intArg(name, fallback, process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`]);
const PLAYERS = arg('players', 1_000_000);
const SNAPSHOTS = arg('snapshots', 10);
const BIG = arg('big', 10_000_000);
const RATE = arg('rate', 2_000);
const PHASE_SECONDS = arg('phase-seconds', 20);
const DAY = 86_400_000;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_bench';
const DATABASE = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1));
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CPU_TARGETS: CpuTargets = { database: DATABASE, redisPort: new URL(REDIS_URL).port || '6379' };
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const runId = randomUUID().slice(0, 8);
const topic = `bench-rank-${runId}`;
const env = {
  DATABASE_URL,
  REDIS_URL,
  KAFKA_BROKERS: process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092',
  KAFKA_TOPIC: topic,
  KAFKA_GROUP_ID: topic,
  KAFKA_PARTITIONS: '6',
  WINDOW_TTL_SECONDS: String(90 * 24 * 3600),
  LADDER_ROLES: 'ingest',
  SEASON_SCHEDULER_INTERVAL_MS: '0',
  LOG_LEVEL: 'warn',
};
const config = parseConfig(env);
await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 4);
const redis = createRedis(REDIS_URL);
const kafka = createKafka({ brokers: config.kafka.brokers, clientId: 'ladder-bench', logger: createLogger('warn') });
const snapshots = createRankSnapshots(pg.sql);
const archive = createHistoryArchive(pg.sql);
const seasons: Season[] = [];
const children: ChildProcess[] = [];
const ms = (t0: number) => performance.now() - t0;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The id of the season's `p`th player: a permutation (Lehmer), so ids arrive in no order, as in life. */
const playerId = (p: number) => String((p * 48_271) % 2_147_483_647);

/** Standings of `n` players on the season's SEASON board, written in batches of a million. */
async function seedStandings(season: Season, n: number): Promise<void> {
  const t0 = performance.now();
  for (let from = 1; from <= n; from += 1_000_000) {
    const to = Math.min(n, from + 999_999);
    await pg.sql`insert into standings (season_id, "window", period, player_id, points, achieved_at)
      select ${season.id}, 'SEASON', '', (p * 48271) % 2147483647, (p * 7919) % 100000,
             ${season.startsAt.toISOString()}::timestamptz + ((p * 31) % 86400) * interval '1 second'
      from generate_series(${from}::int8, ${to}::int8) p`;
  }
  await pg.sql`analyze standings`;
  console.log(`seeded ${n.toLocaleString('en')} standings in ${(ms(t0) / 1000).toFixed(1)} s`);
}

/** Bytes of a table with its TOAST and indexes. */
async function tableBytes(table: string): Promise<number> {
  const [r] = await pg.sql<[{ n: string }]>`select pg_total_relation_size(${table}::regclass) as n`;
  return Number(r.n);
}

async function storage(): Promise<void> {
  const season = await createBenchSeason(pg.db, `bench rank storage ${runId}`);
  seasons.push(season);
  await seedStandings(season, PLAYERS);
  const before = { snapshots: await tableBytes('rank_snapshots'), slots: await tableBytes('rank_slots') };
  const times: number[] = [];
  for (let d = 1; d <= SNAPSHOTS; d++) {
    if (d > 1)
      await pg.sql`update standings set points = points + 1000 + ${d}
        where season_id = ${season.id} and "window" = 'SEASON' and period = '' and points % 20 = ${d % 20}`;
    const t0 = performance.now();
    await snapshots.take(season, new Date(season.startsAt.getTime() + d * DAY));
    times.push(ms(t0));
  }
  const after = { snapshots: await tableBytes('rank_snapshots'), slots: await tableBytes('rank_slots') };
  const snapBytes = after.snapshots - before.snapshots;
  const slotBytes = after.slots - before.slots;

  // The same run's baseline: one snapshot as a row per player.
  const t0 = performance.now();
  await pg.sql`create temp table plain_ranks (season_id int4, boundary timestamptz, player_id int8, rank int4,
    primary key (season_id, player_id, boundary))`;
  await pg.sql`insert into plain_ranks select ${season.id}, now(), r.player_id, r.rank
    from (${rankedStandings(pg.sql, seasonBoard(season))}) r`;
  const plainMs = ms(t0);
  const plain = await tableBytes('plain_ranks');
  await pg.sql`drop table plain_ranks`;

  const per = (bytes: number, snaps: number) => (bytes / PLAYERS / snaps).toFixed(2);
  console.log(`\n1. storage: ${PLAYERS.toLocaleString('en')} players, ${SNAPSHOTS} daily snapshots`);
  console.log('layout                               | bytes on disk | B/player/snapshot | ms a snapshot (p50 / max)');
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `ladder: ranks by slot (4 B, TOAST)    | ${mib(snapBytes).padStart(13)} | ${per(snapBytes, SNAPSHOTS).padStart(17)} | ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} / ${sorted.at(-1)!.toFixed(0)}`,
  );
  console.log(
    `ladder: + slot map (once a season)    | ${mib(snapBytes + slotBytes).padStart(13)} | ${per(snapBytes + slotBytes, SNAPSHOTS).padStart(17)} | (slot map ${(slotBytes / PLAYERS).toFixed(1)} B/player)`,
  );
  console.log(
    `baseline: a row per player, with key  | ${mib(plain).padStart(13)} | ${per(plain, 1).padStart(17)} | ${plainMs.toFixed(0)}`,
  );

  // Entry.rankHistory(last: 30)'s query, warm.
  const one: number[] = [];
  const hundred: number[] = [];
  for (let i = 0; i < 200; i++) {
    const id = playerId(1 + ((i * 104_729) % PLAYERS));
    let t = performance.now();
    await snapshots.history(season.id, [id], 30);
    one.push(ms(t));
    const ids = Array.from({ length: 100 }, (_, k) => playerId(1 + ((i * 7_919 + k * 1_000_003) % PLAYERS)));
    t = performance.now();
    await snapshots.history(season.id, ids, 30);
    hundred.push(ms(t));
  }
  const q = (list: number[], p: number) =>
    quantile(
      list.map((v) => [v, 1]),
      p,
    ).toFixed(2);
  console.log(
    `rankHistory(last: 30) query: 1 player p50 ${q(one, 0.5)} / p99 ${q(one, 0.99)} ms; 100 players p50 ${q(hundred, 0.5)} / p99 ${q(hundred, 0.99)} ms`,
  );
}

async function bigSnapshotUnderIngest(): Promise<void> {
  const big = await createBenchSeason(pg.db, `bench rank big ${runId}`);
  seasons.push(big);
  await seedStandings(big, BIG);
  const live = await createBenchSeason(pg.db, `bench rank ingest ${runId}`);
  seasons.push(live);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
  await admin.disconnect();
  await startIngestProcesses(kafka, env, 1, children);
  const tree0 = sampleTree(children[0]!.pid!);

  let phase = 'before';
  let stopAt: number | undefined = undefined; // set when production stops
  const load = await startLoad({
    kafka,
    topic,
    partitions: 6,
    seasonId: live.id,
    players: 1_000_000,
    dueBy: (t) => Math.floor(((stopAt ?? t) * RATE) / 1000),
    phaseAt: () => phase,
  });
  let polling = true;
  const polls = (async () => {
    while (polling) await load.poll();
  })();
  await new Promise((r) => setTimeout(r, PHASE_SECONDS * 1000));
  phase = 'during the snapshots';
  const cpu0 = sampleCpu(CPU_TARGETS);
  const node0 = process.cpuUsage();
  const t0 = performance.now();
  // The scheduler's slot pass first (every player is new here: the worst case, one pass for a
  // whole board), then the day's snapshot, then the next day's (no newcomer either way).
  const slotted = await snapshots.assignSlots(big);
  const tookSlots = ms(t0);
  const t1 = performance.now();
  const report = await snapshots.take(big, new Date(big.startsAt.getTime() + DAY));
  const took = ms(t1);
  const t2 = performance.now();
  await snapshots.take(big, new Date(big.startsAt.getTime() + 2 * DAY));
  const tookNext = ms(t2);
  const cpu = cpuDelta(cpu0, sampleCpu(CPU_TARGETS));
  const node = process.cpuUsage(node0);
  phase = 'after';
  await new Promise((r) => setTimeout(r, PHASE_SECONDS * 1000));
  // Production stops; every result produced is waited for, so none is left out of its phase.
  stopAt = load.elapsed();
  polling = false;
  await polls;
  for (let lag = Infinity; lag > 0;) lag = await load.poll();
  await load.stop();
  const ingestCpu = treeSeconds(tree0, sampleTree(children[0]!.pid!));

  console.log(
    `\n2. while ingest takes ${RATE} results/s: the slot pass gives ${slotted.toLocaleString('en')} slots in ${(tookSlots / 1000).toFixed(1)} s; ` +
      `a snapshot of ${report.players.toLocaleString('en')} players (${report.chunks} chunks, ${report.newSlots.toLocaleString('en')} new slots) ` +
      `${(took / 1000).toFixed(1)} s; the next day's ${(tookNext / 1000).toFixed(1)} s`,
  );
  console.log(
    `   CPU s during the three: pg ${cpu.pg.toFixed(1)}, bench process (the producer; the snapshot is SQL) ${((node.user + node.system) / 1e6).toFixed(1)}, ` +
      `redis ${cpu.redis.toFixed(1)}, kafka ${cpu.kafka.toFixed(1)}, other ${cpu.other.toFixed(1)}; ingest process over the whole run ${ingestCpu.toFixed(1)} ` +
      `(${((ingestCpu * 1e6) / load.produced()).toFixed(0)} µs/result)`,
  );
  printFreshness(load.samples, ['before', 'during the snapshots', 'after'], 'phase (by production time)');
}

try {
  const load0 = os.loadavg();
  await pg.sql`select setval(pg_get_serial_sequence('seasons', 'id'), greatest(1000000000::int8, (select coalesce(max(id), 0) from seasons)))`;
  await storage();
  await bigSnapshotUnderIngest();
  console.log(
    `machine: nproc ${os.availableParallelism()}, loadavg(1m) ${load0[0]!.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`,
  );
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())),
  );
  for (const s of seasons) {
    await archive.dropRankHistory(s.id);
    await pg.sql`delete from standings where season_id = ${s.id}`;
    await unlinkSeason(redis, s.id);
  }
  // 10M deleted rows left to autovacuum would slow the next run's scans (each run's first
  // snapshots took 3-10x longer after the one before).
  await pg.sql`vacuum (analyze) standings, rank_slots, rank_snapshots`;
  for (const p of await deleteKafkaState(kafka, [topic, `${topic}.dlq`], topic)) console.error(`cleanup: ${p}`);
  redis.disconnect();
  await pg.close();
}
