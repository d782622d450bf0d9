// Fault matrix 20, `npm run chaos` (docs/reliability.md#fault-matrix): a seeded, bounded soak
// that injects the faults of the matrix at random, one after another, into one ladder (API and
// ingest) and two more ingest processes while game servers submit; then the oracle, and a report.
// CHAOS_SEED, CHAOS_MINUTES (10), CHAOS_RATE (results/s, 500) tune it. Not part of `npm test`.
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { epochMs } from '../../src/postgres/client.js';
import type { Season } from '../../src/domain/season.js';
import { boardsMarkerKey } from '../../src/redis/keys.js';
import { testEnv } from '../support/env.js';
import {
  gameServers,
  printReport,
  privateDatabase,
  sleep,
  spread,
  startLadder,
  submitKey,
  type LadderProcess,
} from '../support/faults.js';
import { prng } from '../support/generate.js';
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-broker.js';
import { expectedBoards, type OracleResult } from '../support/oracle.js';
import { until } from '../support/process.js';
import { startRedisServer } from '../support/redis-server.js';
import { boardContents, createSeason, openServices, waitUntilCaughtUp, type Services } from '../support/services.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const num = (name: string, dflt: number) => Number(process.env[name] ?? dflt);
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

/**
 * What the season's stores hold against what was acknowledged. lost: acknowledged, not stored.
 * unacknowledged: stored for a match whose game server gave up before it was accepted (allowed:
 * such a match is of unknown outcome, and must be 0 when every match was retried to the end).
 * wrongBoardMembers: members whose score differs from what PostgreSQL's rows imply (a result
 * applied twice raises a SUM total), or that should not be there.
 */
async function audit(s: Services, season: Season, acknowledged: readonly OracleResult[]) {
  // A raw timestamptz arrives as text (postgres/client.ts epochMs): read as epoch milliseconds.
  const rows = await s.pg.sql<{ m: string; p: string; points: number; endedAt: string }[]>`
    select match_id::text as m, player_id::text as p, points, ${epochMs(s.pg.sql, 'ended_at')} as "endedAt"
    from match_results where season_id = ${season.id}`;
  const stored = new Set(rows.map((r) => `${r.m}|${r.p}`));
  const acked = new Set(acknowledged.map((r) => `${r.matchId}|${r.playerId}`));
  const implied = rows.map((r) => ({
    matchId: r.m,
    playerId: r.p,
    points: r.points,
    endedAt: new Date(Number(r.endedAt)),
  }));
  let wrongMembers = 0;
  for (const [key, entries] of expectedBoards(season, implied)) {
    const actual = new Map(await boardContents(s.redis, key));
    for (const [member, score] of entries) if (actual.get(member) !== score) wrongMembers++;
    wrongMembers += Math.max(0, actual.size - entries.length);
  }
  return {
    lost: [...acked].filter((k) => !stored.has(k)).length,
    duplicated: rows.length - stored.size, // the primary key makes this 0 by construction
    unacknowledged: [...stored].filter((k) => !acked.has(k)).length,
    wrongBoardMembers: wrongMembers,
  };
}

