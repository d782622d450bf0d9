import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { updatesChannel } from '../../src/redis/keys.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { startRedisServer } from '../support/redis-server.js';
import { produceRaw, waitFor, waitUntilCaughtUp } from '../support/services.js';

// A private Redis: this file counts Redis commands and channel subscriptions.
let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let redis: Redis;
let api: TestApi;
let seasonId: number;
let submitter: string;

async function submit(results: Array<[string, number]>) {
  const res = await api.gql(
    'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
    {
      i: {
        matchId: randomUUID(),
        seasonId,
        endedAt: minutesFromNow(-1),
        results: results.map(([playerId, points]) => ({ playerId, points })),
      },
    },
    submitter,
  );
  expect(res.errors).toBeUndefined();
}

async function commandCalls(command: string): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

beforeAll(async () => {
  redisServer = await startRedisServer();
  redis = new Redis(redisServer.url);
  api = await startApi({
    REDIS_URL: redisServer.url,
    RATE_LIMIT_READS_PER_SEC: '1000000',
    RATE_LIMIT_READS_BURST: '1000000',
  });
  submitter = await api.key('submit');
  const created = await api.gql(
    'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
    {
      i: {
        name: 'live',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(60 * 24),
        scoring: 'BEST',
        maxPointsPerMatch: 100_000,
      },
    },
    await api.key('admin'),
  );
  seasonId = created.data!.createSeason.id;
  await submit(Array.from({ length: 50 }, (_, i) => [String(i + 1), i * 10] as [string, number]));
  await waitFor(
    'the first match',
    async () => (await api.gql(`{ leaderboard(seasonId: ${seasonId}) { size } }`)).data!.leaderboard.size === 50,
  );
});

afterAll(async () => {
  await api?.close();
  redis?.disconnect();
  await redisServer?.stop();
});

