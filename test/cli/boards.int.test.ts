// `rebuild` and `reconcile` as operators run them: real child processes, a private redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { Season } from '../../src/domain/season.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey, rebuildMarkerKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { applyResults } from '../../src/service/apply-results.js';
import { testConfig, testEnv } from '../support/env.js';
import { generateResults } from '../support/generate.js';
import { startRedisServer } from '../support/redis-server.js';
import { boardContents, boardKeys, createSeason, openServices, type Services } from '../support/services.js';

// Each child process starts tsx: seconds on an idle machine, tens of seconds on a busy one.
const CHILD_TIMEOUT = 120_000;
let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;
let season: Season;

const cli = (...args: string[]) => runCli(testEnv({ REDIS_URL: redisServer.url }), ...args);

async function snapshot(seasonId: number) {
  const keys = await boardKeys(s.redis, seasonId);
  return Promise.all(
    keys.map(async (key) => ({ key, entries: await boardContents(s.redis, key), ttl: await s.redis.pexpiretime(key) })),
  );
}

beforeAll(async () => {
  redisServer = await startRedisServer();
  s = openServices(testConfig({ REDIS_URL: redisServer.url }));
  season = await createSeason(s, { name: 'cli boards' });
  const accepted: AcceptedResult[] = generateResults(season, { results: 3_000, players: 1_000, seed: 95 }).map(
    (m, i) => ({ ...m, endedAt: new Date(m.endedAt), partition: 0, offset: String(i) }),
  );
  await applyResults(
    {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, s.config.windowTtlSeconds),
      seasonOf: () => season,
      now: Date.now,
    },
    accepted,
  );
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

describe('rebuild --season', () => {
  it(
    'restores every board from PostgreSQL with a progress bar on stderr and the report on stdout',
    async () => {
      const before = await snapshot(season.id);
      const [{ n }] = await s.pg.sql<
        [{ n: number }]
      >`select count(*)::int as n from standings where season_id = ${season.id}`;
      await s.redis.flushall();

      const run = await cli('rebuild', '--season', String(season.id));

      expect(run.code).toBe(0);
      const total = n.toLocaleString('en-US');
      expect(run.stderr).toMatch(new RegExp(`^\\rrebuild \\[[#-]{30}\\] [\\d,]+/${total} `));
      expect(run.stderr).toMatch(
        new RegExp(`\\rrebuild \\[#{30}\\] ${total}/${total}  100%  [\\d,]+/s  ETA 0s\\s*\\n$`),
      );
      expect(run.stdout).toMatch(new RegExp(`^season\\s+${season.id}$`, 'm'));
      expect(run.stdout).toMatch(new RegExp(`^boards rebuilt\\s+${before.length}$`, 'm'));
      expect(run.stdout).toMatch(new RegExp(`^members written\\s+${total}$`, 'm'));
      expect(await snapshot(season.id)).toEqual(before);
    },
    CHILD_TIMEOUT,
  );

  it(
    'exits 1 with a clear message while another rebuild of the season runs',
    async () => {
      await s.redis.set(rebuildMarkerKey(season.id), '1', 'PX', 30_000);
      try {
        const run = await cli('rebuild', '--season', String(season.id));
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`error: season ${season.id} is already being rebuilt (REBUILD_IN_PROGRESS)`);
        expect(run.stdout).toBe('');
      } finally {
        await s.redis.del(rebuildMarkerKey(season.id));
      }
    },
    CHILD_TIMEOUT,
  );
});

describe('reconcile --season', () => {
  it(
    'reports no drift, then exactly what was damaged, and --repair restores the boards',
    async () => {
      const before = await snapshot(season.id);
      const clean = await cli('reconcile', '--season', String(season.id), '--page-size', '50');
      expect(clean.code).toBe(0);
      expect(clean.stderr).toMatch(/\rreconcile \[#{30}\] [\d,]+\/[\d,]+ {2}100%/);
      expect(clean.stdout).toMatch(/^board\s+postgres\s+redis\s+missing\s+extra\s+different\s+repaired$/m);
      expect(clean.stdout).toMatch(new RegExp(`^season ${season.id}: no drift `, 'm'));

      const key = boardKey(seasonBoard(season));
      const [a, b] = await s.redis.zrange(key, 0, 1);
      await s.redis.zrem(key, a!);
      await s.redis.zadd(key, '12345', b!, '1', '990000001');
      const found = await cli('reconcile', '--season', String(season.id), '--page-size', '50');
      expect(found.code).toBe(0);
      expect(found.stdout).toMatch(/^SEASON\s+[\d,]+\s+[\d,]+\s+1\s+1\s+1\s+0$/m);
      expect(found.stdout).toContain(`missing (sample): ${a}\n`);
      expect(found.stdout).toContain('extra (sample): 990000001\n');
      expect(found.stdout).toContain(`different (sample): ${b}\n`);
      expect(found.stdout).toContain('drift: 3 entries (report only: run with --repair to fix)');

      const repaired = await cli('reconcile', '--season', String(season.id), '--repair');
      expect(repaired.stdout).toContain('drift: 3 entries, 3 repaired');
      expect(await snapshot(season.id)).toEqual(before);
    },
    3 * CHILD_TIMEOUT,
  );
});

describe('bad invocations', () => {
  it.concurrent.for<[string, number, string[], string]>([
    ['rebuild without --season', 2, ['rebuild'], '--season is required'],
    ['reconcile with a season that is no number', 2, ['reconcile', '--season', 'abc'], '--season must be an integer'],
    [
      'reconcile with a page size of 0',
      2,
      ['reconcile', '--season', '1', '--page-size', '0'],
      '--page-size must be an integer',
    ],
    ['rebuild of an unknown season', 1, ['rebuild', '--season', '999999999'], 'season 999999999 does not exist'],
    ['reconcile of an unknown season', 1, ['reconcile', '--season', '999999999'], 'season 999999999 does not exist'],
  ])('%s exits %i', { timeout: CHILD_TIMEOUT }, async ([, code, args, message], { expect }) => {
    const run = await cli(...args);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });
});
