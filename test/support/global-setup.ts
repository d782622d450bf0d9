// Runs once before the suite: the test database exists and is migrated, Kafka answers, and the
// service is built (`npm run build`): tests run src/ entry points as built (support/process.ts).
// Its teardown, once after the suite, stops the Redis Cluster when the tests started it.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { ensureDatabase } from '../../scripts/ensure-database.js';
import { migrateDatabase } from '../../src/postgres/client.js';
import { TEST_DATABASE_URL, TEST_KAFKA_BROKERS, TEST_MIGRATION_DATABASE_URL, TEST_REDIS_URL } from './env.js';
import { redisClusterRunning, stopRedisCluster } from './redis-cluster.js';

function reachable(hostPort: string): Promise<boolean> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port) });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** The README test's database of a run that may still be going (named for its start, in ms). */
function inUseByAnotherRun(datname: string): boolean {
  const started = /^ladder_readme_(\d+)$/.exec(datname)?.[1];
  return started !== undefined && Date.now() - Number(started) < 3600_000;
}

/**
 * Drops the scratch databases earlier runs left (test/support/faults.ts's privateDatabase, the README
 * test's new database) and makes
 * `migrationUrl`'s anew. Here and never in a test's hooks: DROP DATABASE waits for an immediate
 * checkpoint, which under the whole suite's writes outran the hook timeout in CI.
 */
async function resetScratchDatabases(migrationUrl: string): Promise<void> {
  const name = new URL(migrationUrl).pathname.slice(1);
  const admin = postgres(Object.assign(new URL(migrationUrl), { pathname: '/postgres' }).toString(), {
    max: 1,
    onnotice: () => {},
  });
  try {
    const left = await admin<{ datname: string }[]>`
      select datname from pg_database
      where datname = ${name} or datname like 'ladder\_faults\_%' or datname like 'ladder\_readme\_%'`;
    for (const { datname } of left.filter((d) => !inUseByAnotherRun(d.datname))) {
      await admin.unsafe(`drop database "${datname}" with (force)`);
    }
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}

/**
 * Empties the test Redis database when it holds the boards of another ladder_test than this one
 * (dropped and created again since: a database's OID is new each time). Season ids start again
 * at 1 in a new database, and each new season would find the old one's boards of the same id.
 */
async function pairTestRedis(databaseUrl: string, redisUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const [{ id }] = await sql<[{ id: string }]>`
      select (select system_identifier from pg_control_system())::text || '/' || oid::text as id
      from pg_database where datname = current_database()`;
    await redis.connect();
    const key = 'ladder-test:database';
    if ((await redis.get(key)) !== id) {
      await redis.flushdb();
      await redis.set(key, id);
    }
  } finally {
    redis.disconnect();
    await sql.end();
  }
}

/**
 * Starts the test database anew once earlier runs left it crowded with partitions (a season has
 * one per day, a board one per day too: docs/design.md#boards). A test query that names no season
 * plans every one of them, and past a few thousand PostgreSQL runs out of lock memory. CI's is new.
 */
async function renewIfCrowded(databaseUrl: string, maxPartitions = 4_000): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = postgres(Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString(), {
    max: 1,
    onnotice: () => {},
  });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) return;
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const [{ n }] = await sql<[{ n: number }]>`select count(*)::int as n from pg_inherits`.finally(() => sql.end());
    if (n > maxPartitions) await admin.unsafe(`drop database "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  // Tests start the cluster on first use (redis-cluster.ts); one that ran before them is someone's
  // (`npm run stack:cluster`, the cluster demo) and stays.
  const clusterWasRunning = await redisClusterRunning();
  // Side by side with the checks below; its failure, with tsc's output, is thrown at the end.
  const build = promisify(execFile)('npm', ['run', 'build'], { maxBuffer: 16 * 2 ** 20 }).then(
    () => undefined,
    (err: { stdout?: string; stderr?: string }) =>
      new Error(`npm run build failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`),
  );
  await renewIfCrowded(TEST_DATABASE_URL);
  await ensureDatabase(TEST_DATABASE_URL);
  await migrateDatabase(TEST_DATABASE_URL);
  await pairTestRedis(TEST_DATABASE_URL, TEST_REDIS_URL);
  await resetScratchDatabases(TEST_MIGRATION_DATABASE_URL);
  const broker = TEST_KAFKA_BROKERS.split(',')[0]!;
  if (!(await reachable(broker))) {
    throw new Error(`Kafka does not answer on ${broker}: run \`npm run stack:up\` first.`);
  }
  const failed = await build;
  if (failed) throw failed;
  return async function teardown() {
    if (!clusterWasRunning && (await redisClusterRunning())) await stopRedisCluster();
  };
}