describe('the top-N cache', () => {
  it('keeps Redis at O(1) top reads per second per board, however many clients ask', async () => {
    const before = await commandCalls('zrevrange');
    let served = 0;
    let writes = 0;
    const until = Date.now() + 3_000;
    // 50 concurrent clients reading the top while results keep arriving (the cache gets dirty).
    const readers = Array.from({ length: 50 }, async () => {
      while (Date.now() < until) {
        const res = await api.gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 100) { rank playerId } } }`);
        if (res.data?.leaderboard.top.length >= 50) served++;
      }
    });
    // New records straight into Kafka (the API would queue behind the readers in this process).
    const writer = (async () => {
      while (Date.now() < until) {
        const m = {
          v: 1,
          matchId: randomUUID(),
          seasonId,
          endedAt: minutesFromNow(-1),
          playerId: String(1000 + writes),
          points: 5_000 + writes,
        };
        await produceRaw(api.s.kafka, api.config.kafka.topic, [{ key: m.playerId, value: JSON.stringify(m) }]);
        writes++;
        // Paced, not a wait: ~10 updates a second, the rate the refresh bound below is stated for.
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await Promise.all([...readers, writer]);
    const topReads = (await commandCalls('zrevrange')) - before;
    console.log(`top(100): ${served} responses in 3 s, ${topReads} ZREVRANGE in Redis, ${writes} writes`);
    // Many more answers than Redis reads: the clients are served from RAM.
    expect(served).toBeGreaterThan(20 * Math.max(topReads, 1));
    // At most one refresh per 100 ms while updates land (minIntervalMs), whatever the client count.
    expect(topReads).toBeLessThanOrEqual(3 * 10 + 2);
    expect(writes).toBeGreaterThan(5);
  });
});

describe('live pushes cost O(updates)', () => {
  it('rankChanged follows every watched player exactly while results land, and costs Redis nothing while idle', async () => {
    const created = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      {
        i: {
          name: 'ranks',
          startsAt: minutesFromNow(-60),
          endsAt: minutesFromNow(60 * 24),
          scoring: 'BEST',
          rankStyle: 'COMPETITION',
          maxPointsPerMatch: 100_000,
        },
      },
      await api.key('admin'),
    );
    const id = created.data!.createSeason.id as number;
    const produce = (results: Array<[string, number]>) =>
      produceRaw(
        api.s.kafka,
        api.config.kafka.topic,
        results.map(([playerId, points]) => ({
          key: playerId,
          value: JSON.stringify({
            v: 1,
            matchId: randomUUID(),
            seasonId: id,
            endedAt: minutesFromNow(-1),
            playerId,
            points,
          }),
        })),
      );
    // 200 players with many ties (COMPETITION ranks), 40 of them watched over 4 sockets.
    await produce(Array.from({ length: 200 }, (_, i) => [String(i + 1), (i % 20) * 10] as [string, number]));
    await waitFor(
      'the players',
      async () => (await api.gql(`{ leaderboard(seasonId: ${id}) { size } }`)).data!.leaderboard.size === 200,
    );
    const clients = Array.from({ length: 4 }, () => api.wsClient());
    const watched = Array.from({ length: 40 }, (_, i) => String(i * 5 + 1));
    const subs = watched.map((p, i) =>
      api.subscribe(
        `subscription { rankChanged(seasonId: ${id}, playerId: "${p}") { playerId rank points } }`,
        undefined,
        clients[i % 4],
      ),
    );
    await waitFor('every first push', async () => subs.every((sub) => sub.events.length > 0));

    // Idle: sockets open, nothing landing. No Redis command on their behalf. Nothing to wait for: a
    // fixed window, twice the 1 s period of the rank pushes and of the top cache, in which none may come.
    const idleBefore = await commandCalls('evalsha');
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await commandCalls('evalsha')) - idleBefore).toBe(0);

    // Results land: overtakes, new players above everyone, ties created and broken.
    for (let round = 0; round < 30; round++) {
      await produce(
        Array.from(
          { length: 5 },
          (_, k) => [String(1 + ((round * 37 + k * 53) % 260)), 100 + round * 7 + k] as [string, number],
        ),
      );
    }
    await waitUntilCaughtUp(api.s, 'the 150 results to be applied');
    const truth = async () => {
      const res = await api.gql(
        `query($ids: [ID!]!) { leaderboard(seasonId: ${id}) { friends(playerIds: $ids) { playerId rank points } } }`,
        { ids: watched },
      );
      return new Map(
        (res.data!.leaderboard.friends as Array<{ playerId: string; rank: number; points: number }>).map((e) => [
          e.playerId,
          e,
        ]),
      );
    };
    await waitFor(
      'every push to match Redis',
      async () => {
        const t = await truth();
        return subs.every(
          (sub, i) => JSON.stringify(sub.events.at(-1)?.data?.rankChanged) === JSON.stringify(t.get(watched[i]!)),
        );
      },
      10_000,
    );
    // And a resync (the low-rate drift check) finds nothing to correct.
    const drift = () => api.app.api!.rankWatcher.watchedPlayers();
    expect(drift()).toBe(40);
    const pushes = subs.map((sub) => sub.events.length);
    const drifted = await metricValue('ladder_rank_drift_total');
    await api.app.api!.rankWatcher.resync();
    // A marker on each socket: its first push goes out after anything the resync pushed on that
    // socket, so once every marker has arrived, no resync push is still on its way.
    const markers = clients.map((client, k) =>
      api.subscribe(
        `subscription { rankChanged(seasonId: ${id}, playerId: "${watched[k]}") { rank } }`,
        undefined,
        client,
      ),
    );
    await waitFor('a marker push on every socket', async () => markers.every((m) => m.events.length > 0));
    expect(subs.map((sub) => sub.events.length)).toEqual(pushes);
    expect(await metricValue('ladder_rank_drift_total')).toBe(drifted);
    for (const sub of [...subs, ...markers]) sub.close();
    // The markers end with their sockets, which the server sees a moment later.
    const open = () => api.app.api!.services.live.openSubscriptions().rankChanged;
    await waitFor('every rankChanged subscription to be closed', async () => open() === 0);
  });
});

describe('subscriptions', () => {
  it('leave nothing behind when clients drop, cleanly or abruptly', async () => {
    // Events reach the process through one pattern subscription, whatever the clients do.
    const numpat = async () => Number(await redis.pubsub('NUMPAT'));
    const patterns = await numpat();
    expect(patterns).toBeGreaterThanOrEqual(1);
    expect(await numsub(updatesChannel(0, seasonId))).toBe(0);
    const open = () => api.app.api!.services.live.openSubscriptions();
    expect(open()).toEqual({ recordUpdated: 0, topChanged: 0, rankChanged: 0, rewardGranted: 0 });

    const queries = [
      `subscription { recordUpdated(seasonId: ${seasonId}) { playerId } }`,
      `subscription { topChanged(seasonId: ${seasonId}, limit: 5) { playerId } }`,
      `subscription { rankChanged(seasonId: ${seasonId}, playerId: "7") { rank } }`,
    ];
    // 20 clients through graphql-ws (one socket each) that unsubscribe cleanly...
    const clean = Array.from({ length: 20 }, () => {
      const client = api.wsClient();
      return queries.map((q) => api.subscribe(q, undefined, client));
    });
    // ...and 20 raw sockets that vanish without a close frame.
    const abrupt = await Promise.all(
      Array.from({ length: 20 }, () => rawSubscriber(api.url.replace('http', 'ws'), queries)),
    );
    // topChanged and rankChanged of the same board, limit and player: one execution serves all 40.
    await waitFor('every subscription to be open', async () => {
      const o = open();
      return o.recordUpdated === 40 && o.topChanged === 1 && o.rankChanged === 1;
    });
    expect(api.app.api!.server.sharedSubscriptions()).toBe(2);
    expect(api.app.api!.services.live.listeners()).toBe(20 + 20); // recordUpdated's in-process listeners

    for (const subs of clean) for (const s of subs) s.close();
    for (const socket of abrupt) socket.terminate();
    await waitFor(
      'every subscription to be closed',
      async () => {
        const o = open();
        return o.recordUpdated + o.topChanged + o.rankChanged === 0;
      },
      15_000,
    );
    expect(api.app.api!.services.live.listeners()).toBe(0);
    expect(await numpat()).toBe(patterns);
    expect(await numsub(updatesChannel(0, seasonId))).toBe(0);
    expect(api.app.api!.topCache.watchers()).toBe(0);
    expect(api.app.api!.server.sharedSubscriptions()).toBe(0);
  });
});

async function metricValue(name: string): Promise<number> {
  const text = await (await fetch(`${api.base}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

const numsub = async (channel: string) => Number((await redis.pubsub('NUMSUB', channel))[1]);

/** A graphql-transport-ws client by hand, so the test can drop the TCP connection. */
async function rawSubscriber(url: string, queries: string[]): Promise<WebSocket> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await new Promise((resolve, reject) => {
    // connection_ack
    socket.once('message', resolve);
    socket.once('close', (code, reason) => reject(new Error(`socket closed: ${code} ${reason}`)));
  });
  queries.forEach((query, i) => socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query } })));
  return socket;
}
