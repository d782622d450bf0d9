// `npm run demo`: a live ladder on this machine in one process: migrations, three demo seasons,
// API keys, the API and ingest consumer, and simulated game servers submitting matches. Its
// banner leads with the live board page's URL (built by `npm run build:web` first).
//   DEMO_RATE=20 (matches/s)  DEMO_PLAYERS=5000  DEMO_DURATION_S=<unset: until Ctrl-C>
//   DEMO_PROCESSES=1: more starts that many ladder processes in all (API + ingest each, one
//   consumer group), the others on the ports after PORT. With REDIS_CLUSTER_NODES (`npm run
//   demo:cluster`) the demo season is split into 3 score-range shards over the cluster's masters.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp, type App } from '../src/app/app.js';
import { parseConfig, type Config } from '../src/config.js';
import { seasonsWithBoards } from '../src/domain/season.js';
import { createApiKeysRepo } from '../src/postgres/api-keys-repo.js';
import { createApiKey } from '../src/service/api-keys.js';
import { createSeason, listSeasons, newSeasonOf, type NewSeason, type SeasonStore } from '../src/service/seasons.js';
import { StartupError } from '../src/app/startup.js';
import { ensureDatabase } from './ensure-database.js';
import { regularPlayerId, startSimulator } from './simulator.js';

const DAY_MS = 24 * 3600 * 1000;

/** The demo's own knobs, checked before anything starts. */
function demoSettings(env: NodeJS.ProcessEnv) {
  const num = (name: string, fallback: number | undefined, ok: (n: number) => boolean) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!ok(n)) throw new Error(`${name}=${raw} is not valid`);
    return n;
  };
  return {
    rate: num('DEMO_RATE', 20, (n) => n > 0 && n <= 10_000)!,
    players: num('DEMO_PLAYERS', 5000, (n) => Number.isInteger(n) && n >= 2)!,
    durationS: num('DEMO_DURATION_S', undefined, (n) => n > 0),
    processes: num('DEMO_PROCESSES', 1, (n) => Number.isInteger(n) && n >= 1 && n <= 8)!,
  };
}

/** The active season with this name, or a new one: rerunning the demo keeps its board. */
async function ensureSeason(store: SeasonStore, def: NewSeason, now: Date) {
  // Seasons only: the rows of a season's further boards carry its name too.
  const active = seasonsWithBoards(await listSeasons(store, 'ACTIVE', now));
  return active.filter((s) => s.name === def.name).at(-1) ?? createSeason(store, def, now);
}

/**
 * Creates (or reuses) the three demo seasons: BEST/ORDINAL and SUM/COMPETITION, so both styles
 * show, and a battle royale of three boards (docs/design.md#boards): points, lap_time ascending,
 * and royale, ranked by wins, then kills, then who got there first; a league, with rewards.
 * On a Redis Cluster the first has 3 score-range shards: bounds that split the simulator's players
 * (points about (0.1 + 0.7 x skill)^2 x 10,000) into thirds.
 */
