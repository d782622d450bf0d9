// Issue 38, item 3: rolling restarts under load. Two ladder processes (API and ingest each, one
// consumer group) behind a TCP load balancer serve submissions, reads and WebSocket subscriptions
// while each is restarted in turn, twice: SIGTERM with no warning to the balancer (it learns from
// refused connections, as a Service without a preStop pause does), a new process on a new port
// added to the balancer as soon as it is spawned (so it meets connections while it starts).
// Then: every acknowledged result stored once in PostgreSQL and on the boards; every read and
// submission answered (retried only on a dropped connection or 503/UNAVAILABLE) within its
// deadline; every subscription back by graphql-ws's own retries, with its default shouldRetry;
// the ranks' freshness (acknowledgement to board) across the restarts printed.
// CI size here; longer with FAULTS_RESTART_ROUNDS and FAULTS_RATE (`npm run chaos:restarts`: 10
// rounds at 1,000 results/s).
import { randomUUID } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLadderClient } from '../../src/client/ladder-client.js';
import { codecOf } from '../../src/domain/score-codec.js';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { testEnv, uniqueName } from '../support/env.js';
import {
  expectExactlyOnce,
  gameServers,
  knob,
  printReport,
  sleep,
  spread,
  startLadder,
  submitKey,
  type LadderProcess,
} from '../support/faults.js';
import { request, until } from '../support/process.js';
import { createSeason, createTopics, openServices, waitUntilCaughtUp, type Services } from '../support/services.js';
import { startBalancer } from '../support/tcp-proxy.js';

const env = testEnv({
  KAFKA_TOPIC: uniqueName('test-rolling'),
  KAFKA_GROUP_ID: uniqueName('test-rolling'),
  // Every reader of this test is 127.0.0.1: one address, many players.
  RATE_LIMIT_READS_PER_SEC: '100000',
  RATE_LIMIT_READS_BURST: '100000',
  HTTP_DRAIN_GRACE_MS: '1000', // the default, which testEnv turns off
});
let s: Services;
let balancer: Awaited<ReturnType<typeof startBalancer>>;
const instances: LadderProcess[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  s = openServices(parseConfig(env));
  await createTopics(s.kafka, s.config);
  balancer = await startBalancer();
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await Promise.all(instances.map((i) => i.kill()));
  await balancer?.close();
  await s?.close();
});

/** A new instance, in the balancer from its spawn; resolves once it answers /ready 200. */
async function launch(): Promise<LadderProcess> {
  const instance = await startLadder(env, { wait: false });
  instances.push(instance);
  balancer.add(instance.port!);
  await until('the new instance to be ready', 120_000, async () =>
    (await request(instance.port!, '/ready')).status === 200 ? true : undefined,
  );
  return instance;
}

/** Reads through the balancer, each retried on a dropped connection or 503 until `deadlineMs`. */
function readers(seasonId: number, count: number, deadlineMs: number) {
  const stats = {
    answered: 0,
    retries: {} as Record<string, number>,
    slowestMs: 0,
    failed: {} as Record<string, number>,
  };
  const fail = (why: string) => (stats.failed[why] = (stats.failed[why] ?? 0) + 1);
  let running = true;
  const query = JSON.stringify({ query: `{ leaderboard(seasonId: ${seasonId}) { size top(limit: 10) { rank } } }` });
  async function read(): Promise<void> {
    const t0 = Date.now();
    for (;;) {
      let why: string;
      try {
        const res = await fetch(balancer.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: query,
          signal: AbortSignal.timeout(deadlineMs),
        });
        const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
        if (res.status === 200 && !body.errors) break;
        why = String(body.errors?.[0]?.extensions?.code ?? res.status);
        if (res.status !== 503 && why !== 'UNAVAILABLE') return void fail(why);
      } catch (err) {
        why = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      }
      stats.retries[why] = (stats.retries[why] ?? 0) + 1;
      if (Date.now() - t0 > deadlineMs) {
        return void fail(`no answer within ${deadlineMs} ms (${why})`);
      }
      await sleep(0.1);
    }
    stats.answered++;
    stats.slowestMs = Math.max(stats.slowestMs, Date.now() - t0);
  }
  const loops = Array.from({ length: count }, async () => {
    while (running) {
      await read();
      await sleep(0.02);
    }
  });
  return {
    stats,
    async stop() {
      running = false;
      await Promise.all(loops);
      return stats;
    },
  };
}

/** What ended a subscription, readable in the report: GraphQL errors' codes and messages, a close's code and reason. */
function describeError(err: unknown): string {
  if (Array.isArray(err))
    return err
      .map((e: { message?: string; extensions?: { code?: string } }) => `${e.extensions?.code}: ${e.message}`)
      .join('; ');
  const close = err as { code?: number; reason?: string };
  if (close && typeof close === 'object' && 'code' in close) return `close ${close.code} ${close.reason ?? ''}`.trim();
  if (err instanceof Error) return err.message;
  // ws's ErrorEvent (a socket error, e.g. a connection reset or hung up): its message and cause.
  const event = err as { type?: string; message?: string; error?: { code?: string } };
  if (event && typeof event === 'object' && 'message' in event)
    return `${event.type ?? 'error'} event: ${event.message} ${event.error?.code ?? ''}`.trim();
  return String(err);
}

