// Backup and restore (docs/reliability.md#backup-and-restore), end to end: two seasons' results
// through the real path (API, Kafka, ingest, PostgreSQL and Redis), with rank snapshots, a removed,
// a partly removed and a blocked player and a closed season; every read the GraphQL API offers
// recorded; then the real scripts: scripts/backup.sh, scripts/restore.sh into an empty database,
// Redis rebuilt from the restored database with the CLI command restore.sh prints, into an empty
// Redis database; the API served from the restored database reads everything again. Every read,
// every table's rows, the partitions, functions, indexes, sequences and the migration journal
// must be equal.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureDatabase } from '../../scripts/ensure-database.js';
import type { Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createRankSnapshots } from '../../src/postgres/rank-snapshots.js';
import { takeDueSnapshots } from '../../src/service/rank-history.js';
import { startApi, type TestApi } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { TEST_DATABASE_URL, testEnv, uniqueName } from '../support/env.js';
import { privateDatabase } from '../support/faults.js';
import { generateResults } from '../support/generate.js';
import { startRedisServer } from '../support/redis-server.js';
import { boardContents, boardKeys, waitFor, waitUntilCaughtUp } from '../support/services.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const DAY = 86_400_000;

/** The same knobs on both sides: reads unthrottled, whole boards with their rank history in one read. */
const KNOBS = {
  BLOCKED_PLAYERS_CACHE_MS: '0', // a removal's settle pass 1 s after it
  RATE_LIMIT_READS_PER_SEC: '100000',
  RATE_LIMIT_READS_BURST: '100000',
  GRAPHQL_MAX_COST: '10000000',
};

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let source: TestApi | undefined;
let restored: TestApi | undefined;
let dir: string | undefined;