async function demoSeasons(app: App, sharded: boolean) {
  const now = new Date();
  // Whole seconds, so startsAt reads cleanly in GraphiQL.
  const start = new Date(Math.floor((now.getTime() - 3 * DAY_MS) / 1000) * 1000);
  const best = await ensureSeason(
    app.seasonsRepo,
    {
      name: sharded ? 'Demo season (3 shards)' : 'Demo season',
      startsAt: start,
      endsAt: new Date(start.getTime() + 30 * DAY_MS),
      scoring: 'BEST',
      order: 'DESC',
      rankStyle: 'ORDINAL',
      maxPointsPerMatch: 10_000,
      windows: ['SEASON', 'DAY', 'WEEK', 'MONTH'],
      ...(sharded ? { shards: { bounds: [1_000, 3_000] } } : {}),
    },
    now,
  );
  const sum = await ensureSeason(
    app.seasonsRepo,
    {
      name: 'Demo weekly total',
      startsAt: start,
      endsAt: new Date(start.getTime() + 7 * DAY_MS),
      scoring: 'SUM',
      order: 'DESC',
      rankStyle: 'COMPETITION',
      // As the demo season's: each simulated match counts in both (one submission, seasonIds).
      maxPointsPerMatch: 10_000,
      // The week itself is the season: a daily board beside it, turning over at 04:00 UTC.
      windows: ['SEASON', 'DAY'],
      resetOffsetMinutes: 240,
    },
    now,
  );
  const royale = await ensureSeason(
    app.seasonsRepo,
    newSeasonOf({
      name: 'Demo battle royale league',
      startsAt: start,
      endsAt: new Date(start.getTime() + 30 * DAY_MS),
      boards: [
        { name: 'points', maxValue: 10_000 },
        { name: 'lap_time', order: 'ASC', maxValue: 600_000 },
        {
          name: 'royale',
          keys: [
            { stat: 'wins', max: 1 },
            { stat: 'kills', max: 50 },
          ],
        },
      ],
      // A league (docs/design.md#leagues): cohorts of 50 per tier, the best 5 up and the worst 5
      // down at its close; and rewards its close grants (docs/design.md#rewards).
      league: {
        name: 'demo-arena',
        tiers: ['Bronze', 'Silver', 'Gold', 'Master'],
        cohortSize: 50,
        promote: 5,
        relegate: 5,
      },
      rewards: [
        { name: 'champion', fromRank: 1, reward: { title: 'Champion', gems: 1000 } },
        { name: 'top_ten_percent', topPercent: 10, reward: { chest: 'gold' } },
        { name: 'daily_best', window: 'DAY', fromRank: 1, toRank: 3, reward: { gems: 50 } },
      ],
    }),
    now,
  );
  return { best, sum, royale };
}

function banner(o: {
  page: string;
  url: string;
  bestId: number;
  sumId: number;
  royaleId: number;
  player: string;
  submitKey: string;
  adminKey: string;
  rate: number;
  players: number;
  durationS: number | undefined;
  others: string[];
  cluster: string | undefined;
}): string {
  const until = o.durationS ? `for ${o.durationS} s` : 'until you press Ctrl-C';
  const processes =
    o.others.length > 0
      ? `\n Processes: ${o.others.length + 1} (API + ingest each, one consumer group); the others' GraphiQL: ${o.others.join(' ')}`
      : '';
  const cluster = o.cluster ? `\n Redis Cluster: ${o.cluster} (the first season's 3 shards sit on its 3 masters)` : '';
  return `
──────────────────────────────────────────────────────────────────────────────
 Open the live boards:  ${o.page}
──────────────────────────────────────────────────────────────────────────────
 ladder demo is running ${until}. GraphiQL:  ${o.url}
 Both work offline: every asset is served by ladder itself.${processes}${cluster}

 Seasons:  ${o.bestId} "Demo season"        best match counts, ranks 1,2,3,4
           ${o.sumId} "Demo weekly total"   all matches add up, ties share a rank (1,2,2,4)
           ${o.royaleId} "Demo battle royale league"  three boards: points, lap_time (fastest first), royale (wins, then kills);
                                   a league (cohorts of 50, Bronze to Master) with rewards at its close and each day
 Simulated game servers: ${o.rate} matches/s among ${o.players} players, each match sent to all three seasons.
 Players live in 10 regions (BR-SP, US-CA, DE, JP, ...) and most are in one of 8 clans (wolves, ravens, ...).

 Paste into GraphiQL:

   # the top 10, with player names
   { leaderboard(seasonId: ${o.bestId}) { size top(limit: 10) { rank points player { displayName } } } }

   # the players around one player (this one plays a lot)
   { leaderboard(seasonId: ${o.bestId}) { around(playerId: "${o.player}", radius: 3) { rank playerId points player { displayName } } } }

   # their percentile ("top 0.4%"), and what the top 100 takes
   { leaderboard(seasonId: ${o.bestId}) { entry(playerId: "${o.player}") { rank percentile } cutoff(rank: 100) { points achievedAt } } }

   # their rank at each UTC midnight (the scheduler snapshots the season board then) and the places gained since
   { leaderboard(seasonId: ${o.bestId}) { entry(playerId: "${o.player}") { rank rankDelta rankHistory(last: 30) { at rank } } } }

   # a board of several keys: wins, then kills, then who got there first
   { leaderboard(seasonId: ${o.royaleId}, board: "royale") { top(limit: 5) { rank keys player { displayName } } } }

   # the same board within a country (players in BR-SP and BR-RJ) and within a clan, with each global rank
   { leaderboard(seasonId: ${o.bestId}, scope: { region: "BR" }) { size top(limit: 5) { rank globalRank player { displayName } } } }
   { leaderboard(seasonId: ${o.bestId}, scope: { group: "wolves" }) { top(limit: 5) { rank globalRank points } } }

   # the battle royale is a league: this player's tier, their cohort of 50 and their zone
   { leagueStanding(seasonId: ${o.royaleId}, playerId: "${o.player}") { tier cohort zone leaderboard { top(limit: 5) { rank player { displayName } } } } }

   # live: the top 5 of the weekly total, pushed as it changes (press ▶ and watch)
   subscription { topChanged(seasonId: ${o.sumId}, limit: 5) { rank playerId points } }

 API keys (shown once, only their hashes are stored):
   submit (used by the simulator): ${o.submitKey}
   admin (createSeason, closeSeason, rebuildLeaderboard): ${o.adminKey}
   GraphiQL → Headers: { "Authorization": "Bearer <key>" }
──────────────────────────────────────────────────────────────────────────────
`;
}

