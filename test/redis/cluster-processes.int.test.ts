import { afterAll, beforeAll, expect, it } from 'vitest';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { testEnv } from '../support/env.js';
import { generateResults, toRecords, withReplays } from '../support/generate.js';
import { expectedBoards } from '../support/oracle.js';
import { freePort, request, spawnEntry, until, type Entry } from '../support/process.js';
import { ensureRedisCluster, CLUSTER_NODES } from '../support/redis-cluster.js';
import {
  createSeason,
  createTopics,
  openServices,
  produceRaw,
  waitUntilCaughtUp,
  type Services,
} from '../support/services.js';
import { parseConfig } from '../../src/config.js';

// Issue 11, part 6: two ingest processes (one consumer group) and two API processes, side by side
// on the Redis Cluster, on a sharded season: every result lands once, both APIs answer the same
// exact board.
let s: Services;
let env: Record<string, string>;
const procs: Entry[] = [];
beforeAll(async () => {
  await ensureRedisCluster();
  env = testEnv({ REDIS_CLUSTER_NODES: CLUSTER_NODES, KAFKA_PARTITIONS: '4' });
  s = openServices(parseConfig(env));
  await createTopics(s.kafka, s.config);
});
afterAll(async () => {
  for (const p of procs) p.kill();
  await s?.close();
});

it('two consumers in one group and two APIs on the cluster serve one exact sharded board', async () => {
  const season = await createSeason(s, { name: 'cluster processes', maxPointsPerMatch: 1_000, shardBounds: [20, 40] });

  const ports = [await freePort(), await freePort()];
  for (let i = 0; i < 2; i++) procs.push(spawnEntry('src/main.ts', { ...env, LADDER_ROLES: 'ingest', PORT: '0' }));
  for (const port of ports) {
    procs.push(spawnEntry('src/main.ts', { ...env, LADDER_ROLES: 'api', API_WORKERS: '1', PORT: String(port) }));
  }
  for (const port of ports) {
    await until('the API is ready', 60_000, async () =>
      (await request(port, '/ready')).status === 200 ? true : undefined,
    );
  }

  const input = generateResults(season, { results: 2_000, players: 200, seed: 4, maxPoints: 60 });
  await produceRaw(s.kafka, s.config.kafka.topic, toRecords(withReplays(input, 5)));
  await waitUntilCaughtUp(s, 'both consumers applied every result', 90_000);
  // Both consumers took part: the group has two members.
  const admin = s.kafka.admin();
  await admin.connect();
  const { groups } = await admin.describeGroups([s.config.kafka.groupId]);
  await admin.disconnect();
  expect(groups[0]!.members).toHaveLength(2);

  const [stored] = await s.pg.sql`select count(*)::int as n from match_results where season_id = ${season.id}`;
  expect(stored!.n).toBe(2_000);
  const expected = [
    ...expectedBoards(
      season,
      input.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
    ).get(boardKey(seasonBoard(season)))!,
  ].reverse();
  const query = `{ leaderboard(seasonId: ${season.id}) { size top(limit: 200) { rank playerId } entry(playerId: "${expected[150]![0]}") { rank } } }`;
  for (const port of ports) {
    const res = await request(port, '/graphql', { method: 'POST', body: JSON.stringify({ query }) });
    const { data } = JSON.parse(res.body) as { data: { leaderboard: any } };
    expect(data.leaderboard.size).toBe(expected.length);
    expect(data.leaderboard.top.map((e: { playerId: string }) => e.playerId)).toEqual(expected.map(([m]) => m));
    expect(data.leaderboard.entry.rank).toBe(151);
  }
});
