// bench:history — is ingest on day 30 as fast as on day 1? (docs/design.md#storage)
//
//   npm run bench:history                                  # 100M rows of history, 300,000 results a run
//   npm run bench:history -- --history 20000000 --results 100000 --memory-mb 512
//   BENCH_DATA_DIR=/var/tmp/ladder-history npm run bench:history   # keep the loaded cluster; reuse it next time
//
// PostgreSQL here is a private cluster this bench starts (bench/private-postgres.ts) inside a
// memory cgroup of --memory-mb (default 1 GiB, page cache included) with shared_buffers 128 MB,
// so a history whose indexes are larger than that really lives on disk. In the same run:
//   1. day 1: ingest through Kafka (ladder's consumer, this process) into an empty database;
//   2. --history rows loaded into one season's 29 past days (29 day partitions, indexes built as
//      ingest builds them), then VACUUM ANALYZE, as autovacuum would have run over those days;
//   3. day 30, three runs interleaved: the season with the history, a fresh season beside it,
//      the season with the history again; each the same traffic (new match ids), ending today;
//   4. removing one player's results, and blocking a player, in the season with the history.
// Every run produces its results to a fresh topic first, then times the consumer from start to
// "group committed every offset" (bench/kafka-e2e.ts). Redis and Kafka are the shared ones; the
// bench touches only its own seasons' keys (ids from 1.5e9) and its own topics and groups.
// Numbers are printed, never asserted.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { ensureDatabase } from '../scripts/ensure-database.js';
import { createPlayerAdmin } from '../src/app/player-admin.js';
import { parseConfig } from '../src/config.js';
import type { Season } from '../src/domain/season.js';
import { createKafka } from '../src/kafka/client.js';
import { createLogger } from '../src/logger.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createSeasonsRepo } from '../src/postgres/seasons-repo.js';
import { createRedis } from '../src/redis/client.js';
import { intArg } from './args.js';
import { storedResults, unlinkSeason } from './checks.js';
import { generate, toMessages, withMatchTag } from './generate.js';
import { consumeAll, deleteKafkaState, produceAll } from './kafka-e2e.js';
import { memoryCgroupUsage, startPrivatePostgres } from './private-postgres.js';
import { createBenchSeason } from './season.js';