beforeAll(async () => {
  redisServer = await startRedisServer();
  dir = await mkdtemp(path.join(tmpdir(), 'ladder-backup-'));
});
afterAll(async () => {
  await restored?.close();
  await source?.close();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
const SEASON_FIELDS =
  'fragment S on Season { id name startsAt endsAt status scoring order rankStyle maxPointsPerMatch shards shardBounds }';
const ENTRY_FIELDS = 'fragment E on Entry { rank playerId points achievedAt player { id displayName } rankDelta }';

type Gql = TestApi['gql'];

/** A GraphQL call that must succeed: its data. */
async function ok(gql: Gql, query: string, variables?: Record<string, unknown>, key?: string) {
  const res = await gql(query, variables, key);
  expect(res.errors, query).toBeUndefined();
  return res.data!;
}

/** The results as game servers send them: one submission per match, some players with a name. */
function submissions(results: readonly MatchResultMessage[]) {
  const byMatch = new Map<string, MatchResultMessage[]>();
  for (const r of results) byMatch.set(r.matchId, [...(byMatch.get(r.matchId) ?? []), r]);
  return [...byMatch.values()].map((rs) => ({
    matchId: rs[0]!.matchId,
    seasonId: rs[0]!.seasonId,
    endedAt: rs[0]!.endedAt,
    results: rs.map((r) => ({
      playerId: r.playerId,
      points: r.points,
      ...(Number(r.playerId) % 5 === 0
        ? { displayName: Number(r.playerId) % 2 ? `Zoë ${r.playerId}` : `P${r.playerId}` }
        : {}),
    })),
  }));
}

type Submission = ReturnType<typeof submissions>[number];

/**
 * One submission as a game server sends it: an UNAVAILABLE answer (the claim missed its
 * DATABASE_TIMEOUT_MS deadline on a loaded machine) is retried with the same matchId, as its
 * message says; any other error fails the test.
 */
async function submitOne(api: TestApi, key: string, input: Submission) {
  for (let attempt = 1; ; attempt++) {
    const res = await api.gql(SUBMIT, { input }, key);
    const unavailable = res.errors?.length === 1 && res.errors[0]!.extensions?.code === 'UNAVAILABLE';
    if (!unavailable || attempt === 5) {
      expect(res.errors, SUBMIT).toBeUndefined();
      return res.data!;
    }
    await new Promise((r) => setTimeout(r, 200 * attempt)); // the retry's backoff
  }
}

async function submitAll(api: TestApi, key: string, matches: readonly Submission[]): Promise<void> {
  for (let i = 0; i < matches.length; i += 20) {
    await Promise.all(
      matches.slice(i, i + 20).map(async (input) => {
        const data = await submitOne(api, key, input);
        expect(data.submitMatchResult.accepted).toBe(input.results.length);
      }),
    );
  }
  await waitUntilCaughtUp(api.s, 'ingest to apply every submission');
}

async function createSeason(api: TestApi, admin: string, scoring: 'BEST' | 'SUM', rankStyle: string): Promise<Season> {
  const now = Math.floor(Date.now() / 1000) * 1000;
  const data = await ok(
    api.gql,
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: `backup ${scoring} ${rankStyle}`,
        startsAt: new Date(now - 10 * DAY).toISOString(),
        endsAt: new Date(now + 20 * DAY).toISOString(),
        scoring,
        rankStyle,
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  return (await api.s.seasons.get(data.createSeason.id))!;
}

/** What the reads ask: the seasons, and per season its boards (every day and week with results) and players. */
interface ReadPlan {
  seasons: Array<{ id: number; days: string[]; weeks: string[]; probe: string[]; friends: string[] }>;
}

function planFor(seasonId: number, results: readonly MatchResultMessage[], special: string[]) {
  const days = [...new Set(results.map((r) => r.endedAt.slice(0, 10)))].sort();
  // One instant in each ISO week (its Monday): a WEEK board per week.
  const weeks = [
    ...new Set(
      days.map((d) => {
        const t = Date.parse(`${d}T00:00:00Z`);
        return new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
      }),
    ),
  ];
  const ids = [...new Set(results.map((r) => r.playerId))].sort((a, b) => Number(a) - Number(b));
  const at = (q: number) => ids[Math.min(ids.length - 1, Math.floor(q * ids.length))]!;
  const probe = [...new Set([at(0), at(0.01), at(0.3), at(0.5), at(0.8), at(1), ...special, '999999999'])];
  const friends = [...ids.filter((_, i) => i % 4 === 0), ...special, '999999998'];
  return {
    id: seasonId,
    days: days.map((d) => `${d}T12:00:00.000Z`),
    weeks: weeks.map((d) => `${d}T12:00:00.000Z`),
    probe,
    friends,
  };
}

/** Every read of the plan, in order, as [what, answer]. */
async function readEverything(gql: Gql, plan: ReadPlan): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  const read = async (what: string, query: string, variables?: Record<string, unknown>) =>
    out.push([what, await ok(gql, query, variables)]);
  await read(
    'seasons',
    `{ seasons { ...S } active: seasons(status: ACTIVE) { id } closed: seasons(status: CLOSED) { id } } ${SEASON_FIELDS}`,
  );
  for (const s of plan.seasons) {
    await read(
      `season ${s.id}`,
      `query($id: Int!) { season(id: $id) { ...S leaderboard { window periodStart size top(limit: 5) { ...E } } } }
       ${SEASON_FIELDS} ${ENTRY_FIELDS}`,
      { id: s.id },
    );
    const boards = [
      { window: 'SEASON', at: null },
      ...s.days.map((at) => ({ window: 'DAY', at })),
      ...s.weeks.map((at) => ({ window: 'WEEK', at })),
    ];
    for (const { window, at } of boards) {
      const vars = { s: s.id, w: window, at };
      const what = `season ${s.id} ${window} ${at ?? ''}`;
      const head = 'query($s: Int!, $w: Window!, $at: DateTime';
      await read(
        `${what}: board`,
        `${head}) { leaderboard(seasonId: $s, window: $w, at: $at) { window periodStart size season { id }
           top(limit: 1000) { ...E rankHistory(last: 90) { at rank takenAt } } } } ${ENTRY_FIELDS}`,
        vars,
      );
      await read(
        `${what}: page`,
        `${head}) { leaderboard(seasonId: $s, window: $w, at: $at) { top(limit: 10, offset: 20) { ...E } } } ${ENTRY_FIELDS}`,
        vars,
      );
      const entries = s.probe.map((_, i) => `e${i}: entry(playerId: $p${i}) { ...E }`).join(' ');
      await read(
        `${what}: entries`,
        `${head}, ${s.probe.map((_, i) => `$p${i}: ID!`).join(', ')}) {
           leaderboard(seasonId: $s, window: $w, at: $at) { ${entries} } } ${ENTRY_FIELDS}`,
        { ...vars, ...Object.fromEntries(s.probe.map((p, i) => [`p${i}`, p])) },
      );
      await read(
        `${what}: around, friends`,
        `${head}, $a: ID!, $b: ID!, $c: ID!, $d: ID!, $f: [ID!]!) { leaderboard(seasonId: $s, window: $w, at: $at) {
           a: around(playerId: $a, radius: 5) { ...E } b: around(playerId: $b, radius: 0) { ...E }
           c: around(playerId: $c, radius: 50) { ...E } d: around(playerId: $d) { ...E }
           friends(playerIds: $f) { ...E } } } ${ENTRY_FIELDS}`,
        { ...vars, a: s.probe[3], b: s.probe[0], c: s.probe[5], d: s.probe[6] ?? s.probe.at(-1), f: s.friends },
      );
    }
  }
  return out;
}

/** Every board key of the seasons with its members, scores and expiry. */
async function redisBoards(url: string, seasonIds: number[]) {
  const redis = new Redis(url);
  try {
    const out: Array<{ key: string; entries: Array<[string, string]>; expires: number }> = [];
    for (const id of seasonIds)
      for (const key of await boardKeys(redis, id))
        out.push({ key, entries: await boardContents(redis, key), expires: await redis.pexpiretime(key) });
    return out;
  } finally {
    redis.disconnect();
  }
}

/** The database as a restore must bring it back: rows of every table, partitions, and the schema's objects. */
async function fingerprint(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<Array<{ schema: string; name: string }>>`
      select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'drizzle') and c.relkind = 'r' order by 1, 2`;
    const rows: Record<string, { rows: number; md5: string }> = {};
    for (const t of tables) {
      const [r] = await sql.unsafe<[{ rows: number; md5: string }]>(
        `select count(*)::int as rows, coalesce(md5(string_agg(t::text, E'\\n' order by t::text)), '') as md5
         from "${t.schema}"."${t.name}" t`,
      );
      rows[`${t.schema}.${t.name}`] = r;
    }
    const [matchResults] = await sql<[{ rows: number; partitions: number; seasons: number }]>`
      select (select count(*)::int from match_results) as rows,
             (select count(*)::int from pg_partition_tree('match_results') where isleaf) as partitions,
             (select count(*)::int from pg_partition_tree('match_results') where not isleaf and level = 1) as seasons`;
    const perPartition = await sql`
      select t.relid::text as partition, t.parentrelid::text as parent, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_partition_tree('match_results') t join pg_class c on c.oid = t.relid where t.level > 0
      union all
      select t.relid::text, t.parentrelid::text, pg_get_expr(c.relpartbound, c.oid)
      from pg_partition_tree('match_claims') t join pg_class c on c.oid = t.relid where t.level > 0
      order by 1`;
    const indexes = await sql`
      select tablename, indexname, indexdef from pg_indexes where schemaname in ('public', 'drizzle') order by 2`;
    const constraints = await sql`
      select conrelid::regclass::text as "table", conname, pg_get_constraintdef(oid) as def
      from pg_constraint where connamespace in ('public'::regnamespace, 'drizzle'::regnamespace) order by 1, 2`;
    const functions = await sql`
      select proname, pg_get_functiondef(oid) as def from pg_proc where pronamespace = 'public'::regnamespace order by 1`;
    const sequences = await sql`
      select schemaname, sequencename, last_value::text from pg_sequences where schemaname in ('public', 'drizzle') order by 2`;
    const types = await sql`
      select t.typname, array_agg(e.enumlabel order by e.enumsortorder)::text as labels
      from pg_type t join pg_enum e on e.enumtypid = t.oid group by 1 order by 1`;
    return { rows, matchResults, perPartition, indexes, constraints, functions, sequences, types };
  } finally {
    await sql.end();
  }
}

it('a backup restored into an empty database, Redis rebuilt from it: every read, row and partition as before', async () => {
  const t0 = Date.now();
  // ---- The source: a private database (its seasons' ids start at 1) and Redis database 0 of a
  // private redis-server (the shared one holds ladder_test's seasons of the same ids).
  const sourceDb = await privateDatabase();
  // The source's log lines of the removals' settle passes, which run in the background; its
  // errors printed, as the test logger prints them.
  const settles: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const { level, msg } = JSON.parse(chunk.toString()) as { level: number; msg: string };
      if (msg.startsWith('removal settle')) settles.push(msg);
      if (level >= 50) process.stdout.write(chunk);
      done();
    },
  });
  source = await startApi(
    { ...KNOBS, DATABASE_URL: sourceDb.url, REDIS_URL: `${redisServer.url}/0` },
    { logger: pino({ level: 'info' }, sink) },
  );
  const admin = await source.key('admin');
  const submitter = await source.key('submit');

  const best = await createSeason(source, admin, 'BEST', 'ORDINAL');
  const sum = await createSeason(source, admin, 'SUM', 'COMPETITION');
  const bestResults = generateResults(best, { results: 600, players: 150, seed: 61 });
  const sumResults = generateResults(sum, { results: 150, players: 40, seed: 62 });
  const matches = submissions(bestResults);
  const third = Math.ceil(matches.length / 3);

  // Three rounds with a rank snapshot after each of the first two (yesterday's and today's
  // midnight, as the scheduler takes them): rank history and deltas to restore.
  const snapshots = createRankSnapshots(source.s.pg.sql);
  const midnight = Math.floor(Date.now() / DAY) * DAY;
  await submitAll(source, submitter, matches.slice(0, third));
  expect(await takeDueSnapshots(snapshots, [best], new Date(midnight - DAY + 3_600_000))).toHaveLength(1);
  await submitAll(source, submitter, matches.slice(third, 2 * third));
  expect(await takeDueSnapshots(snapshots, [best], new Date(Date.now()))).toHaveLength(1);
  // The last round, with five matches sent twice (a game server's retries: stored once).
  await submitAll(source, submitter, [...matches.slice(2 * third), ...matches.slice(0, 5)]);

  // A cheater removed and blocked, one match of another player removed, a third player blocked.
  const count = new Map<string, number>();
  for (const r of bestResults) count.set(r.playerId, (count.get(r.playerId) ?? 0) + 1);
  const [removed, partly, blocked] = [...count].filter(([, n]) => n >= 3).map(([id]) => id) as [string, string, string];
  const partlyMatch = bestResults.find((r) => r.playerId === partly)!.matchId;
  const REMOVE = `mutation($input: RemovePlayerResultsInput!) { removePlayerResults(input: $input) { removedResults } }`;
  const all = await ok(
    source.gql,
    REMOVE,
    { input: { seasonId: best.id, playerId: removed, reason: 'aimbot', block: true } },
    admin,
  );
  expect(all.removePlayerResults.removedResults).toBe(count.get(removed));
  const one = await ok(
    source.gql,
    REMOVE,
    { input: { seasonId: best.id, playerId: partly, matchId: partlyMatch, reason: 'forged' } },
    admin,
  );
  expect(one.removePlayerResults.removedResults).toBe(1);
  await ok(
    source.gql,
    'mutation($input: PlayerBlockInput!) { blockPlayer(input: $input) { blocked } }',
    { input: { seasonId: best.id, playerId: blocked, reason: 'ticket 42' } },
    admin,
  );
  await waitFor('the settle passes of both removals', async () => settles.length >= 2, 10_000);
  expect(settles.filter((m) => m.includes('failed'))).toEqual([]);
  // The second season: results, then closed (final standings in PostgreSQL, its boards gone).
  await submitAll(source, submitter, submissions(sumResults));
  await ok(source.gql, 'mutation($id: Int!) { closeSeason(id: $id) { id } }', { id: sum.id }, admin);

  // Before anything is backed up, Redis agrees with PostgreSQL: the comparison below tests the
  // restore, not a drift that was there before it.
  const drift = await ok(
    source.gql,
    'mutation($s: Int!) { reconcileLeaderboard(seasonId: $s) { total { missing extra different } } }',
    { s: best.id },
    admin,
  );
  expect(drift.reconcileLeaderboard.total).toEqual({ missing: 0, extra: 0, different: 0 });

  const plan: ReadPlan = {
    seasons: [planFor(best.id, bestResults, [removed, partly, blocked]), planFor(sum.id, sumResults, [])],
  };
  const before = await readEverything(source.gql, plan);
  const boardsBefore = await redisBoards(`${redisServer.url}/0`, [best.id, sum.id]);
  // Not trivially equal: full boards on every window, rank history with movement.
  const boards = before.filter(([what]) => what.endsWith(': board'));
  const ranked = (a: unknown) => (a as { leaderboard: { size: number } }).leaderboard.size;
  const seasonBoard = before.find(([what]) => what === `season ${best.id} SEASON : board`)![1] as {
    leaderboard: { size: number; top: Array<{ rankDelta: number | null; rankHistory: unknown[] }> };
  };
  expect(seasonBoard.leaderboard.size).toBeGreaterThan(100);
  expect(seasonBoard.leaderboard.top.some((e) => e.rankHistory.length === 2)).toBe(true);
  expect(seasonBoard.leaderboard.top.some((e) => (e.rankDelta ?? 0) !== 0)).toBe(true);
  expect(boards.filter(([what, a]) => what.includes(' DAY ') && ranked(a) > 0).length).toBeGreaterThanOrEqual(8);
  expect(boards.filter(([what, a]) => what.includes(' WEEK ') && ranked(a) > 0).length).toBeGreaterThanOrEqual(2);
  const tReads = Date.now();

  // ---- Backup, with the service running, as an operator runs it.
  const file = path.join(dir!, 'ladder.dump');
  const backup = await run('bash', ['scripts/backup.sh', file], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: sourceDb.url },
  });
  expect(backup.stdout).toMatch(/^ {2}size {6}[\d.]+\w*B \(\d+ bytes\)$/m);
  expect(backup.stdout).toMatch(/^ {2}time {6}\d+\.\d{3} s$/m);
  expect(backup.stdout).toMatch(/partitions attached, 4 ladder_\* functions, the migration journal$/m);
  const sourcePrint = await fingerprint(sourceDb.url);
  // Each accepted result once: the retried matches stored once, the removed results gone.
  expect(sourcePrint.matchResults.rows).toBe(bestResults.length - count.get(removed)! - 1 + sumResults.length);
  await source.close();
  source = undefined;

  // ---- Restore into an empty database (a ladder_faults_* name: the next run's global setup drops it).
  const target = Object.assign(new URL(TEST_DATABASE_URL), {
    pathname: `/${uniqueName('ladder_faults').replace('-', '_')}`,
  }).toString();
  await ensureDatabase(target);
  const restore = await run('bash', ['scripts/restore.sh', file, target], { cwd: root });
  const migrations = JSON.parse(readFileSync(path.join(root, 'drizzle/meta/_journal.json'), 'utf8')) as { entries: [] };
  expect(restore.stdout).toContain(`migrations     ${migrations.entries.length} in the journal`);
  const rebuildLine = `npm run cli -- rebuild --season ${best.id}\n`;
  expect(restore.stdout).toContain(rebuildLine);
  expect(restore.stdout).not.toContain(`--season ${sum.id}\n`); // final: read from PostgreSQL
  // Restoring twice into the same database is refused: it is not empty any more.
  await expect(run('bash', ['scripts/restore.sh', file, target], { cwd: root })).rejects.toMatchObject({
    stderr: expect.stringContaining('is not empty'),
  });

  const restoredPrint = await fingerprint(target);
  expect(restoredPrint.matchResults).toEqual(sourcePrint.matchResults);
  const partitions = (print: typeof sourcePrint) =>
    Object.entries(print.rows).filter(([table]) => table.startsWith('public.match_results_'));
  expect(partitions(restoredPrint)).toEqual(partitions(sourcePrint));
  expect(restoredPrint).toEqual(sourcePrint);

  // ---- Redis: an empty database of the same server; rebuilt by the command restore.sh printed.
  const afterRedis = `${redisServer.url}/1`;
  expect(await redisBoards(afterRedis, [best.id, sum.id])).toEqual([]);
  const env = testEnv({ DATABASE_URL: target, REDIS_URL: afterRedis });
  const rebuild = await runCli(env, ...rebuildLine.trim().split(' ').slice(4));
  expect(rebuild.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([]);
  expect(rebuild.code).toBe(0);
  expect(await redisBoards(afterRedis, [best.id, sum.id])).toEqual(boardsBefore);

  // ---- The API from the restored database: its start-up migration finds nothing to do.
  restored = await startApi({ ...KNOBS, DATABASE_URL: target, REDIS_URL: afterRedis });
  const after = await readEverything(restored.gql, plan);
  expect(after).toEqual(before);
  const journal = await fingerprint(target);
  expect(journal.rows['drizzle.__drizzle_migrations']).toEqual(sourcePrint.rows['drizzle.__drizzle_migrations']);

  // Blocks came back (refused at the API), and so did the sequences (a new season takes the next id).
  const refused = await restored.gql(
    SUBMIT,
    {
      input: {
        matchId: randomUUID(),
        seasonId: best.id,
        endedAt: new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString(),
        results: [{ playerId: blocked, points: 1 }],
      },
    },
    await restored.key('submit'),
  );
  expect(refused.errors?.[0]?.extensions?.code).toBe('PLAYER_BLOCKED');
  const next = await createSeason(restored, await restored.key('admin'), 'BEST', 'ORDINAL');
  expect(next.id).toBe(sum.id + 1);

  console.log(
    `[backup-restore] ${before.length} reads over ${boards.length} boards equal; ` +
      `${sourcePrint.matchResults.rows} results in ${sourcePrint.matchResults.partitions} day partitions, ` +
      `${Object.keys(sourcePrint.rows).length} tables equal; ${boardsBefore.length} Redis boards rebuilt equal; ` +
      `setup and reads ${tReads - t0} ms, backup to compared ${Date.now() - tReads} ms\n${backup.stdout}`,
  );
}, 120_000);
