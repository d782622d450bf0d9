import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { createRedis, dbOf, isCluster, mastersOf, scanKeys } from '../../src/redis/client.js';
import { boardKey, boardVersionsKey, updatesChannel } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { createLivePubSub } from '../../src/redis/live-pubsub.js';
import { createSeasonKeys } from '../../src/redis/season-keys.js';
import { createBoardVersions, type BoardEvent } from '../../src/service/board-events.js';
import { testConfig } from '../support/env.js';
import { ensureRedisCluster } from '../support/redis-cluster.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

// ladder against a real Redis Cluster (REDIS_CLUSTER_NODES): the same writer, reader, scripts,
// SCAN and pub/sub as on one server, with every script's keys in one slot.
let s: Services;
let url: string;
beforeAll(async () => {
  url = await ensureRedisCluster();
  s = openServices(testConfig({ REDIS_CLUSTER_NODES: url.replace('redis-cluster://', '') }));
});
afterAll(async () => {
  await s?.close();
});

const standing = (seasonId: number, playerId: string, points: number) => ({
  seasonId,
  window: 'SEASON' as const,
  period: '',
  playerId,
  points,
  achievedAt: new Date(Date.now() - 60_000),
});

it('the config reaches the cluster: every master, noeviction, database 0', async () => {
  expect(s.config.redisUrl).toBe(url);
  const masters = await mastersOf(s.redis);
  expect(masters).toHaveLength(3);
  expect(dbOf(s.redis)).toBe(0);
  for (const m of masters)
    expect(await m.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
});

it('ingest writes and one-instant reads run their scripts on the cluster; events reach a subscriber on another node', async () => {
  const season = await createSeason(s);
  const writer = createBoardWriter(s.redis, 90 * 24 * 3600);
  const reader = createBoardReader(s.redis);
  const board: Board = { season, window: 'SEASON', period: '' };

  // The subscriber is connected to some node; the board's slot lives on one of three masters.
  // Classic PUBLISH is broadcast over the cluster bus, so any node hears every season.
  const publisher = s.redis.duplicate();
  const subscriber = s.redis.duplicate();
  const live = createLivePubSub(publisher, subscriber);
  const events: BoardEvent[] = [];
  const stop = await live.subscribe({ event: (e) => events.push(e), names: () => {}, lost: () => {} });

  const { changed } = await writer.write(
    [standing(season.id, '1', 10), standing(season.id, '2', 30), standing(season.id, '3', 20)],
    () => season,
    Date.now(),
  );
  expect(changed).toBe(3);
  const answer = await reader.read(board, {
    top: 10,
    pages: [],
    playerIds: ['3'],
    arounds: [{ playerId: '1', radius: 1 }],
  });
  expect(answer.size).toBe(3);
  expect(answer.top.map((e) => [e.rank, e.playerId])).toEqual([
    [1, '2'],
    [2, '3'],
    [3, '1'],
  ]);
  expect(answer.entries.map((e) => e.rank)).toEqual([2]);
  expect(answer.arounds[0]!.map((e) => e.playerId)).toEqual(['2', '3', '1']);
  await waitFor('the event of the write', async () => events.some((e) => e.seasonId === season.id));
  expect(events.find((e) => e.seasonId === season.id)!.changes).toHaveLength(3);
  expect(updatesChannel(dbOf(s.redis), season.id)).toBe(`ladder:0:updates:s${season.id}`);

  // SCAN covers every master; a close removes the season's keys wherever they are.
  const seen: string[] = [];
  await scanKeys(s.redis, `lb:{s${season.id}}*`, async (keys) => void seen.push(...keys));
  expect(seen.sort()).toEqual([boardKey(seasonBoard(season)), `lb:{s${season.id}}:versions`]);
  expect(await createSeasonKeys(s.redis).remove(season.id)).toBe(2);
  expect(await createSeasonKeys(s.redis).remaining(season.id)).toBe(false);

  stop();
  await live.close();
});

it("versions never repeat when the season's slot goes back to an older value (a failover), sharded or not", async () => {
  const publisher = s.redis.duplicate();
  const subscriber = s.redis.duplicate();
  const live = createLivePubSub(publisher, subscriber);
  const events: BoardEvent[] = [];
  const stop = await live.subscribe({ event: (e) => events.push(e), names: () => {}, lost: () => {} });
  const writer = createBoardWriter(s.redis, 90 * 24 * 3600);
  for (const season of [await createSeason(s), await createSeason(s, { shardBounds: [20] })]) {
    const versions = createBoardVersions();
    const heard = async (n: number) => {
      await waitFor(`event ${n} of season ${season.id}`, async () => events.filter(mine).length >= n);
      return events.filter(mine)[n - 1]!;
    };
    const mine = (e: BoardEvent) => e.seasonId === season.id;
    const write = (points: number) => writer.write([standing(season.id, '1', points)], () => season, Date.now());
    await write(10);
    // What the replica holds when its master dies: the versions after the first write only.
    const replicaHad = await s.redis.hgetall(boardVersionsKey(season.id));
    await write(30);
    const [first, second] = [await heard(1), await heard(2)];
    expect(versions.note(first)).toBe(true);
    expect(versions.note(second)).toBe(true);
    expect(second.previous).toBe(first.version);
    await s.redis.hset(boardVersionsKey(season.id), replicaHad);
    await write(40);
    const third = await heard(3);
    // Above every version issued before, and after an older one than the last heard: lost history.
    expect(third.version).toBeGreaterThan(second.version);
    expect(third.previous).toBe(first.version);
    expect(third.version).toBeLessThan(2 ** 53);
    expect(versions.note(third)).toBe(false);
    const { version } = await createBoardReader(s.redis).read(
      { season, window: 'SEASON', period: '' },
      {
        top: 1,
        pages: [],
        playerIds: [],
        arounds: [],
      },
    );
    expect(version).toBe(third.version);
  }
  stop();
  await live.close();
});

it('a cluster client duplicates into another cluster client with the scripts', async () => {
  // One server's signature, duplicate(options): the options are applied (lazyConnect: no connection yet).
  const copy = s.redis.duplicate({ lazyConnect: true });
  expect(isCluster(copy)).toBe(true);
  expect(copy.status).toBe('wait');
  expect(typeof copy.readTop).toBe('function');
  expect(await copy.ping()).toBe('PONG');
  // A duplicate's duplicate keeps the seed nodes and the options; ioredis's own signature still works.
  const again = copy.duplicate();
  const own = (copy as unknown as Cluster).duplicate([], { lazyConnect: true });
  expect(own.status).toBe('wait');
  expect(await again.readTop('{x}b', '{x}v', '0', '1', '0', 'SEASON')).toEqual(['0', 0, 1]);
  for (const c of [copy, again, own]) c.disconnect();
  expect(createRedis(url)).toBeDefined();
});