const arg = (name: string, fallback: number) =>
  intArg(name, fallback, process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`]);
const RESULTS = arg('results', 300_000);
const PLAYERS = arg('players', 100_000);
const HISTORY = arg('history', 100_000_000);
const HISTORY_PLAYERS = arg('history-players', 10_000_000);
const HISTORY_DAYS = 29;
const MEMORY_MB = arg('memory-mb', 1024);
const PARTITIONS = arg('partitions', 6);
const PORT = arg('port', 55433);
const DATA_DIR = process.env.BENCH_DATA_DIR;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KAFKA_BROKERS = process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092';
const FIRST_SEASON_ID = 1_500_000_000;
const DAY = 86_400_000;
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const server = await startPrivatePostgres({
  port: PORT,
  memoryLimitBytes: MEMORY_MB * 2 ** 20,
  sharedBuffers: '128MB',
  dataDir: DATA_DIR,
  keep: DATA_DIR !== undefined,
  // The load writes each day partition in the transaction that creates it: with wal_level
  // minimal that skips the WAL (100M rows of WAL would be most of the load's time). Ingest's own
  // writes are logged as usual.
  settings: { wal_level: 'minimal', max_wal_senders: '0' },
});
const DATABASE_URL = server.url.replace(/\/postgres$/, '/ladder_history');
const runId = randomUUID().slice(0, 8);
const logger = createLogger('warn');
const kafka = createKafka({ brokers: [KAFKA_BROKERS], clientId: 'ladder-bench', logger });
await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 4);
const redis = createRedis(REDIS_URL);
const seasons: Season[] = [];
const topics: Array<{ topic: string; group: string }> = [];

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;

async function createSeason(name: string, startsAt: Date): Promise<Season> {
  const season = await createBenchSeason(pg.db, name, startsAt);
  seasons.push(season);
  return season;
}

const today = Math.floor(Date.now() / DAY) * DAY;
// Today's traffic, the same shape in every run: RESULTS results of PLAYERS players, ending
// between midnight and a minute ago (all in today's partition).
const traffic = generate({
  count: RESULTS,
  players: PLAYERS,
  seed: 20_261_204,
  maxPoints: 60,
  fromMs: today,
  toMs: Math.max(today + 60_000, Date.now() - 60_000),
});

interface Run {
  label: string;
  seconds: number;
  nodeCpu: number;
  pgCpu: number;
}

/** Produces today's traffic for `season` to a fresh topic, then times ladder's consumer draining it. */
async function ingestRun(label: string, season: Season, tag: number): Promise<Run> {
  const topic = `bench-history-${runId}-${tag}`;
  const group = `bench-history-${runId}-${tag}`;
  topics.push({ topic, group });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: PARTITIONS }] });
  await admin.disconnect();
  await produceAll(kafka, topic, toMessages(withMatchTag(traffic, tag), season.id));
  await pg.sql`checkpoint`;
  const config = parseConfig({
    DATABASE_URL,
    REDIS_URL,
    KAFKA_BROKERS,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: group,
    KAFKA_CLIENT_ID: 'ladder-bench',
    KAFKA_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: 'warn',
    // Other suites sharing this Redis may flush it; a restore of the boards is not what is measured.
    BOARD_RESTORE_INTERVAL_MS: '0',
  });
  const report = await consumeAll(kafka, config, logger, { database: 'ladder_history', redisPort: '0' }, 30 * 60_000);
  // PostgreSQL's share: the backends of ladder_history (and the clusters' background processes).
  const pgCpu = report.cpu.pg;
  const stored = await storedResults(pg.sql, season.id);
  if (stored < RESULTS) throw new Error(`${label}: ${stored} of ${RESULTS} results stored`);
  const run = { label, seconds: report.seconds, nodeCpu: report.cpu.node, pgCpu };
  console.log(`  ${label}: ${fmt(RESULTS / run.seconds)} results/s`);
  return run;
}

/** HISTORY rows in `season`'s 29 days before today, each day in one transaction that creates its partition. */
async function loadHistory(season: Season): Promise<void> {
  const perDay = Math.floor(HISTORY / HISTORY_DAYS);
  const t0 = performance.now();
  let next = 0;
  // Two days at a time, one per core.
  const worker = async () => {
    while (next < HISTORY_DAYS) {
      const d = next++;
      const day = new Date(today - (HISTORY_DAYS - d) * DAY).toISOString().slice(0, 10);
      await pg.sql.begin(async (tx) => {
        await tx`select ladder_results_partition(${season.id}, ${day}::date)`;
        // Time-ordered within the day as ingest writes it; matches of 5, random players.
        await tx`insert into match_results (season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset)
          select ${season.id}, ${day}::date + (i * (86400.0 / ${perDay})) * interval '1 second',
                 md5(${day} || (i / 5)::text)::uuid, 1 + floor(random() * ${HISTORY_PLAYERS})::int8,
                 floor(random() * 61)::int, 0, i
          from generate_series(0, ${perDay - 1}) i`;
      });
      process.stdout.write(`\r  history: ${d + 1}/${HISTORY_DAYS} days, ${fmt((performance.now() - t0) / 1000)} s   `);
    }
  };
  await Promise.all([worker(), worker()]);
  console.log(`\n  loaded ${fmt(perDay * HISTORY_DAYS)} rows in ${fmt((performance.now() - t0) / 1000)} s`);
  const v0 = performance.now();
  await pg.sql.unsafe(`vacuum (analyze) match_results_s${season.id}`);
  console.log(`  vacuum analyze: ${fmt((performance.now() - v0) / 1000)} s`);
  await pg.sql`insert into bench_history values (${season.id}, ${perDay * HISTORY_DAYS})`;
}

/** Heap and index bytes of a season's partitions. */
async function sizes(seasonId: number) {
  const [row] = await pg.sql<[{ heap: string; pk: string; player: string; rows: string }]>`
    select sum(pg_relation_size(c.oid))::int8 as heap,
           sum(pg_relation_size(pk.indexrelid))::int8 as pk,
           sum(pg_relation_size(pi.indexrelid))::int8 as player,
           sum(c.reltuples)::int8 as rows
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    join pg_index pk on pk.indrelid = c.oid and pk.indisprimary
    join pg_index pi on pi.indrelid = c.oid and not pi.indisprimary
    where i.inhparent = to_regclass(${`match_results_s${seasonId}`})`;
  return { heap: Number(row.heap), pk: Number(row.pk), player: Number(row.player), rows: Number(row.rows) };
}

/** Wall time of removing a player's results (and of blocking one) in the season with the history. */
async function adminTimes(season: Season) {
  const admin = createPlayerAdmin({
    sql: pg.sql,
    redis,
    seasonById: async (id) => seasons.find((s) => s.id === id),
    windowTtlSeconds: 90 * 24 * 3600,
    blockedPlayersCacheMs: 1_000,
    logger,
  });
  const out: Array<[string, number, string]> = [];
  try {
    for (const [label, playerId, block] of [
      ['remove one player’s results', '4242', false],
      ['remove and block', '777777', true],
      ['remove one player’s results', '9999001', false],
    ] as const) {
      const t0 = performance.now();
      const r = await admin.remove({ seasonId: season.id, playerId, reason: 'bench', block, actor: 'bench' });
      const days = r.boards.filter((b) => b.window === 'DAY').length;
      out.push([label, performance.now() - t0, `${r.removedResults} results over ${days} days`]);
    }
    const t0 = performance.now();
    await admin.block({ seasonId: season.id, playerId: '31337', reason: 'bench', actor: 'bench' });
    out.push(['block a player', performance.now() - t0, '']);
  } finally {
    admin.stop();
  }
  return out;
}

try {
  await pg.sql`select setval(pg_get_serial_sequence('seasons', 'id'), greatest(${FIRST_SEASON_ID}, (select coalesce(max(id), 0) from seasons)))`;
  // A history an earlier run with the same BENCH_DATA_DIR loaded.
  await pg.sql`create table if not exists bench_history (season_id int primary key, rows int8)`;
  const [loaded] = await pg.sql<{ season_id: number; rows: string }[]>`select season_id, rows from bench_history`;
  const load0 = os.loadavg()[0]!;
  console.log(
    `bench:history: ${fmt(RESULTS)} results a run, ${fmt(PLAYERS)} players, history ${fmt(HISTORY)} rows; PostgreSQL in ${MEMORY_MB} MiB (shared_buffers 128 MB)`,
  );
  const runs: Run[] = [];
  let history: Season;
  if (loaded) {
    history = (await createSeasonsRepo(pg.db).get(loaded.season_id))!;
    seasons.push(history);
    console.log(
      `  reusing ${server.dataDir}: season ${history.id} with ${fmt(Number(loaded.rows))} rows of history (no day-1 run: the database is not empty)`,
    );
  } else {
    runs.push(await ingestRun('day 1: empty database', await createSeason('day 1', new Date(today - 10 * DAY)), 1));
    history = await createSeason('history', new Date(today - 30 * DAY));
    await loadHistory(history);
  }
  const size = await sizes(history.id);
  const usage = memoryCgroupUsage(server);
  runs.push(await ingestRun('day 30: season with the history', history, 2));
  runs.push(
    await ingestRun('day 30: fresh season, same database', await createSeason('fresh', new Date(today - 10 * DAY)), 3),
  );
  runs.push(await ingestRun('day 30: season with the history, again', history, 4));
  const admin = await adminTimes(history);

  const base = runs[0]!;
  console.log(`\nIngest through Kafka, ${fmt(RESULTS)} results a run (load average at start ${load0.toFixed(1)}):\n`);
  console.log('| run | results/s | vs day 1 | ingest CPU µs/result | PostgreSQL CPU µs/result |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of runs) {
    const ratio = loaded ? '' : `${(base.seconds / r.seconds).toFixed(2)}x`;
    console.log(
      `| ${r.label} | ${fmt(RESULTS / r.seconds)} | ${ratio} | ${fmt((r.nodeCpu / RESULTS) * 1e6)} | ${fmt((r.pgCpu / RESULTS) * 1e6)} |`,
    );
  }
  console.log(
    `\nThe history: ${fmt(size.rows)} rows in ${HISTORY_DAYS} day partitions; heap ${mib(size.heap)}, primary key ${mib(size.pk)}, player index ${mib(size.player)}`,
  );
  console.log(
    `  ${fmt(size.heap / size.rows, 1)} + ${fmt(size.pk / size.rows, 1)} + ${fmt(size.player / size.rows, 1)} bytes per row (heap + key + player index)`,
  );
  if (usage)
    console.log(
      `  PostgreSQL's memory cgroup: ${mib(usage.usageBytes)} in use of ${mib(usage.limitBytes)} before day 30`,
    );
  console.log('\nAdministration in the season with the history:\n');
  console.log('| operation | ms | what |');
  console.log('| --- | ---: | --- |');
  for (const [label, ms, what] of admin) console.log(`| ${label} | ${fmt(ms)} | ${what} |`);
} finally {
  for (const s of seasons) await unlinkSeason(redis, s.id);
  for (const { topic, group } of topics)
    for (const p of await deleteKafkaState(kafka, [topic], group)) console.error(`cleanup: ${p}`);
  redis.disconnect();
  await pg.close();
  await server.stop();
}
