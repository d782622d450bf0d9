// The README's first command: `npm run demo` brings up a live ladder with simulated game servers.
// Runs scripts/demo.ts as a real child process and reads its leaderboard over HTTP.
import { execFileSync } from 'node:child_process';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_KAFKA_BROKERS, testConfig, uniqueName } from './support/env.js';
import { freePort, freePortPair, request, spawnEntry, until, type Entry } from './support/process.js';
import { CLUSTER_NODES, ensureRedisCluster } from './support/redis-cluster.js';
import { startRedisServer } from './support/redis-server.js';
import { openServices, waitFor, type Services } from './support/services.js';

const DEMO_SEASONS = ['Demo season', 'Demo weekly total', 'Demo season (3 shards)'];

let s: Services;
let demo: Entry | undefined;
let redisServer: Awaited<ReturnType<typeof startRedisServer>> | undefined;

/**
 * The demo's league sprints in ladder_test (the cluster test's demo, whose scheduler is off) end
 * their series: a scheduler that closed one would otherwise create its successor.
 */
async function endSprintSeries(): Promise<void> {
  await s.pg.sql`update seasons set repeats = false where repeats and league->>'name' = 'demo-sprint'`;
}

/**
 * A new database for a demo whose scheduler runs: in ladder_test it would close every run's ended
 * seasons. Named for its start (ms), created and migrated by the demo; those of runs over an hour
 * old are dropped here (not by the global setup, which drops `ladder_faults_*` at any run's start,
 * a run going on beside it included).
 */
