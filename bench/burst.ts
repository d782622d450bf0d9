// `npm run bench:burst`: a burst on top of the average load, as the seeds describe events. This
// process produces match results at 2,000/s, then 20,000/s for 60 s, then 2,000/s again until the
// lag has drained (and 15 s more); ladder's ingest runs as separate processes (src/main.ts with
// LADDER_ROLES=ingest, one consumer group). Freshness is measured from outside (bench/freshness.ts).
// Options: --base 2000 --burst 20000 --burst-seconds 60
// --warm-seconds 20 --players 1000000 --ingest-processes 1 --partitions 6.
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { ensureDatabase } from '../scripts/ensure-database.js';
import { parseConfig } from '../src/config.js';
import { createKafka } from '../src/kafka/client.js';
import { createLogger } from '../src/logger.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createRedis } from '../src/redis/client.js';
import { createBenchSeason } from './season.js';
import { unlinkSeason } from './checks.js';
import { cpuDelta, sampleCpu, sampleTree, treeSeconds, type CpuTargets } from './cpu.js';
import { intArg } from './args.js';
import { printFreshness, startIngestProcesses, startLoad } from './freshness.js';
import { deleteKafkaState } from './kafka-e2e.js';

const BASE = intArg('base', 2_000);
const BURST = intArg('burst', 20_000);
const BURST_SECONDS = intArg('burst-seconds', 60);
const WARM_SECONDS = intArg('warm-seconds', 20);
const PLAYERS = intArg('players', 1_000_000);
const PROCESSES = intArg('ingest-processes', 1);
const PARTITIONS = intArg('partitions', 6);
const MAX_SECONDS = 900;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_bench';
const DATABASE = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1));
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KAFKA_BROKERS = process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092';
const CPU_TARGETS: CpuTargets = { database: DATABASE, redisPort: new URL(REDIS_URL).port || '6379' };
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const runId = randomUUID().slice(0, 8);
const topic = `bench-burst-${runId}`;
const env = {
  DATABASE_URL,
  REDIS_URL,
  KAFKA_BROKERS,
  KAFKA_TOPIC: topic,
  KAFKA_GROUP_ID: topic,
  KAFKA_PARTITIONS: String(PARTITIONS),
  WINDOW_TTL_SECONDS: String(90 * 24 * 3600),
  LADDER_ROLES: 'ingest',
  LOG_LEVEL: 'warn',
};
const config = parseConfig(env);
const logger = createLogger('warn');
await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 2);
const redis = createRedis(REDIS_URL);
const kafka = createKafka({ brokers: config.kafka.brokers, clientId: 'ladder-bench', logger });
const children: ChildProcess[] = [];
let seasonId: number | undefined;
try {
  await run();
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())),
  );
  if (seasonId !== undefined) await unlinkSeason(redis, seasonId);
  for (const p of await deleteKafkaState(kafka, [topic, `${topic}.dlq`], topic)) console.error(`cleanup: ${p}`);
  redis.disconnect();
  await pg.close();
}

async function run(): Promise<void> {
  const load0 = os.loadavg();
  await pg.sql`select setval(pg_get_serial_sequence('seasons', 'id'), greatest(1000000000::int8, (select coalesce(max(id), 0) from seasons)))`;
  const season = await createBenchSeason(pg.db, `bench burst ${runId}`);
  seasonId = season.id;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });

  // Ingest first, so the measurement starts with a consumer in the group.
  const trees: ReturnType<typeof sampleTree>[] = [];
  await startIngestProcesses(kafka, env, PROCESSES, children);
  for (const c of children) trees.push(sampleTree(c.pid!));

  let maxLag = 0;
  let drainedAt: number | undefined;
  const cpu0 = sampleCpu(CPU_TARGETS);
  const burstStart = WARM_SECONDS * 1000;
  const burstEnd = burstStart + BURST_SECONDS * 1000;
  // Messages due by `ms` since the start at the phase rates.
  const dueBy = (ms: number) =>
    Math.floor(
      (Math.min(ms, burstStart) * BASE +
        Math.max(0, Math.min(ms, burstEnd) - burstStart) * BURST +
        Math.max(0, ms - burstEnd) * BASE) /
        1000,
    );
  const phaseAt = (ms: number) => (ms < burstStart ? 'before' : ms < burstEnd ? 'burst' : 'after');
  const load = await startLoad({
    kafka,
    topic,
    partitions: PARTITIONS,
    seasonId: season.id,
    players: PLAYERS,
    dueBy,
    phaseAt,
  });

  for (;;) {
    const lag = await load.poll();
    const now = load.elapsed();
    maxLag = Math.max(maxLag, lag);
    if (now > burstEnd && drainedAt === undefined && lag <= BASE) drainedAt = now;
    if (drainedAt !== undefined && now > drainedAt + 15_000) break;
    if (now > MAX_SECONDS * 1000) {
      console.error(`lag not drained after ${MAX_SECONDS} s (${lag} behind)`);
      break;
    }
  }
  await load.stop();
  const produced = load.produced();
  const seconds = load.elapsed() / 1000;
  const cpu = cpuDelta(cpu0, sampleCpu(CPU_TARGETS));
  const ingestCpu = children.reduce((sum, c, i) => sum + treeSeconds(trees[i]!, sampleTree(c.pid!)), 0);
  await admin.disconnect();

  console.log(
    `\nburst: ${BASE}/s for ${WARM_SECONDS} s, ${BURST}/s for ${BURST_SECONDS} s, then ${BASE}/s; ${PLAYERS} players, ` +
      `${PARTITIONS} partitions, ${PROCESSES} ingest process(es); ${produced} results produced in ${seconds.toFixed(0)} s`,
  );
  printFreshness(load.samples, ['before', 'burst', 'after'], 'phase (by production time)');
  const offered = dueBy(burstEnd) - dueBy(burstStart);
  console.log(
    `produced during the burst: ${offered} offered; largest lag ${maxLag} results; ` +
      `lag back under ${BASE} results ${drainedAt === undefined ? 'never' : `${((drainedAt - burstEnd) / 1000).toFixed(1)} s after the burst ended`}`,
  );
  console.log(
    `CPU s: ingest processes ${ingestCpu.toFixed(1)}, bench (producer) ${cpu.node.toFixed(1)}, pg ${cpu.pg.toFixed(1)}, ` +
      `redis ${cpu.redis.toFixed(1)}, kafka ${cpu.kafka.toFixed(1)}, other ${cpu.other.toFixed(1)}; ` +
      `ingest ${((ingestCpu * 1e6) / produced).toFixed(0)} µs/result`,
  );
  console.log(
    `machine: nproc ${os.availableParallelism()}, loadavg(1m) ${load0[0]!.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`,
  );
}