/** graphql-ws clients through the balancer, as a game client would make them: retries on, shouldRetry its default. */
function subscribers(seasonId: number, count: number) {
  const closes: Record<string, number> = {};
  const seen: number[] = Array.from({ length: count }, () => 0);
  const errors: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const client = createClient({
      url: balancer.url.replace('http', 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 50,
      retryWait: async () => {
        await sleep(0.2 + Math.random() * 0.3);
      },
      on: {
        closed: (event) => {
          const code = String((event as { code?: number }).code);
          closes[code] = (closes[code] ?? 0) + 1;
        },
      },
    });
    clients.push(client);
    client.subscribe(
      { query: `subscription { topChanged(seasonId: ${seasonId}, limit: 3) { rank playerId } }` },
      { next: () => seen[i]!++, error: (err) => errors.push(err), complete: () => errors.push('completed') },
    );
  }
  return { closes, seen, errors };
}

it('two instances restarted in turn under load: nothing lost or doubled, every request answered, every subscription back by itself', async () => {
  const season = await createSeason(s, { name: 'rolling restarts', maxPointsPerMatch: 100_000 });
  await launch();
  await launch();
  const key = await submitKey(s);
  const load = gameServers({
    url: () => balancer.url,
    apiKey: key,
    season,
    rate: knob('RATE', 150),
    players: 2_000,
    seed: 38,
  });
  const reads = readers(season.id, 3, 10_000);
  const subs = subscribers(season.id, 6);

  // Freshness: a probe player's BEST climbs by one each 200 ms; each acknowledgement timed until
  // the board (Redis, read directly) shows that score.
  const probeClient = createLadderClient({ url: balancer.url, apiKey: key });
  const probe = '999000001';
  const freshness: Array<{ at: number; ms: number }> = [];
  let probing = true;
  const board = boardKey(seasonBoard(season));
  const codec = codecOf(season);
  const probeLoop = (async () => {
    for (let points = 1; probing; points++) {
      const input = {
        matchId: randomUUID(),
        seasonId: season.id,
        endedAt: new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString(),
        results: [{ playerId: probe, points }],
      };
      await probeClient.submitMatchResult(input, { attempts: 20 });
      const acked = Date.now();
      load.report.results.push({ matchId: input.matchId, playerId: probe, points, endedAt: new Date(input.endedAt) });
      // Polled every 5 ms (up to a minute): the board as a reader sees it.
      for (let i = 0; i < 12_000; i++) {
        const score = await s.redis.zscore(board, probe);
        if (score !== null && codec.decode(codec.fromRedis(score)).points >= points) break;
        await sleep(0.005);
      }
      freshness.push({ at: acked, ms: Date.now() - acked });
      await sleep(0.2);
    }
  })();

  await sleep(2);
  const restarts: Array<{ stopMs: number; readyMs: number; code: number | null }> = [];
  for (let round = 0; round < knob('RESTART_ROUNDS', 2); round++) {
    for (let i = 0; i < 2; i++) {
      const old = instances.at(-2)!; // the older of the two running
      const t0 = Date.now();
      const code = await old.stop(); // SIGTERM; the balancer finds out from refused connections
      const stopMs = Date.now() - t0;
      balancer.remove(old.port!);
      instances.splice(instances.indexOf(old), 1);
      const t1 = Date.now();
      await launch();
      restarts.push({ stopMs, readyMs: Date.now() - t1, code });
      await sleep(2);
    }
  }
  await sleep(2);

  probing = false;
  await probeLoop;
  const report = await load.stop();
  const readStats = await reads.stop();
  await waitUntilCaughtUp(s, 'ingest to commit everything', 120_000);

  const windows = restarts.length;
  printReport('rolling restarts', {
    restarts,
    submissions: { matches: report.matches, failures: report.failures, refused: report.refused.length },
    reads: readStats,
    subscriptions: { closes: subs.closes, errors: subs.errors.map(describeError), seen: subs.seen },
    freshnessMs: spread(freshness.map((f) => f.ms)),
  });

  // Every subscription is back by itself: a new top reaches each of them.
  const before = [...subs.seen];
  const last = { matchId: randomUUID(), seasonId: season.id, endedAt: new Date(Date.now() - 1000).toISOString() };
  await probeClient.submitMatchResult({ ...last, results: [{ playerId: '999000002', points: 99_999 }] });
  report.results.push({ ...last, playerId: '999000002', points: 99_999, endedAt: new Date(last.endedAt) });
  await until('every subscriber to see the new top', 20_000, async () =>
    subs.seen.every((n, i) => n > before[i]!) ? true : undefined,
  );

  expect(restarts.every((r) => r.code === 0)).toBe(true);
  expect(report.refused).toEqual([]);
  expect(readStats.failed).toEqual({});
  expect(readStats.answered).toBeGreaterThan(50);
  expect(subs.errors).toEqual([]);
  // Each stop closed its subscribers with 1001 Going Away, a reconnect to a stopping instance met
  // 1012 Service Restart, one to a starting instance 1013 Try Again Later.
  expect(Object.keys(subs.closes).every((code) => ['1001', '1012', '1013', '1006'].includes(code))).toBe(true);
  expect(subs.closes['1001'] ?? 0).toBeGreaterThanOrEqual(windows);
  await waitUntilCaughtUp(s, 'ingest to commit the last match', 60_000);
  await expectExactlyOnce(s, season, report.results);
}, 300_000);
