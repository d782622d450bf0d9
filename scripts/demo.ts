// `npm run demo`: a live ladder on this machine in one process: migrations, four demo seasons (one
// a league sprint that closes and starts again every DEMO_LEAGUE_SECONDS: scripts/demo-seasons.ts),
// API keys, the API and ingest consumer, the season scheduler, and simulated game servers
// submitting matches. Its banner leads with the live board page's URL (built by `npm run build:web` first).
//   DEMO_RATE=20 (matches/s)  DEMO_PLAYERS=5000  DEMO_DURATION_S=<unset: until Ctrl-C>  DEMO_LEAGUE_SECONDS=300
//   DEMO_PROCESSES=1: more starts that many ladder processes in all (API + ingest each, one
//   consumer group), the others on the ports after PORT. With REDIS_CLUSTER_NODES (`npm run
//   demo:cluster`) the demo season is split into 3 score-range shards over the cluster's masters.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app/app.js';
import { parseConfig, type Config } from '../src/config.js';
import type { Season } from '../src/domain/season.js';
import { createApiKeysRepo } from '../src/postgres/api-keys-repo.js';
import { createApiKey } from '../src/service/api-keys.js';
import { StartupError } from '../src/app/startup.js';
import { demoSeasons, followSprint } from './demo-seasons.js';
import { ensureDatabase } from './ensure-database.js';
import { regularPlayerId, startSimulator } from './simulator.js';

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
    // The length of a new league sprint series' seasons (scripts/demo-seasons.ts).
    leagueSeconds: num('DEMO_LEAGUE_SECONDS', 300, (n) => Number.isInteger(n) && n >= 5 && n <= 7 * 24 * 3600)!,
  };
}