let config: Config;
let settings: ReturnType<typeof demoSettings>;
try {
  // The service's JSON logs (and kafkajs' start-up warnings) would bury the banner;
  // LOG_LEVEL=info brings them back.
  config = parseConfig({ LOG_LEVEL: 'error', ...process.env });
  settings = demoSettings(process.env);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

const say = (line: string) => console.log(line);
const app = buildApp(config, { roles: ['api', 'ingest'] });
let simulator: ReturnType<typeof startSimulator> | undefined;
const others: ChildProcess[] = [];

/** One more ladder process (API + ingest) on `port`, with the demo's database, Redis, topic and group. */
function startProcess(port: number): ChildProcess {
  const env = {
    ...process.env,
    LOG_LEVEL: config.logLevel,
    LADDER_ROLES: 'api,ingest',
    API_WORKERS: '1',
    PORT: String(port),
  };
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * What the demo leaves running, and how to stop it: the stack outlives it on purpose (the next demo
 * or `npm test` reuses it instead of waiting for Kafka again), but not silently.
 */
function leftRunning(): string[] {
  const brokers = config.kafka.brokers.join(',');
  let kafkaPid: number | undefined;
  try {
    const pid = Number(readFileSync(new URL('../.stack/kafka/kafka.pid', import.meta.url), 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && process.kill(pid, 0)) kafkaPid = pid; // kill 0: throws when gone
  } catch {
    // No broker of stack-up.sh: Kafka is someone else's (docker compose, another install).
  }
  const cluster = process.env.REDIS_CLUSTER_NODES;
  const ours = [
    ...(kafkaPid ? [`Kafka on ${brokers} (PID ${kafkaPid})`] : []),
    ...(cluster ? [`the Redis Cluster (${cluster} and their replicas)`] : []),
  ];
  return [
    ...(ours.length > 0
      ? [
          `[demo] left running for the next demo or \`npm test\`: ${ours.join(' and ')}.`,
          '[demo] to stop it: `npm run stack:down` (`npm run stack:down -- --purge` also deletes its data)',
        ]
      : []),
    ...(kafkaPid ? [] : [`[demo] Kafka on ${brokers} was not started by \`npm run stack:up\`: left as it is`]),
    "[demo] PostgreSQL and Redis keep running: the machine's services (`npm run stack:down` leaves them too)",
  ];
}

let stopping = false;
/** Simulator first (no submission hits a closing API), then the app; exits 0 when clean. */
async function shutdown(why: string, code = 0): Promise<never> {
  if (!stopping) {
    stopping = true;
    say(`[demo] ${why}: stopping the simulator, then the service`);
    // A hung close must not keep the terminal hostage.
    setTimeout(() => {
      console.error('[demo] did not stop within 30 s; exiting');
      process.exit(1);
    }, 30_000).unref();
    await simulator?.stop();
    const s = simulator?.stats();
    if (s) say(`[demo] simulator: ${s.accepted} submissions accepted, ${s.failed} failed, ${s.retried} retries`);
    await Promise.all(
      others.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      }),
    );
    await app.stop().catch((err: unknown) => {
      console.error(err);
      code = 1;
    });
    say('[demo] stopped');
    for (const line of leftRunning()) say(line);
    process.exit(code);
  }
  return new Promise<never>(() => {});
}
process.on('SIGINT', () => void shutdown('Ctrl-C'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  say(`[demo] database "${new URL(config.databaseUrl).pathname.slice(1)}": creating it if missing, then migrating`);
  await ensureDatabase(config.databaseUrl);
  say('[demo] starting the API and the ingest consumer (migrations, Kafka topics)');
  // The service's own "waiting for ..." lines are warnings, below the demo's log level: say them.
  await app.start({ onWaiting: (line) => say(`[demo] ${line}`) });
  const { best, sum, royale } = await demoSeasons(app, process.env.REDIS_CLUSTER_NODES !== undefined);
  const keys = createApiKeysRepo(app.pg.db);
  const submitKey = await createApiKey(keys, { name: 'demo simulator', scopes: ['submit'] });
  const adminKey = await createApiKey(keys, { name: 'demo admin', scopes: ['admin'] });
  // The port actually bound, so PORT=0 works too.
  const { port } = app.api!.server.server.address() as AddressInfo;
  simulator = startSimulator({
    url: `http://127.0.0.1:${port}/graphql`,
    apiKey: submitKey.key,
    seasonIds: [best.id, sum.id, royale.id],
    ratePerSec: settings.rate,
    players: settings.players,
    log: say,
  });
  await simulator.ready;
  const otherPorts = Array.from({ length: settings.processes - 1 }, (_, i) => port + 1 + i);
  if (otherPorts.length > 0)
    say(`[demo] starting ${otherPorts.length} more ladder process(es) on port(s) ${otherPorts.join(', ')}`);
  for (const p of otherPorts) others.push(startProcess(p));
  say(
    banner({
      page: `http://localhost:${port}/?season=${best.id}&player=${regularPlayerId(settings.players)}`,
      url: `http://localhost:${port}/graphql`,
      bestId: best.id,
      sumId: sum.id,
      royaleId: royale.id,
      player: regularPlayerId(settings.players),
      submitKey: submitKey.key,
      adminKey: adminKey.key,
      rate: settings.rate,
      players: settings.players,
      durationS: settings.durationS,
      others: otherPorts.map((p) => `http://localhost:${p}/graphql`),
      cluster: process.env.REDIS_CLUSTER_NODES,
    }),
  );
  if (settings.durationS) setTimeout(() => void shutdown(`${settings.durationS} s are up`), settings.durationS * 1000);
} catch (err) {
  // The message, not the stack: this is a newcomer's first command.
  const e = err as { message?: string; code?: string };
  console.error(`[demo] failed to start: ${e.message || e.code || String(err)}`);
  // A busy port or a bad setting is not a stack problem: the line above says what to change.
  if (!(err instanceof StartupError) || err.unavailable.length > 0) {
    console.error('[demo] is the stack up? `npm run stack:up` starts PostgreSQL, Redis and Kafka');
  }
  await shutdown('start failed', 1);
}
