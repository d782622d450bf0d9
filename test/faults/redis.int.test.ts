// Fault matrix 14 and 17 (docs/reliability.md#fault-matrix): Redis shut down without saving and
// restarted empty during ingest; Redis full (maxmemory, noeviction). A private redis-server (the
// shared one stays untouched), a real ladder process, game servers submitting all along.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { boardsMarkerKey } from '../../src/redis/keys.js';
import { testEnv } from '../support/env.js';
import {
  expectExactlyOnce,
  gameServers,
  knob,
  printReport,
  privateDatabase,
  sleep,
  spread,
  startLadder,
  submitKey,
  type LadderProcess,
} from '../support/faults.js';
import { request, until } from '../support/process.js';
import { startRedisServer } from '../support/redis-server.js';
import {
  boardKeys,
  createSeason,
  groupProgress,
  openServices,
  waitUntilCaughtUp,
  type Services,
} from '../support/services.js';

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let ladder: LadderProcess | undefined;
let s: Services;
let env: Record<string, string>;
let db: Awaited<ReturnType<typeof privateDatabase>>;

beforeAll(async () => {
  redisServer = await startRedisServer();
  // A database of its own: the restore rebuilds every ACTIVE season it finds.
  db = await privateDatabase();
  env = testEnv({ REDIS_URL: redisServer.url, DATABASE_URL: db.url, BOARD_RESTORE_INTERVAL_MS: '1000' });
  s = openServices(parseConfig(env));
  ladder = await startLadder(env);
}, 120_000);
afterAll(async () => {
  await ladder?.kill();
  await s?.close();
  await redisServer?.stop();
});

it('14. Redis SHUTDOWN NOSAVE and restarted empty during ingest: the service rebuilds the boards by itself; nothing lost', async () => {
  const season = await createSeason(s, { name: 'faults redis restart' });
  const load = gameServers({
    url: () => ladder!.url!,
    apiKey: await submitKey(s),
    season,
    rate: knob('RATE', 300),
    players: 2_000,
    seed: 14,
  });
  await sleep(knob('BEFORE_S', 4));
  const direct = new Redis(redisServer.url, { lazyConnect: true, retryStrategy: () => null });
  direct.on('error', () => {}); // the shutdown closes its connection
  await direct.connect();
  await direct.call('SHUTDOWN', 'NOSAVE').catch(() => {}); // the connection closes with it
  direct.disconnect();
  const downAt = Date.now();
  await sleep(knob('REDIS_DOWN_S', 3));
  await redisServer.start(); // empty: no persistence
  // The service notices (its marker is gone) and rebuilds every ACTIVE season from PostgreSQL.
  const restoredMs = await until('the boards to be restored', 120_000, async () =>
    (await s.redis.get(boardsMarkerKey())) === 'complete' ? Date.now() - downAt : undefined,
  );
  await sleep(knob('AFTER_S', 4));
  const report = await load.stop();
  await waitUntilCaughtUp(s, 'ingest to commit everything', 120_000);

  const restores = ladder!.entry.logs().filter((l) => l.msg === 'Redis held no boards: rebuilt them from PostgreSQL');
  printReport('14 redis restart', {
    acknowledged: report.results.length,
    failures: report.failures,
    redisDownToRestoredMs: restoredMs,
    unavailableAnswerMs: spread(report.unavailableMs),
    restores: restores.map(({ seasons, members, ms }) => ({ seasons, members, ms })),
  });
  expect(report.refused).toEqual([]);
  expect(restores.length).toBeGreaterThanOrEqual(2); // at start (an empty Redis), after the restart
  expect(ladder!.entry.child.exitCode).toBeNull();
  expect((await request(ladder!.port!, '/ready')).status).toBe(200);
  await expectExactlyOnce(s, season, report.results);
}, 300_000);

it('17. Redis full (maxmemory, noeviction): writes fail visibly, ingest pauses, no board evicted, ingest resumes once memory is freed', async () => {
  const season = await createSeason(s, { name: 'faults redis full' });
  const load = gameServers({
    url: () => ladder!.url!,
    apiKey: await submitKey(s),
    season,
    rate: knob('RATE', 300),
    players: 2_000,
    seed: 17,
  });
  await sleep(knob('BEFORE_S', 4));
  const used = Number(/used_memory:(\d+)/.exec(await s.redis.info('memory'))![1]);
  // Below what Redis holds: every write refused until memory is freed (nearer the line, a write
  // passes now and then, whenever client buffers happen to shrink).
  await s.redis.config('SET', 'maxmemory', String(Math.max(1, used - 1024 * 1024)));
  const admin = s.kafka.admin();
  await admin.connect();
  try {
    // Full: writes are refused, visibly (ingest logs each retry), and nothing more is committed
    // while results wait in Kafka.
    await until(
      'Redis to refuse a write',
      60_000,
      async () => ladder!.entry.stdout.includes('OOM command not allowed') || undefined,
    );
    await sleep(1); // the chunk in flight when memory ran out
    const keys = await boardKeys(s.redis, season.id);
    const sizes = await Promise.all(keys.map((k) => s.redis.zcard(k)));
    const before = await groupProgress(admin, s.config.kafka.groupId, s.config.kafka.topic);
    await sleep(knob('FULL_S', 5));
    const during = await groupProgress(admin, s.config.kafka.groupId, s.config.kafka.topic);
    const waiting = during.reduce((n, p) => n + p.end - p.committed, 0);
    // Reads still answer while Redis is full.
    const read = await fetch(ladder!.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ leaderboard(seasonId: ${season.id}) { size } }` }),
    });
    const readBody = (await read.json()) as { data?: { leaderboard: { size: number } } };
    // No board was evicted, no member either: every board and every member is still there.
    expect(await boardKeys(s.redis, season.id)).toEqual(keys);
    expect(await Promise.all(keys.map((k) => s.redis.zcard(k)))).toEqual(sizes);
    expect(during.map((p) => p.committed)).toEqual(before.map((p) => p.committed));
    expect(waiting).toBeGreaterThan(0);
    expect(readBody.data?.leaderboard.size).toBe(sizes[keys.indexOf(`lb:{s${season.id}}`)]);

    await s.redis.config('SET', 'maxmemory', '0'); // memory freed
    const freedAt = Date.now();
    const report = await load.stop();
    await waitUntilCaughtUp(s, 'ingest to resume and commit everything', 120_000);
    printReport('17 redis full', {
      acknowledged: report.results.length,
      failures: report.failures,
      waitingWhileFull: waiting,
      caughtUpAfterFreedMs: Date.now() - freedAt,
    });
    expect(report.refused).toEqual([]);
    await expectExactlyOnce(s, season, report.results);
  } finally {
    await s.redis.config('SET', 'maxmemory', '0');
    await admin.disconnect();
  }
}, 300_000);
