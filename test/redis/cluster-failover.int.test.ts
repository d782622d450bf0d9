import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.js';
import { parseConfig } from '../../src/config.js';
import { boardExpireAt, seasonBoard, type Board } from '../../src/domain/board.js';
import { codecOf } from '../../src/domain/score-codec.js';
import type { Season } from '../../src/domain/season.js';
import { createStandingsPages } from '../../src/postgres/standings-pages.js';
import { createBoardInspector } from '../../src/redis/board-inspector.js';
import { shardSizesKey } from '../../src/redis/keys.js';
import { slotOfTag } from '../../src/redis/shard-placement.js';
import { shardKeys } from '../../src/redis/sharded-boards.js';
import { reconcileSeason } from '../../src/service/reconcile-season.js';
import { testEnv } from '../support/env.js';
import { generateResults, toRecords } from '../support/generate.js';
import { startPrivateCluster } from '../support/redis-cluster.js';
import {
  createSeason,
  createTopics,
  openServices,
  produceRaw,
  waitFor,
  waitUntilCaughtUp,
  type Services,
} from '../support/services.js';

// Issue 11, part 5: a master of the cluster killed during ingest. Its replica had stopped taking
// the replication stream (SIGSTOP, link dropped), so the master acknowledged writes no other node holds:
// they are lost with it. The replica is promoted, ingest fails its steps meanwhile and retries
// them, then goes on; reconcile reports the lost writes as drift and repairs them from PostgreSQL.
// A cluster of its own (ports 7100-7105, 1 s node timeout): killing a node of the shared one would
// break the test files using it meanwhile.
const TTL = 90 * 24 * 3600;
let cluster: Awaited<ReturnType<typeof startPrivateCluster>>;
let s: Services;
let ingest: ReturnType<typeof buildApp> | undefined;
let stopped: number | undefined;
beforeAll(async () => {
  cluster = await startPrivateCluster(7100, 1_000);
});
afterAll(async () => {
  if (stopped) process.kill(stopped, 'SIGCONT');
  await ingest?.stop();
  await s?.close();
  await cluster?.down();
});

/** A node's redis-server process id, role and (a replica) whether its link to its master is up. */
async function node(port: number): Promise<{ pid: number; role: string; linkUp: boolean }> {
  const conn = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    const info = await conn.info();
    return {
      pid: Number(/process_id:(\d+)/.exec(info)![1]),
      role: /role:(\w+)/.exec(info)![1]!,
      linkUp: info.includes('master_link_status:up'),
    };
  } finally {
    conn.disconnect();
  }
}

it('a master killed during ingest: its replica takes over, ingest resumes, reconcile finds and repairs the lost writes', async () => {
  const env = testEnv({ REDIS_CLUSTER_NODES: cluster.nodes });
  const config = parseConfig(env);
  s = openServices(config);
  await createTopics(s.kafka, config);
  // Ingest's failed steps are counted from its log.
  let failedSteps = 0;
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void (failedSteps += +line.includes('ingest step failed')) },
  );
  ingest = buildApp(config, { roles: ['ingest'], logger });
  await ingest.start();

  const season = await createSeason(s, { name: 'failover', maxPointsPerMatch: 1_000, shardBounds: [20, 40] });
  const send = (seed: number, maxPoints: number) =>
    produceRaw(
      s.kafka,
      config.kafka.topic,
      toRecords(generateResults(season, { results: 600, players: 150, seed, maxPoints })),
    );
  await send(1, 60);
  await waitUntilCaughtUp(s, 'the first results', 30_000);

  // The master of the best shard, and its replica.
  const slot = slotOfTag(season.shards!.tags.at(-1)!);
  const ranges = () => s.redis.cluster('SLOTS');
  // A new cluster lists a replica once it joined its master: wait for it, and for its sync.
  let range = (await ranges()).find(([from, to]) => slot >= from && slot <= to)!;
  await waitFor('the replica listed and in sync', async () => {
    range = (await ranges()).find(([from, to]) => slot >= from && slot <= to)!;
    return range[3] !== undefined && (await node(Number(range[3][1]))).linkUp;
  });
  const [master, replica] = [Number(range[2]![1]), Number(range[3]![1])];
  const victim = await node(master);
  const heir = await node(replica);
  // The replica may take over however long it lagged (its data is what the test wants lost).
  const heirConn = new Redis({ port: replica });
  await heirConn.config('SET', 'cluster-replica-validity-factor', '0');
  heirConn.disconnect();
  process.kill((stopped = heir.pid), 'SIGSTOP');
  // And the master drops its link: what it streamed from now on would otherwise wait in the
  // stopped replica's socket buffer and reach it when it resumes.
  const masterConn = new Redis({ port: master });
  await masterConn.client('KILL', 'TYPE', 'replica');
  masterConn.disconnect();
  // Results only the master acknowledges: higher points than before, most of them on its shard.
  await send(2, 100);
  await waitUntilCaughtUp(s, 'results written to the master alone', 30_000);

  process.kill(victim.pid, 'SIGKILL');
  // Produced while the master is dead and its replica still stopped, so that nothing can take
  // over yet: ingest fails its steps (and retries them) until the replica is promoted, then
  // applies every result.
  await send(3, 60);
  await waitFor('ingest failing its steps', async () => failedSteps > 0, 30_000);
  process.kill(heir.pid, 'SIGCONT');
  stopped = undefined;
  await waitFor('the replica promoted', async () => (await node(replica)).role === 'master', 20_000);
  await waitUntilCaughtUp(s, 'the results sent during the failover', 40_000);
  const [stored] = await s.pg.sql`select count(*)::int as n from match_results where season_id = ${season.id}`;
  expect(stored!.n).toBe(1_800);

  const deps = {
    standings: createStandingsPages(s.pg.sql),
    boards: createBoardInspector(s.redis, TTL),
    codecOf,
    isFinalized: async () => false,
    expireAt: (b: Board) => boardExpireAt(b, TTL),
    now: Date.now,
  };
  const found = await reconcileSeason(deps, season);
  const drift = found.total.missing + found.total.different + found.total.extra;
  expect(drift).toBeGreaterThan(0);
  const repaired = await reconcileSeason(deps, season, { repair: true });
  expect(repaired.total.repaired).toBeGreaterThanOrEqual(drift);
  const after = await reconcileSeason(deps, season);
  expect(after.total).toMatchObject({ missing: 0, different: 0, extra: 0 });
  // PostgreSQL's SEASON standings, each member on exactly one shard.
  const keys = shardKeys(seasonBoard(season as Season & { shards: NonNullable<Season['shards']> }));
  const members = (await Promise.all(keys.map((k) => s.redis.zrange(k, 0, -1)))).flat();
  const [pg] = await s.pg
    .sql`select count(*)::int as n from standings where season_id = ${season.id} and "window" = 'SEASON'`;
  expect(new Set(members).size).toBe(members.length);
  expect(members.length).toBe(pg!.n);
  // The repair counted the kept shard sizes again, whatever the failover brought back.
  const sizes = await Promise.all(keys.map((k) => s.redis.zcard(k)));
  expect(await s.redis.get(shardSizesKey(season.id, 'SEASON'))).toBe(sizes.join(','));
}, 90_000);