it('20. chaos soak: every fault of the matrix at random, then nothing lost, nothing duplicated', async () => {
  const seed = num('CHAOS_SEED', 20);
  const minutes = num('CHAOS_MINUTES', 10);
  const rand = prng(seed);
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

  const broker: KafkaBroker = await startKafkaBroker({ proxied: true });
  cleanup.push(() => broker.close());
  const redisServer = await startRedisServer();
  cleanup.push(() => redisServer.stop());
  const db = await privateDatabase();
  const dbUrl = new URL(db.url);
  const pgProxy = await startTcpProxy(dbUrl.hostname, Number(dbUrl.port || 5432));
  cleanup.push(() => pgProxy.close());
  const viaProxy = new URL(db.url);
  viaProxy.port = String(pgProxy.port);

  const apiEnv = testEnv({
    KAFKA_BROKERS: broker.proxiedBrokers,
    REDIS_URL: redisServer.url,
    DATABASE_URL: viaProxy.toString(),
    BOARD_RESTORE_INTERVAL_MS: '1000',
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    SUBMIT_TIMEOUT_MS: '5000',
  });
  const ingestEnv = { ...apiEnv, LADDER_ROLES: 'ingest', KAFKA_BROKERS: broker.brokers };
  const s = openServices(parseConfig({ ...apiEnv, KAFKA_BROKERS: broker.brokers, DATABASE_URL: db.url }));
  cleanup.push(() => s.close());
  const season = await createSeason(s, { name: 'chaos', scoring: 'SUM' });

  let api: LadderProcess = await startLadder(apiEnv);
  const consumers = [await startLadder(ingestEnv), await startLadder(ingestEnv)];
  cleanup.push(() => Promise.all([api, ...consumers].map((p) => p.kill())));
  const load = gameServers({
    url: () => api.url!,
    apiKey: await submitKey(s),
    season,
    rate: num('CHAOS_RATE', 500),
    players: 5_000,
    seed,
  });

  const faults: Record<string, () => Promise<void>> = {
    'kafka SIGKILL': async () => {
      await broker.kill();
      await sleep(between(5, 15));
      await broker.start();
    },
    'redis SHUTDOWN NOSAVE': async () => {
      const direct = new Redis(redisServer.url, { lazyConnect: true, retryStrategy: () => null });
      direct.on('error', () => {});
      await direct.connect();
      await direct.call('SHUTDOWN', 'NOSAVE').catch(() => {});
      direct.disconnect();
      await sleep(between(1, 5));
      await redisServer.start();
    },
    'redis full': async () => {
      const used = Number(/used_memory:(\d+)/.exec(await s.redis.info('memory'))![1]);
      await s.redis.config('SET', 'maxmemory', String(Math.max(1, used - 1024 * 1024)));
      await sleep(between(5, 15));
      await s.redis.config('SET', 'maxmemory', '0');
    },
    'postgres stopped': async () => {
      pgProxy.cut();
      await sleep(between(5, 45));
      pgProxy.restore();
    },
    'postgres paused': async () => {
      pgProxy.hang();
      await sleep(between(5, 30));
      pgProxy.restore();
    },
    'ingest process killed': async () => {
      const i = between(0, consumers.length - 1);
      if (rand() < 0.5) await consumers[i]!.kill();
      else await consumers[i]!.stop();
      consumers[i] = await startLadder(ingestEnv);
    },
    'API killed after Kafka acknowledged': async () => {
      const victim = api;
      broker.proxy!.onProduceAnswer = () => {
        victim.entry.child.kill('SIGKILL');
        return 'drop';
      };
      await Promise.race([victim.entry.exited, sleep(30)]);
      broker.proxy!.onProduceAnswer = undefined;
      await victim.kill();
      api = await startLadder(apiEnv);
    },
  };

  const injected: Record<string, number> = {};
  const started = Date.now();
  while (Date.now() - started < minutes * 60_000) {
    await sleep(between(3, 10));
    const names = Object.keys(faults);
    const name = names[Math.floor(rand() * names.length)]!;
    const t0 = Date.now();
    await faults[name]!();
    injected[name] = (injected[name] ?? 0) + 1;
    console.log(`[chaos] ${((Date.now() - started) / 1000).toFixed(0)} s: ${name} (${Date.now() - t0} ms)`);
  }

  const report = await load.stop(300_000);
  await waitUntilCaughtUp(s, 'ingest to commit everything', 300_000);
  await until('the boards to be complete', 300_000, async () =>
    (await s.redis.get(boardsMarkerKey())) === 'complete' ? true : undefined,
  );
  const found = await audit(s, season, report.results);
  printReport('20 chaos', {
    seed,
    minutes,
    faultsInjected: injected,
    matchesAcknowledged: report.matches,
    resultsAcknowledged: report.results.length,
    ...found,
    failedAttempts: report.failures,
    unavailableAnswerMs: spread(report.unavailableMs),
    longestUnavailableMs: report.longestUnavailableMs,
    // When, in the seconds of the [chaos] lines (each printed as its fault ended).
    longestUnavailableEndedAtS: Math.round((report.longestUnavailableEndedAt - started) / 1000),
    refused: report.refused.length,
  });
  expect(report.refused).toEqual([]);
  expect(found).toEqual({ lost: 0, duplicated: 0, unacknowledged: 0, wrongBoardMembers: 0 });
}, 3_600_000);