/** "5 min", "90 s": a sprint season's length. */
function lengthOf(season: Season): string {
  const seconds = Math.round((season.endsAt.getTime() - season.startsAt.getTime()) / 1000);
  return seconds >= 120 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** The banner's lines on the league sprint: its season, and queries on its moves, rewards and cohorts. */
function sprintBanner(o: { season: Season; pending: boolean; scheduling: boolean; player: string }) {
  const { id, name, follows } = o.season;
  const at = (d: Date) => `${d.toISOString().slice(11, 19)} UTC`;
  const state = o.pending
    ? `Season ${id} ended while the demo was down: the scheduler closes it and starts the next; the simulator follows.`
    : o.scheduling
      ? `Season ${id} closes at ${at(o.season.endsAt)}, then the scheduler starts the next (#2, #3, ...); the simulator follows.`
      : `Season ${id} closes at ${at(o.season.endsAt)}; SEASON_SCHEDULER_INTERVAL_MS=0: no scheduler here starts the next.`;
  // Who the last close moved: the season before this one's, or this one's once it closed.
  const moves = o.pending ? id : (follows ?? id);
  const closeOf =
    moves === id && !o.pending ? `season ${id}'s close (at ${at(o.season.endsAt)})` : `the close of season ${moves}`;
  return {
    season: `           ${id} "${name}"  a league sprint of ${lengthOf(o.season)} seasons, cohorts of 20 from Bronze to Master: at each
                                   close the best 3 of a cohort go up, the worst 3 down, and each cohort's best and the
                                   top 3 get rewards.
                                   ${state}`,
    queries: `   # the league sprint: who ${closeOf} moved up and down, this player's rewards, their sprint cohort
   { leagueMoves(seasonId: ${moves}) { playerId cohort rank fromTier toTier promoted } }
   { rewards(playerId: "${o.player}") { seasonId rule rank reward } }
   { leagueStanding(seasonId: ${id}, playerId: "${o.player}") { tier cohort zone leaderboard { top(limit: 3) { rank player { displayName } } } } }
`,
  };
}

function banner(o: {
  page: string;
  url: string;
  bestId: number;
  sumId: number;
  royaleId: number;
  sprint: { season: string; queries: string };
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
 Admin console:  ${o.url.replace(/\/graphql$/, '/console')}  (sign in with the admin key below)
 All of them work offline: every asset is served by ladder itself.${processes}${cluster}

 Seasons:  ${o.bestId} "Demo season"        best match counts, ranks 1,2,3,4
           ${o.sumId} "Demo weekly total"   all matches add up, ties share a rank (1,2,2,4)
           ${o.royaleId} "Demo battle royale league"  five boards: points, lap_time (fastest first), royale (wins, then kills),
                                   rating (the latest match's, up or down), career (total wins, then total kills);
                                   a league (cohorts of 50, Bronze to Master) with rewards at its close and each day
${o.sprint.season}
 Simulated game servers: ${o.rate} matches/s among ${o.players} players, each match sent to every season above.
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

   # a rating board (LAST): each player's latest rating, which may go down
   { leaderboard(seasonId: ${o.royaleId}, board: "rating") { top(limit: 5) { rank points player { displayName } } } }

   # a career board: total wins, then total kills (each key its own aggregate)
   { leaderboard(seasonId: ${o.royaleId}, board: "career") { top(limit: 5) { rank keys player { displayName } } } }

   # the same board within a country (players in BR-SP and BR-RJ) and within a clan, with each global rank
   { leaderboard(seasonId: ${o.bestId}, scope: { region: "BR" }) { size top(limit: 5) { rank globalRank player { displayName } } } }
   { leaderboard(seasonId: ${o.bestId}, scope: { group: "wolves" }) { top(limit: 5) { rank globalRank points } } }

   # the battle royale is a league: this player's tier, their cohort of 50 and their zone
   { leagueStanding(seasonId: ${o.royaleId}, playerId: "${o.player}") { tier cohort zone leaderboard { top(limit: 5) { rank player { displayName } } } } }

${o.sprint.queries}
   # live: the top 5 of the weekly total, pushed as it changes (press ▶ and watch)
   subscription { topChanged(seasonId: ${o.sumId}, limit: 5) { rank playerId points } }

 API keys (shown once, only their hashes are stored):
   submit (used by the simulator): ${o.submitKey}
   admin (createSeason, closeSeason, rebuildLeaderboard; the console): ${o.adminKey}
   GraphiQL → Headers: { "Authorization": "Bearer <key>" }

 Moderation, with the admin key: hide the leader pending review and watch the board page close ranks,
 then show them again (or in the console: Players → find → Hide pending review / Show again):
   mutation { hidePlayer(input: { seasonId: ${o.bestId}, playerId: "<the leader's id>", reason: "reported" }) { boardChanges } }
   mutation { unhidePlayer(input: { seasonId: ${o.bestId}, playerId: "<the leader's id>", reason: "cleared" }) { boardChanges } }
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
let sprints: ReturnType<typeof followSprint> | undefined;
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
    await sprints?.stop();
    await simulator?.stop();
    const s = simulator?.stats();
    if (s) {
      const resent = s.resent > 0 ? `, ${s.resent} sent again without a season that had just closed` : '';
      say(`[demo] simulator: ${s.accepted} submissions accepted, ${s.failed} failed, ${s.retried} retries${resent}`);
    }
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
  const scheduling = config.seasons.schedulerIntervalMs > 0;
  const { best, sum, royale, sprint } = await demoSeasons(app, {
    sharded: process.env.REDIS_CLUSTER_NODES !== undefined,
    sprintSeconds: settings.leagueSeconds,
    scheduling,
  });
  const keys = createApiKeysRepo(app.pg.db);
  const submitKey = await createApiKey(keys, { name: 'demo simulator', scopes: ['submit'] });
  const adminKey = await createApiKey(keys, { name: 'demo admin', scopes: ['admin'] });
  // The port actually bound, so PORT=0 works too.
  const { port } = app.api!.server.server.address() as AddressInfo;
  const longSeasons = [best.id, sum.id, royale.id];
  simulator = startSimulator({
    url: `http://127.0.0.1:${port}/graphql`,
    apiKey: submitKey.key,
    seasonIds: [...longSeasons, ...(sprint.season ? [sprint.season.id] : [])],
    ratePerSec: settings.rate,
    players: settings.players,
    log: say,
  });
  const sim = simulator;
  // Each sprint season's successor, once the scheduler created it, gets the matches.
  sprints = followSprint({
    app,
    current: sprint.season,
    everyMs: 2_000,
    switchTo: (next) => sim.setSeasons([...longSeasons, next.id]),
    say,
  });
  const sprintSeason = (sprint.season ?? sprint.pending)!;
  const length = Math.round((sprintSeason.endsAt.getTime() - sprintSeason.startsAt.getTime()) / 1000);
  if (length !== settings.leagueSeconds)
    say(
      `[demo] the league sprint goes on with seasons of ${length} s; DEMO_LEAGUE_SECONDS=${settings.leagueSeconds} ` +
        'applies to a new series (closing a season before its end, with closeSeason, ends this one)',
    );
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
      sprint: sprintBanner({
        season: sprintSeason,
        pending: !sprint.season,
        scheduling,
        player: regularPlayerId(settings.players),
      }),
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