async function newDemoDatabase(): Promise<string> {
  const at = (name: string) => Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
  const admin = postgres(at('postgres'), { max: 1, onnotice: () => {} });
  try {
    const left = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like ${'ladder\\_demo\\_%'}`;
    for (const { datname } of left) {
      const started = Number(/^ladder_demo_(\d+)$/.exec(datname)?.[1]);
      if (Date.now() - started > 3600_000) await admin.unsafe(`drop database "${datname}" with (force)`);
    }
  } finally {
    await admin.end();
  }
  return at(`ladder_demo_${Date.now()}`);
}

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']); // as `npm run demo` does
  s = openServices(testConfig());
  // The demo reuses an active demo season; closing earlier runs' seasons in ladder_test (the
  // cluster test's database) makes it create fresh ones, so a non-empty board below proves this
  // run's matches went all the way through.
  for (const season of await s.seasons.list('ACTIVE')) {
    if (DEMO_SEASONS.includes(season.name) || season.league?.name === 'demo-sprint')
      await s.seasons.setStatus(season.id, 'CLOSED');
  }
  await endSprintSeries();
});

afterAll(async () => {
  demo?.kill();
  await endSprintSeries();
  await s?.close();
  await redisServer?.stop();
});

it('brings up a live demo whose leaderboard fills with named players, whose league sprint closes and goes on, then stops on its own', async () => {
  const port = await freePort();
  // The demo's scheduler runs (it closes the league sprint and creates the next): on a database and
  // a Redis of its own, as it would act on every season of ladder_test (and its season ids, from 1,
  // would meet ladder_test's boards in the shared Redis).
  const databaseUrl = await newDemoDatabase();
  redisServer = await startRedisServer();
  demo = spawnEntry('scripts/demo.ts', {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisServer.url,
    KAFKA_BROKERS: TEST_KAFKA_BROKERS,
    KAFKA_TOPIC: uniqueName('test-demo'),
    KAFKA_GROUP_ID: uniqueName('test-demo'),
    SEASON_SCHEDULER_INTERVAL_MS: '1000',
    // A close waits these out: a sprint season's close then takes about a second.
    SEASON_CACHE_TTL_MS: '250',
    SEASON_CLOSE_GRACE_MS: '250',
    PORT: String(port),
    DEMO_RATE: '20',
    DEMO_PLAYERS: '5000',
    // Sprint #1 ends 15 s after it starts (just before the banner); #2 gets matches about 5 s later.
    DEMO_LEAGUE_SECONDS: '15',
    DEMO_DURATION_S: '35',
  });
  const entry = demo;

  // Starting includes migrations and creating the Kafka topics.
  const printedUrl = await until(
    'the demo printed its URL',
    45_000,
    async () => /GraphiQL:\s+(http:\/\/localhost:\d+\/graphql)/.exec(entry.stdout)?.[1],
    entry,
  );
  expect(printedUrl).toBe(`http://localhost:${port}/graphql`);
  // The board page's URL comes first, before anything else in the banner.
  const banner = entry.stdout.slice(entry.stdout.indexOf('────'));
  const pageUrl = /^─+\n Open the live boards:\s+(http:\/\/localhost:\d+\/\?season=\d+&player=\d+)\n/.exec(banner)?.[1];
  expect(pageUrl, banner).toBeDefined();
  // Offline: the page and GraphiQL load nothing from elsewhere (no script or stylesheet URL off this server).
  const local = (url: string) => url.replace('localhost', '127.0.0.1');
  const page = await fetch(local(pageUrl!));
  expect(page.status).toBe(200);
  const graphiql = await (await fetch(local(printedUrl), { headers: { accept: 'text/html' } })).text();
  for (const html of [await page.text(), graphiql]) {
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="(https?:)?\/\//);
  }
  expect(graphiql).toContain('GraphiQL');
  expect(entry.stdout).toMatch(/submit \(used by the simulator\): ldr_[A-Za-z0-9_-]{43}\n/);
  expect(entry.stdout).toMatch(/admin \(.*\): ldr_[A-Za-z0-9_-]{43}\n/);
  expect(entry.stdout).toContain('subscription { topChanged(seasonId: ');

  // 127.0.0.1: the server listens on IPv4, and "localhost" may resolve to ::1 first.
  const gql = async (query: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const { seasons } = await gql('{ seasons(status: ACTIVE) { id name scoring rankStyle } }');
  const best = seasons.find((x: { name: string }) => x.name === 'Demo season');
  const sum = seasons.find((x: { name: string }) => x.name === 'Demo weekly total');
  expect(best).toMatchObject({ scoring: 'BEST', rankStyle: 'ORDINAL' });
  expect(sum).toMatchObject({ scoring: 'SUM', rankStyle: 'COMPETITION' });
  expect(entry.stdout).toContain(`leaderboard(seasonId: ${best.id})`);

  type Board = {
    size: number;
    top: Array<{ rank: number; points: number; player: { displayName: string | null } | null }>;
  };
  const board = await until(
    'ranked players with display names',
    15_000,
    async () => {
      const data = await gql(`{
      best: leaderboard(seasonId: ${best.id}) { size top(limit: 10) { rank points player { displayName } } }
      sum: leaderboard(seasonId: ${sum.id}) { size }
    }`);
      const b = data.best as Board;
      const named = b.top.length > 0 && b.top.every((e) => e.player?.displayName);
      return b.size > 0 && data.sum.size > 0 && named ? b : undefined;
    },
    entry,
  );
  expect(board.top.map((e) => e.rank)).toEqual(board.top.map((_, i) => i + 1));
  expect(board.top[0]!.player!.displayName).toMatch(/^[A-Z][a-z]+[A-Z][a-z]+\d+$/);
  // The banner's rank-history query answers as printed (gql throws on any error).
  const rankQuery = /\{ leaderboard\(seasonId: \d+\) \{ entry\(playerId: "\d+"\) \{ rank rankDelta rankHistory.*/.exec(
    entry.stdout,
  )?.[0];
  expect(rankQuery, entry.stdout).toBeDefined();
  expect(await gql(rankQuery!)).toHaveProperty('leaderboard.entry');
  // ...and its percentile and cut-off query: a percentile in (0, 100], the 100th place's points.
  const placeQuery = /\{ leaderboard\(seasonId: \d+\) \{ entry\(playerId: "\d+"\) \{ rank percentile \} cutoff.*/.exec(
    entry.stdout,
  )?.[0];
  expect(placeQuery, entry.stdout).toBeDefined();
  const placed = (await gql(placeQuery!)) as {
    leaderboard: { entry: { rank: number; percentile: number } | null; cutoff: { points: number } | null };
  };
  if (placed.leaderboard.entry) expect(placed.leaderboard.entry.percentile).toBeGreaterThan(0);
  if (placed.leaderboard.cutoff) expect(placed.leaderboard.cutoff.points).toBeGreaterThan(0);

  // ...and its rating board (LAST): ranked by the latest rating, the simulator's 0..3,000.
  const ratingQuery = /\{ leaderboard\(seasonId: \d+, board: "rating"\) .*/.exec(entry.stdout)?.[0];
  expect(ratingQuery, entry.stdout).toBeDefined();
  await waitFor('rated players', async () => {
    const { top } = (await gql(ratingQuery!)).leaderboard as { top: Array<{ rank: number; points: number }> };
    return (
      top.length > 0 &&
      top.every((e, i) => e.rank === i + 1 && e.points <= 3_000 && (i === 0 || e.points <= top[i - 1]!.points))
    );
  });

  // ...and its career board (per-key SUM): ranked by total wins, then total kills.
  const careerQuery = /\{ leaderboard\(seasonId: \d+, board: "career"\) .*/.exec(entry.stdout)?.[0];
  expect(careerQuery, entry.stdout).toBeDefined();
  await waitFor('careers', async () => {
    const { top } = (await gql(careerQuery!)).leaderboard as { top: Array<{ rank: number; keys: number[] }> };
    const sorted = top.every(
      (e, i) =>
        i === 0 ||
        e.keys[0]! < top[i - 1]!.keys[0]! ||
        (e.keys[0] === top[i - 1]!.keys[0] && e.keys[1]! <= top[i - 1]!.keys[1]!),
    );
    // Totals: some player has more kills than one match can give (50).
    return top.length > 0 && sorted && top.some((e) => e.keys[1]! > 50);
  });

  // ...and its country board: the simulated players live in regions, BR holds BR-SP and BR-RJ.
  const countryQuery = /\{ leaderboard\(seasonId: \d+, scope: \{ region: "BR" \}\) .*/.exec(entry.stdout)?.[0];
  expect(countryQuery, entry.stdout).toBeDefined();
  await waitFor('players in BR', async () => {
    const country = (await gql(countryQuery!)) as {
      leaderboard: { size: number; top: Array<{ rank: number; globalRank: number }> };
    };
    const { size, top } = country.leaderboard;
    return size > 0 && top.every((e, i) => e.rank === i + 1 && e.globalRank >= e.rank);
  });

  // ...and its moderation mutations, with the admin key it printed: the leader leaves the board, then comes back.
  const adminKey = /admin \(.*\): (ldr_[A-Za-z0-9_-]{43})\n/.exec(entry.stdout)![1]!;
  const moderation = [...entry.stdout.matchAll(/^ {3}(mutation \{ (?:hide|unhide)Player\(.*)$/gm)].map((m) => m[1]!);
  expect(moderation, entry.stdout).toHaveLength(2);
  const asAdmin = async (query: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const leader = (await gql(`{ leaderboard(seasonId: ${best.id}) { top(limit: 1) { playerId } } }`)).leaderboard.top[0]
    .playerId as string;
  // Entries, not the top: the simulator keeps playing, and someone may overtake the leader meanwhile.
  const ranked = async () =>
    (await gql(`{ leaderboard(seasonId: ${best.id}) { entry(playerId: "${leader}") { rank } } }`)).leaderboard.entry !==
    null;
  const [hide, unhide] = moderation.map((m) => m.replaceAll("<the leader's id>", leader));
  expect((await asAdmin(hide!)).hidePlayer.boardChanges).toBeGreaterThan(0);
  expect(await ranked()).toBe(false);
  expect((await asAdmin(unhide!)).unhidePlayer.boardChanges).toBeGreaterThan(0);
  expect(await ranked()).toBe(true);
  expect(entry.stdout).toMatch(/Admin console: {2}http:\/\/localhost:\d+\/console /);

  // ...and the league: the busy player sits in a Bronze cohort of at most 50 (everyone starts there).
  const leagueQuery = /\{ leagueStanding\(seasonId: \d+, playerId: "\d+"\) .*/.exec(entry.stdout)?.[0];
  expect(leagueQuery, entry.stdout).toBeDefined();
  await waitFor('the busy player placed in the league', async () => {
    const { leagueStanding } = (await gql(leagueQuery!)) as {
      leagueStanding: { tier: string; cohort: number; leaderboard: { top: unknown[] } } | null;
    };
    return leagueStanding?.tier === 'Bronze' && leagueStanding.leaderboard.top.length > 0;
  });

  // ...and the league sprint: its season closes at its end, the scheduler creates the next (its
  // previousSeasonId), and the demo moves the simulator there, saying what the close did.
  expect(entry.stdout).toMatch(/\d+ "Demo league sprint" {2}a league sprint of 15 s seasons/);
  const switched = await until(
    'the demo moved the simulator to sprint #2',
    40_000,
    async () =>
      /\[demo\] league sprint #2 started \(season (\d+)\); sprint #1 closed: (\d+) promoted, (\d+) relegated, (\d+) rewards\n/.exec(
        entry.stdout,
      ) ?? undefined,
    entry,
  );
  const [nextId, promoted, relegated, rewards] = switched.slice(1).map(Number) as [number, number, number, number];
  const { next } = await gql(
    `{ next: season(id: ${nextId}) { name repeats previousSeasonId league { name placement } } }`,
  );
  expect(next).toMatchObject({
    name: 'Demo league sprint #2',
    repeats: true,
    league: { name: 'demo-sprint', placement: 'RANK' },
  });
  const firstId = next.previousSeasonId as number;
  const { first } = await gql(`{ first: season(id: ${firstId}) { name status rewards { name per } } }`);
  expect(first).toMatchObject({ name: 'Demo league sprint', status: 'CLOSED' });
  expect(first.rewards).toEqual([
    { name: 'cohort_winner', per: 'COHORT' },
    { name: 'sprint_podium', per: null },
  ]);
  // The simulator's matches reach the successor.
  await waitFor(
    'players on sprint #2',
    async () => (await gql(`{ leaderboard(seasonId: ${nextId}) { size } }`)).leaderboard.size > 0,
  );
  // The close moved the best 3 of each cohort up: everyone started in Bronze, so nobody went down.
  type Move = { playerId: string; cohort: number; rank: number; fromTier: string; toTier: string; promoted: boolean };
  const moves = (await gql(`{ leagueMoves(seasonId: ${firstId}) { playerId cohort rank fromTier toTier promoted } }`))
    .leagueMoves as Move[];
  expect(moves.length).toBe(promoted);
  expect(promoted).toBeGreaterThan(0);
  expect(relegated).toBe(0);
  for (const m of moves) expect(m).toMatchObject({ fromTier: 'Bronze', toTier: 'Silver', promoted: true });
  expect(Math.max(...moves.map((m) => m.rank))).toBeLessThanOrEqual(3);
  // Rewards: each cohort's best (one each: ranks are ordinal) and the top 3 of the whole board.
  const cohorts = new Set(moves.map((m) => m.cohort));
  expect(rewards).toBe(cohorts.size + 3);
  const rewardsOf = async (playerId: string) =>
    (await gql(`{ rewards(playerId: "${playerId}", seasonId: ${firstId}) { rule rank } }`)).rewards as Array<{
      rule: string;
      rank: number;
    }>;
  const winner = moves.find((m) => m.rank === 1)!;
  expect(await rewardsOf(winner.playerId)).toContainEqual({ rule: 'cohort_winner', rank: 1 });
  const { leaderboard: podium } = await gql(
    `{ leaderboard(seasonId: ${firstId}) { top(limit: 3) { rank playerId } } }`,
  );
  for (const { rank, playerId } of podium.top as Array<{ rank: number; playerId: string }>)
    expect(await rewardsOf(playerId)).toContainEqual({ rule: 'sprint_podium', rank });
  // The banner's sprint queries answer as printed.
  const sprintQueries = /# the league sprint:.*\n((?: {3}\{.*\n){3})/.exec(entry.stdout)?.[1];
  expect(sprintQueries, entry.stdout).toBeDefined();
  for (const query of sprintQueries!.trim().split('\n')) await gql(query.trim());

  // DEMO_DURATION_S=35: the demo stops the simulator, then the service, and exits 0.
  expect((await entry.exited).code, `${entry.stdout}\n${entry.stderr}`).toBe(0);
  expect(entry.stdout).toMatch(/\[demo\] simulator: [1-9]\d* submissions accepted, 0 failed/);
  expect(entry.stdout).toContain('[demo] stopped');
  // It says what it leaves running and how to stop it: Kafka of `npm run stack:up`, or someone else's.
  expect(entry.stdout).toMatch(
    /\[demo\] stopped\n(\[demo\] left running for the next demo or `npm test`: Kafka on \S+ \(PID \d+\)\.\n\[demo\] to stop it: `npm run stack:down`|\[demo\] Kafka on \S+ was not started by `npm run stack:up`: left as it is)/,
  );
  expect(entry.stdout).toContain('[demo] PostgreSQL and Redis keep running');
}, 120_000);

it('on the Redis Cluster with DEMO_PROCESSES=2: a sharded demo season, two processes in one consumer group, the same board from both APIs', async () => {
  await ensureRedisCluster();
  const port = await freePortPair();
  const group = uniqueName('test-demo');
  demo = spawnEntry('scripts/demo.ts', {
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_CLUSTER_NODES: CLUSTER_NODES,
    KAFKA_BROKERS: TEST_KAFKA_BROKERS,
    KAFKA_TOPIC: uniqueName('test-demo'),
    KAFKA_GROUP_ID: group,
    SEASON_SCHEDULER_INTERVAL_MS: '0',
    PORT: String(port),
    DEMO_RATE: '20',
    DEMO_PROCESSES: '2',
    // From the banner, when the second process starts: its start (tsx, Kafka's group join) took up
    // to ~25 s in CI beside the rest of the suite, and the demo then stopped before it was ready.
    DEMO_DURATION_S: '45',
  });
  const entry = demo;
  await until(
    'the demo printed its banner',
    45_000,
    async () => (entry.stdout.includes('Processes: 2') ? true : undefined),
    entry,
  );
  expect(entry.stdout).toContain(`the others' GraphiQL: http://localhost:${port + 1}/graphql`);
  expect(entry.stdout).toContain(`Redis Cluster: ${CLUSTER_NODES}`);
  const gql = async (p: number, query: string) => {
    const res = await request(p, '/graphql', { method: 'POST', body: JSON.stringify({ query }) });
    return (JSON.parse(res.body) as { data: any }).data;
  };
  const { seasons } = await gql(port, '{ seasons(status: ACTIVE) { id name shards } }');
  const sharded = seasons.find((x: { name: string }) => x.name === 'Demo season (3 shards)');
  expect(sharded.shards).toBe(3);
  // Both APIs answer the same board, filled by the two processes' consumers (one group).
  const query = `{ leaderboard(seasonId: ${sharded.id}) { size top(limit: 20) { rank playerId } } }`;
  await until(
    'the second API ready, the board filled',
    40_000,
    async () =>
      (await request(port + 1, '/ready')).status === 200 && (await gql(port, query)).leaderboard.size > 0
        ? true
        : undefined,
    entry,
  );
  const admin = s.kafka.admin();
  await admin.connect();
  const { groups } = await admin.describeGroups([group]);
  await admin.disconnect();
  expect(groups[0]!.members).toHaveLength(2);
  // Matches keep coming (the size grows with every new player): the top, ordered by skill, holds
  // still between two reads most of the time.
  const top = `{ leaderboard(seasonId: ${sharded.id}) { top(limit: 20) { rank playerId points } } }`;
  await until(
    'both APIs show the same top',
    10_000,
    async () => {
      const [a, b] = [await gql(port, top), await gql(port + 1, top)];
      return JSON.stringify(a) === JSON.stringify(b) ? true : undefined;
    },
    entry,
  );

  expect((await entry.exited).code, `${entry.stdout}\n${entry.stderr}`).toBe(0);
  expect(entry.stdout).toMatch(/\[demo\] simulator: [1-9]\d* submissions accepted, 0 failed/);
  expect(entry.stdout).toContain('[demo] stopped');
  expect(entry.stdout).toContain(`the Redis Cluster (${CLUSTER_NODES} and their replicas)`);
  expect(entry.stdout).toContain('[demo] to stop it: `npm run stack:down`');
}, 120_000);
