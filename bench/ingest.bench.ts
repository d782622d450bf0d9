// Ingest benchmark (STYLE 15): ladder's write path against a raw baseline, in the same run.
//
//   npm run bench                                   # 200,000 results, 100,000 players, 6 partitions
//   npm run bench -- --results 20000 --players 10000 --partitions 6 --seed 1
//   BENCH_RESULTS=20000 npm run bench              # the same settings from the environment
//   npm run bench -- --ingest-processes=2          # scenario c with 2 separate ingest processes (one group)
//   npm run bench -- --submit-seconds 20 --submit-in-flight 64   # scenario e (game servers through the API)
//
// Scenarios, each on its own fresh BEST season fed the same deterministic traffic:
//   a. raw ceiling: one SQL statement per 1000 results + pipelined ZADD GT (bench/raw-ceiling.ts)
//   b. ladder's applyResults, no Kafka, chunks of 2000 (what the consumer calls per chunk)
//   d. 10% of the results replayed through b (redelivery after a crash)
//   w. b on a season keeping the SEASON board only, then all four windows (b keeps the default three)
//   r. board rules, not in the default set: b on a BEST season (the baseline of) a LAST one (newer
//      wins, scores may fall: docs/design.md#last), on a SUM season (the baseline of) a two-key board
//      aggregating per key (docs/design.md#per-key-aggregates) that totals the same; all four twice
//   l. leagues (docs/design.md#leagues), not in the default set: b with ingest's lookups (scopes, league
//      placement) on a plain season (the baseline), then on a league season (cohorts of 50, 3 tiers)
//      where every new player is placed in a cohort and every standing also goes to its cohort's
//      board; the pair twice, alternated (bench/leagues.ts)
//   s. scopes (docs/design.md#scopes): b again as the baseline, b looking up players' scopes when
//      none has any, and b when every player has a region (half of them a subdivision, so in two
//      region boards) and a clan: 2.5 scope boards per standing (bench/scopes.ts)
//   h. hidden players (docs/design.md#moderation): b again as the baseline, b checking the cached
//      hidden list when nobody is hidden, and b with 1% of the players hidden (stored, not written
//      to Redis)
//   c. ladder end to end: produce everything to a fresh topic, then time the real ingest consumer
//      from start to "group committed every offset" (bench/kafka-e2e.ts)
//   e. game servers through the mutation: the built API process under wrk, with an ingest process
//      beside it and without (bench/submit-load.ts; BENCH_SUBMIT_INGEST=process,none,inline), each
//      match counted in 1 season or several in one submission (BENCH_SUBMIT_SEASONS=1,2)
// Scenarios run in this order, so later ones insert into larger tables (b after 200k rows of a at
// the default size): that favours the baseline slightly, never ladder.
// It owns the database ladder_bench (truncated at start and end); on the shared Redis and Kafka it
// touches only its own seasons' keys (ids from 1e9 up, unused by dev and test databases) and its
// own topic and group, all deleted at the end. Numbers are printed, never asserted.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { ensureDatabase } from '../scripts/ensure-database.js';
import { parseConfig } from '../src/config.js';
import type { Season, SeasonDefinition, Window } from '../src/domain/season.js';
import { createKafka } from '../src/kafka/client.js';
import { createLogger } from '../src/logger.js';
import { createPostgres, migrateDatabase, type Sql } from '../src/postgres/client.js';
import { createResultsStore } from '../src/postgres/results-store.js';
import { createBoardWriter } from '../src/redis/board-writer.js';
import { createRedis } from '../src/redis/client.js';
import {
  applyResults,
  type ApplyReport,
  type BoardWriter,
  type LeaguePlacement,
  type ResultsStore,
  type ScopesLookup,
} from '../src/service/apply-results.js';
import { createPlayerScopesStore } from '../src/postgres/player-scopes-store.js';
import { createHiddenPlayersStore } from '../src/postgres/hidden-players-store.js';
import { createBlockedPlayersCache } from '../src/service/blocked-players.js';
import { giveScopes } from './scopes.js';
import { createLeaguesStore } from '../src/postgres/leagues-store.js';
import { benchLeague, leagueCounts } from './leagues.js';
import {
  boardDifferences,
  boardMemory,
  seasonKeys,
  standingsDifferences,
  storedResults,
  unlinkSeason,
} from './checks.js';
import { cpuDelta, sampleCpu, type CpuTargets, type CpuUse } from './cpu.js';
import { generate, sample, toAccepted, toMessages, withMatchTag, type BenchResult } from './generate.js';
import { consumeAll, consumeAllProcesses, deleteKafkaState, produceAll } from './kafka-e2e.js';
import { intArg } from './args.js';
import { runRawCeiling } from './raw-ceiling.js';
import { builtLadder } from './built.js';
import { runSubmitLoad, type IngestMode, type SubmitReport } from './submit-load.js';
import { createBenchSeason } from './season.js';

/** `--name value`, `--name=value`, then BENCH_NAME, then the default. */
const arg = (name: string, fallback: number) => intArg(name, fallback, process.env[`BENCH_${name.toUpperCase()}`]);

const N = arg('results', 200_000);
const PLAYERS = arg('players', 100_000);
const PARTITIONS = arg('partitions', 6);
const SEED = arg('seed', 20_261_130);
const SUBMIT_SECONDS = arg('submit-seconds', 20);
const SUBMIT_IN_FLIGHT = arg('submit-in-flight', 64);
const SUBMIT_PER_MATCH = 10;
// Scenario e's runs: with an ingest process beside the API, without ingest, and/or inline (one process).
const SUBMIT_INGEST = (process.env.BENCH_SUBMIT_INGEST ?? 'process,none').split(',') as IngestMode[];
if (!SUBMIT_INGEST.every((m) => ['none', 'process', 'inline'].includes(m)))
  throw new Error(`BENCH_SUBMIT_INGEST: a list of none, process, inline; got ${process.env.BENCH_SUBMIT_INGEST}`);
// Scenario e's seasons per match (BENCH_SUBMIT_SEASONS=1,3: each run once with every count).
const SUBMIT_SEASONS = (process.env.BENCH_SUBMIT_SEASONS ?? '1').split(',').map(Number);
if (!SUBMIT_SEASONS.every((n) => Number.isInteger(n) && n >= 1 && n <= 8))
  throw new Error(`BENCH_SUBMIT_SEASONS: a list of 1..8; got ${process.env.BENCH_SUBMIT_SEASONS}`);
// Scenario e's boards per season (BENCH_SUBMIT_BOARDS=1,3): points, then a board per further stat s2, s3, ...
const SUBMIT_BOARDS = (process.env.BENCH_SUBMIT_BOARDS ?? '1').split(',').map(Number);
if (!SUBMIT_BOARDS.every((n) => Number.isInteger(n) && n >= 1 && n <= 8))
  throw new Error(`BENCH_SUBMIT_BOARDS: a list of 1..8; got ${process.env.BENCH_SUBMIT_BOARDS}`);
// The windows of those further boards (BENCH_SUBMIT_BOARD_WINDOWS=SEASON: the season board only); default the season's.
const BOARD_WINDOWS = process.env.BENCH_SUBMIT_BOARD_WINDOWS?.split(',') as Window[] | undefined;
// Which scenarios run (BENCH_SCENARIOS=ce: only c0, c and e); the consistency checks need a, b and c.
const SCENARIOS = process.env.BENCH_SCENARIOS ?? 'abcdes';
const runs = (s: string) => SCENARIOS.includes(s);
// Ingest processes of scenario c: 0 runs the consumer inside this process; N > 0 spawns N
// separate ingest processes (src/main.ts, LADDER_ROLES=ingest) in one consumer group.
const INGEST_PROCESSES = Number(
  process.env.BENCH_INGEST_PROCESSES ??
    process.argv
      .slice(2)
      .find((a) => a.startsWith('--ingest-processes='))
      ?.split('=')[1] ??
    0,
);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_bench';
const DATABASE = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1));
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KAFKA_BROKERS = process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092';
const CPU_TARGETS: CpuTargets = { database: DATABASE, redisPort: new URL(REDIS_URL).port || '6379' };
const CHUNK = 2000; // the ingest consumer's chunk size (src/kafka/ingest-consumer.ts)
const DAY = 24 * 3600 * 1000;
// Bench season ids start here so their Redis keys (lb:{s<id>}) and update channels can never be
// those of a dev or test season on the shared Redis: every database numbers seasons from 1.
const FIRST_SEASON_ID = 1_000_000_000;

interface Row {
  scenario: string;
  results: number;
  seconds: number;
  cpu?: CpuUse;
  note?: string;
  noRatio?: boolean;
}

const runId = randomUUID().slice(0, 8);
const SUBMIT_TOPIC = `bench-submit-${runId}`; // also its consumer group
// kafkajs warns once per producer that its default partitioner changed in 2.0; ladder has only
// ever used the new one, so the warning is noise in the table.
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
// Boards of past days must still be live, or board-writer skips them and ladder would do less
// work than the raw ceiling: keep DAY/WEEK boards 90 days, as the integration tests do.
const config = parseConfig({
  DATABASE_URL,
  REDIS_URL,
  KAFKA_BROKERS,
  KAFKA_TOPIC: `bench-results-${runId}`,
  KAFKA_GROUP_ID: `bench-ingest-${runId}`,
  KAFKA_CLIENT_ID: 'ladder-bench',
  KAFKA_PARTITIONS: String(PARTITIONS),
  WINDOW_TTL_SECONDS: String(90 * 24 * 3600),
  LOG_LEVEL: 'warn',
});
const logger = createLogger(config.logLevel);

await ensureDatabase(DATABASE_URL);
await migrateDatabase(DATABASE_URL);
const pg = createPostgres(DATABASE_URL, 4);
const redis = createRedis(REDIS_URL);
const kafka = createKafka({ brokers: config.kafka.brokers, clientId: 'ladder-bench', logger });
// A session advisory lock on a reserved connection: two bench runs would truncate each other.
const lock = await pg.sql.reserve();
const seasons: Season[] = [];
try {
  const [got] = await lock<{ ok: boolean }[]>`select pg_try_advisory_lock(7272, 1) as ok`;
  if (!got?.ok) throw new Error(`another bench run holds ${DATABASE}; wait for it to finish`);
  await run();
} finally {
  for (const s of seasons) await unlinkSeason(redis, s.id);
  const problems = [
    ...(await deleteKafkaState(kafka, [config.kafka.topic, config.kafka.dlqTopic], config.kafka.groupId)),
    ...(await deleteKafkaState(kafka, [SUBMIT_TOPIC, `${SUBMIT_TOPIC}.dlq`], SUBMIT_TOPIC)),
  ];
  for (const p of problems) console.error(`cleanup: ${p}`);
  await pg.sql`truncate match_results, standings, player_scopes, league_members, league_cohorts, hidden_players`;
  lock.release();
  redis.disconnect();
  await pg.close();
}

async function run(): Promise<void> {
  const load0 = os.loadavg();
  // Same row counts before each run, so the runs compare (the tables are ours alone).
  await pg.sql`truncate match_results, standings, player_scopes, league_members, league_cohorts, hidden_players`;
  const [raw, ladder, viaKafka] = [
    await createSeason('raw'),
    await createSeason('ladder'),
    await createSeason('kafka'),
  ];
  seasons.push(raw, ladder, viaKafka);

  // The ten whole UTC days before today: the same seconds relative to the season in every run, so
  // runs differ only by the machine, and ten DAY boards (all in the past, as results are).
  const traffic = generate({
    count: N,
    players: PLAYERS,
    seed: SEED,
    maxPoints: 60,
    fromMs: raw.startsAt.getTime(),
    toMs: raw.startsAt.getTime() + 10 * DAY,
  });
  const rows: Row[] = [];

  let aSeconds = 0;
  if (runs('a')) {
    await checkpoint();
    const a = await timed(() => runRawCeiling(pg.sql, redis, raw, withMatchTag(traffic, 0xa)));
    rows.push({
      scenario: 'a. raw ceiling (SQL + ZADD GT)',
      results: N,
      seconds: a.seconds,
      cpu: a.cpu,
      note: `PG ${a.value.pgSeconds.toFixed(1)} s, Redis ${a.value.redisSeconds.toFixed(1)} s`,
    });
    aSeconds = a.seconds;
  }

  if (runs('b')) {
    await checkpoint();
    const ladderTraffic = withMatchTag(traffic, 0xb);
    const b = await timed(() => ladderApply(ladder, ladderTraffic));
    rows.push({
      scenario: 'b. ladder applyResults, no Kafka',
      results: N,
      seconds: b.seconds,
      cpu: b.cpu,
      note: b.value.note,
    });

    await checkpoint();
    const replayed = sample(ladderTraffic, 0.1, SEED + 1);
    const d = await timed(() => ladderApply(ladder, replayed));
    rows.push({
      scenario: 'd. b replaying 10% duplicates',
      results: replayed.length,
      seconds: d.seconds,
      cpu: d.cpu,
      note: d.value.note,
    });
  }

  let produceSeconds = Number.NaN;
  if (runs('c')) {
    // c: topic created up front so producing is not slowed by auto-creation (which is off anyway).
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: config.kafka.topic, numPartitions: PARTITIONS }],
      waitForLeaders: true,
    });
    await admin.disconnect();
    const messages = toMessages(withMatchTag(traffic, 0xc), viaKafka.id);
    const produceCpu0 = sampleCpu(CPU_TARGETS);
    produceSeconds = await produceAll(kafka, config.kafka.topic, messages);
    rows.push({
      scenario: 'c0. produce to Kafka (acks=all)',
      results: N,
      seconds: produceSeconds,
      cpu: cpuDelta(produceCpu0, sampleCpu(CPU_TARGETS)),
      note: `${PARTITIONS} partitions, key = playerId`,
      noRatio: true,
    });
    await checkpoint();
    const c =
      INGEST_PROCESSES > 0
        ? await consumeAllProcesses(
            kafka,
            config,
            {
              DATABASE_URL,
              REDIS_URL,
              KAFKA_BROKERS,
              KAFKA_TOPIC: config.kafka.topic,
              KAFKA_GROUP_ID: config.kafka.groupId,
              KAFKA_PARTITIONS: String(PARTITIONS),
              WINDOW_TTL_SECONDS: String(config.windowTtlSeconds),
            },
            INGEST_PROCESSES,
            CPU_TARGETS,
            Math.max(120_000, N * 2),
          )
        : await consumeAll(kafka, config, logger, CPU_TARGETS, Math.max(120_000, N * 2));
    const how =
      INGEST_PROCESSES > 0 ? `${INGEST_PROCESSES} ingest process${INGEST_PROCESSES > 1 ? 'es' : ''}` : 'in process';
    rows.push({
      scenario: `c. ladder through Kafka (consume, ${how})`,
      results: N,
      seconds: c.seconds,
      cpu: c.cpu,
      note: `first commit at ${c.firstCommitSeconds.toFixed(1)} s; ${steadyRate(c).toFixed(0)}/s after it`,
    });
  }

  // w. the windows a season keeps: b's traffic on a season with SEASON only, then with all four
  // (b's season keeps the default three), then SEASON with DAY against SEASON with a CUSTOM window
  // of 6 hours (the cost of a custom period beside a calendar one), each on a fresh season.
  if (runs('w')) {
    const cases = [['SEASON'], ['SEASON', 'DAY', 'WEEK', 'MONTH'], ['SEASON', 'DAY'], ['SEASON', 'CUSTOM']] as const;
    for (const windows of cases) {
      const custom = (windows as readonly string[]).includes('CUSTOM') ? { periodHours: 6 } : {};
      const season = await createSeason(`windows ${windows.join(' ')}`, { windows, ...custom });
      seasons.push(season);
      await checkpoint();
      const w = await timed(() => ladderApply(season, withMatchTag(traffic, 0xc + 0x10 * cases.indexOf(windows))));
      rows.push({
        scenario: `w. b on a season keeping ${windows.join(', ')}${'periodHours' in custom ? ' (6 h)' : ''}`,
        results: N,
        seconds: w.seconds,
        cpu: w.cpu,
        note: w.value.note,
      });
    }
  }

  // r. board rules: the same traffic on fresh seasons, twice, alternated. BEST against LAST
  // (docs/design.md#last): the cost of the newer-wins rule in PostgreSQL and Redis; the traffic
  // spans 10 days in random order, so about half a player's results replace their standing, up or
  // down. SUM against a two-key board aggregating per key (docs/design.md#per-key-aggregates):
  // kills BEST over wins SUM, the traffic's points 0..60 being a packed (0 kills, points wins)
  // tuple, so both boards total the same points.
  if (runs('r')) {
    const perKey = {
      keys: [
        { stat: 'kills', order: 'DESC' as const, max: 7 },
        { stat: 'wins', order: 'DESC' as const, max: 4095, aggregate: 'SUM' as const },
      ],
      maxPointsPerMatch: 32_767,
      split: { pointsBits: 15, timeBits: 32, timeUnitSeconds: 1 },
    };
    const rules = [
      ['a BEST season', { scoring: 'BEST' }],
      ['a LAST season', { scoring: 'LAST' }],
      ['a SUM season', { scoring: 'SUM' }],
      ['two keys per key (BEST kills, SUM wins)', perKey],
    ] as const;
    for (const round of [1, 2])
      for (const [i, [label, over]] of rules.entries()) {
        const season = await createSeason(`rule ${i} ${round}`, over);
        seasons.push(season);
        await checkpoint();
        const rr = await timed(() => ladderApply(season, withMatchTag(traffic, 0x80 + 8 * round + i)));
        rows.push({
          scenario: `r. b on ${label}, run ${round}`,
          results: N,
          seconds: rr.seconds,
          cpu: rr.cpu,
          note: rr.value.note,
        });
      }
  }

  // l. leagues: the same traffic on fresh seasons through the same deps (ingest's scope lookup and
  // league placement, as src/app/ingest.ts wires them), plain season then league season, twice.
  // Before s, which gives every player scopes: here no player has any, so the only scope board a
  // standing gains is its cohort's.
  if (runs('l')) {
    const deps = { scopes: createPlayerScopesStore(pg.sql), leagues: createLeaguesStore(pg.sql) };
    for (const round of [1, 2])
      for (const league of [false, true]) {
        const season = await createSeason(
          `${league ? 'league' : 'plain'} ${round}`,
          league ? { league: benchLeague(runId, round) } : {},
        );
        seasons.push(season);
        await checkpoint();
        const lr = await timed(() =>
          ladderApply(season, withMatchTag(traffic, 0x60 + 2 * round + Number(league)), deps),
        );
        const placed = league ? await leagueCounts(pg.sql, season.id) : undefined;
        rows.push({
          scenario: league
            ? `l. b on a league season (cohorts of ${season.league!.cohortSize}), run ${round}`
            : `l. b on the same season without league, run ${round}`,
          results: N,
          seconds: lr.seconds,
          cpu: lr.cpu,
          note: lr.value.note + (placed ? `; placed ${placed.players} in ${placed.cohorts} cohorts` : ''),
        });
      }
  }

  // s. scopes: the same traffic three times on fresh seasons, without, with the lookup, with scopes.
  if (runs('s')) {
    const scopeCases = [
      ['s. b, the same run, no scope lookup', false],
      ['s. b looking up scopes, no player has any', true],
      ['s. b, every player in a region and a clan', true],
    ] as const;
    for (const [i, [label, lookup]] of scopeCases.entries()) {
      if (i === 2) await giveScopes(pg.sql, traffic);
      const season = await createSeason(`scopes ${i}`);
      seasons.push(season);
      await checkpoint();
      const sr = await timed(() =>
        ladderApply(season, withMatchTag(traffic, 0x50 + i), lookup ? { scopes: createPlayerScopesStore(pg.sql) } : {}),
      );
      rows.push({ scenario: label, results: N, seconds: sr.seconds, cpu: sr.cpu, note: sr.value.note });
    }
  }

  // h. hidden players (docs/design.md#moderation): the same traffic on fresh seasons, without the
  // hidden list, with it and nobody hidden, and with 1% of the players hidden (their standings
  // stored, kept out of the Redis write).
  if (runs('h')) {
    const store = createHiddenPlayersStore(pg.sql);
    const cached = createBlockedPlayersCache((id) => store.hiddenIn(id), { ttlMs: 5_000 });
    const hiddenCases = [
      ['h. b, the same run, no hidden list', false, 0],
      ['h. b checking the hidden list, nobody hidden', true, 0],
      ['h. b, 1% of its players hidden', true, 0.01],
    ] as const;
    for (const [i, [label, check, share]] of hiddenCases.entries()) {
      const season = await createSeason(`hidden ${i}`);
      seasons.push(season);
      if (share > 0) await hideShare(pg.sql, season.id, traffic, share);
      await checkpoint();
      const hr = await timed(() =>
        ladderApply(season, withMatchTag(traffic, 0x70 + i), check ? { hiddenIn: (id) => cached.blockedIn(id) } : {}),
      );
      rows.push({ scenario: label, results: N, seconds: hr.seconds, cpu: hr.cpu, note: hr.value.note });
    }
  }

  const e: SubmitReport[] = [];
  if (runs('e')) {
    const ladder = builtLadder();
    // With ingest first: its consumer group then starts from an empty topic.
    for (const boards of SUBMIT_BOARDS) {
      const submitSeasons: Season[] = [];
      for (let i = 0; i < Math.max(...SUBMIT_SEASONS); i++)
        submitSeasons.push(await createSeasonOfBoards(`submit ${i + 1} of ${boards} boards`, boards));
      for (const count of SUBMIT_SEASONS)
        for (const ingest of SUBMIT_INGEST) {
          e.push(
            await runSubmitLoad({
              ladder,
              env: {
                DATABASE_URL,
                REDIS_URL,
                KAFKA_BROKERS,
                KAFKA_TOPIC: SUBMIT_TOPIC,
                KAFKA_GROUP_ID: SUBMIT_TOPIC,
                KAFKA_PARTITIONS: String(PARTITIONS),
                WINDOW_TTL_SECONDS: String(config.windowTtlSeconds),
              },
              db: pg.db,
              seasonIds: submitSeasons.slice(0, count).map((s) => s.id),
              boards,
              endedAt: new Date(submitSeasons[0]!.startsAt.getTime() + 9 * DAY),
              players: PLAYERS,
              inFlight: SUBMIT_IN_FLIGHT,
              perMatch: SUBMIT_PER_MATCH,
              seconds: SUBMIT_SECONDS,
              ingest,
            }),
          );
        }
    }
  }

  printTable(rows, aSeconds);
  if (e.length > 0) printSubmit(e, N / produceSeconds);
  if (runs('a') && runs('b') && runs('c')) await printChecks(raw, ladder, viaKafka);
  printMachine(load0);
}

/** Rate once the group has joined and committed its first chunk: start-up cost left out. */
function steadyRate(c: { seconds: number; firstCommitSeconds: number; firstCommitted: number }): number {
  const seconds = c.seconds - c.firstCommitSeconds;
  return seconds > 0 ? (N - c.firstCommitted) / seconds : N / c.seconds;
}

/** A fresh bench season (bench/season.ts) with an id from FIRST_SEASON_ID up. */
async function createSeason(label: string, over: Partial<SeasonDefinition> = {}): Promise<Season> {
  await pg.sql`select setval(pg_get_serial_sequence('seasons', 'id'),
                              greatest(${FIRST_SEASON_ID}::int8, (select coalesce(max(id), 0) from seasons)))`;
  const season = await createBenchSeason(pg.db, `bench ${label} ${runId}`, undefined, over);
  // Belt and braces: the keys must not exist yet, or cleanup would delete someone else's board.
  if ((await seasonKeys(redis, season.id)).length > 0) throw new Error(`Redis already has keys of season ${season.id}`);
  return season;
}

/**
 * A bench season of `boards` boards (docs/design.md#boards): its own, ranking points, then one per
 * further stat s2, s3, ... (the wrk script sends them), each a row of its own as createSeason makes.
 */
async function createSeasonOfBoards(label: string, boards: number): Promise<Season> {
  const season = await createSeason(label);
  seasons.push(season);
  for (let b = 2; b <= boards; b++)
    seasons.push(
      await createSeason(`${label} s${b}`, {
        parentId: season.id,
        board: `s${b}`,
        stat: `s${b}`,
        ...(BOARD_WINDOWS ? { windows: BOARD_WINDOWS } : {}),
      }),
    );
  return season;
}

/** Hides every player whose id is a multiple of 1/share (a share of the traffic's players). */
async function hideShare(sql: Sql, seasonId: number, traffic: readonly BenchResult[], share: number): Promise<void> {
  const every = Math.round(1 / share);
  const ids = [...new Set(traffic.map((r) => r.playerId))].filter((id) => Number(id) % every === 0);
  await sql`
    insert into hidden_players (season_id, player_id, reason)
    select ${seasonId}, id, 'bench' from unnest(${sql.array(ids)}::int8[]) as t(id)`;
}

/** Flushes dirty pages now, so one scenario's writes are not paid for on the next one's clock. */
async function checkpoint(): Promise<void> {
  await pg.sql`checkpoint`;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; cpu: CpuUse }> {
  const cpu0 = sampleCpu(CPU_TARGETS);
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  return { value, seconds, cpu: cpuDelta(cpu0, sampleCpu(CPU_TARGETS)) };
}

/**
 * ladder's real write path (results-store + board-writer under applyResults), one chunk at a time
 * like one consumer partition. Both stores are wrapped in timers to split the time PG vs Redis.
 */
async function ladderApply(
  season: Season,
  traffic: readonly BenchResult[],
  extras: {
    scopes?: ScopesLookup;
    leagues?: LeaguePlacement;
    hiddenIn?: (seasonId: number) => Promise<ReadonlySet<string>>;
  } = {},
) {
  const { scopes, leagues, hiddenIn } = extras;
  const inner = { store: createResultsStore(pg.sql), boards: createBoardWriter(redis, config.windowTtlSeconds) };
  // calls: the Lua calls (one per board written: boards, scope boards, cohort boards) over all chunks.
  const spent = { pg: 0, redis: 0, place: 0, calls: 0 };
  const store: ResultsStore = {
    async applyBatch(results, seasonOf) {
      const t = performance.now();
      try {
        return await inner.store.applyBatch(results, seasonOf);
      } finally {
        spent.pg += performance.now() - t;
      }
    },
  };
  const boards: BoardWriter = {
    async write(standings, seasonOf, nowMs) {
      spent.calls += new Set(standings.map((s) => `${s.seasonId}|${s.window}|${s.period}|${s.scope ?? ''}`)).size;
      const t = performance.now();
      try {
        return await inner.boards.write(standings, seasonOf, nowMs);
      } finally {
        spent.redis += performance.now() - t;
      }
    },
  };
  // League placement (its own PostgreSQL transaction), timed apart from the results' statement.
  const placing: LeaguePlacement | undefined = leagues && {
    async place(seasonId, league, playerIds) {
      const t = performance.now();
      try {
        return await leagues.place(seasonId, league, playerIds);
      } finally {
        spent.place += performance.now() - t;
      }
    },
  };
  const total: ApplyReport = { inserted: 0, changed: 0, unencodable: [] };
  const results = toAccepted(traffic, season.id);
  for (let i = 0; i < results.length; i += CHUNK) {
    const r = await applyResults(
      { store, boards, scopes, leagues: placing, hiddenIn, seasonOf: () => season, now: Date.now },
      results.slice(i, i + CHUNK),
    );
    total.inserted += r.inserted;
    total.changed += r.changed;
    total.unencodable.push(...r.unencodable);
  }
  const note =
    `PG ${(spent.pg / 1000).toFixed(1)} s, ` +
    (spent.place > 0 ? `placing ${(spent.place / 1000).toFixed(1)} s, ` : '') +
    `Redis ${(spent.redis / 1000).toFixed(1)} s; ` +
    `inserted ${total.inserted}, board rises ${total.changed}, unencodable ${total.unencodable.length}, ` +
    `${(spent.calls / Math.ceil(results.length / CHUNK)).toFixed(0)} boards written per chunk`;
  return { ...total, note };
}

function printTable(rows: Row[], rawSeconds: number): void {
  const rawRate = N / rawSeconds;
  const head = [
    'scenario',
    'results',
    'seconds',
    'results/s',
    'vs raw',
    'CPU s node/pg/redis/kafka/other',
    'our CPU µs/result',
    'notes',
  ];
  const body = rows.map((r) => {
    const rate = r.results / r.seconds;
    const cpu = r.cpu
      ? [r.cpu.node, r.cpu.pg, r.cpu.redis, r.cpu.kafka, r.cpu.other].map((x) => x.toFixed(1)).join('/')
      : '';
    // CPU per result of the four parts we run: unlike results/s, barely moved by other load.
    const perResult = r.cpu ? (((r.cpu.node + r.cpu.pg + r.cpu.redis + r.cpu.kafka) * 1e6) / r.results).toFixed(0) : '';
    return [
      r.scenario,
      String(r.results),
      r.seconds.toFixed(2),
      rate.toFixed(0),
      r.noRatio || !rawSeconds ? '' : `${(rate / rawRate).toFixed(2)}x`,
      cpu,
      perResult,
      r.note ?? '',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join(' | ')
      .trimEnd();
  console.log(`\ningest benchmark: ${N} results, ${PLAYERS} players, ${PARTITIONS} partitions, seed ${SEED}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const b of body) console.log(line(b));
}

function printSubmit(reports: SubmitReport[], producerRate: number): void {
  console.log(
    `\ne. submitMatchResult by HTTP (wrk, ${SUBMIT_IN_FLIGHT} connections in a closed loop, matches of ${SUBMIT_PER_MATCH}), ` +
      'one built API process (API_WORKERS=1), each match counted in 1 or more seasons (seasonIds); ' +
      'CPU per match: the API process, the ingest process:',
  );
  const how = {
    none: 'API alone, no ingest',
    process: 'API + ingest process',
    inline: 'API and ingest in one process',
  };
  for (const e of reports) {
    const rate = e.matches / e.seconds;
    const perMatch = (cpu: number) => ((cpu * 1e6) / Math.max(1, e.matches)).toFixed(0);
    console.log(
      `  ${how[e.ingest].padEnd(29)} ${`${e.seasons} season${e.seasons > 1 ? 's' : ''}`.padEnd(9)} ` +
        `${`${e.boards} board${e.boards > 1 ? 's' : ''}`.padEnd(8)} ` +
        `${rate.toFixed(0).padStart(6)} matches/s (${(rate * SUBMIT_PER_MATCH * e.seasons).toFixed(0)} results/s` +
        `, ${(rate * SUBMIT_PER_MATCH * e.seasons * e.boards).toFixed(0)} board results/s), ` +
        `p50 ${e.p50Ms.toFixed(1)} ms, p99 ${e.p99Ms.toFixed(1)} ms; API ${perMatch(e.apiCpu)} µs/match ` +
        `(${((e.apiCpu / e.seconds) * 100).toFixed(0)}% of a core)` +
        (e.ingest === 'process' ? `, ingest ${perMatch(e.ingestCpu)} µs/match` : '') +
        `, wrk ${perMatch(e.wrkCpu)} µs/match; not accepted ${e.bad}${e.bad > 0 ? ` (${e.badCodes.trim()})` : ''}, socket errors ${e.socketErrors}`,
    );
  }
  if (Number.isFinite(producerRate))
    console.log(
      `  beside: ladder's producer alone (c0) ${producerRate.toFixed(0)} results/s = ${(producerRate / SUBMIT_PER_MATCH).toFixed(0)} matches/s of ${SUBMIT_PER_MATCH}`,
    );
}

/** The three seasons saw the same traffic: they must agree row for row and member for member. */
async function printChecks(raw: Season, ladder: Season, viaKafka: Season): Promise<void> {
  console.log('\nconsistency (same traffic, so 0 differences expected):');
  for (const s of [raw, ladder, viaKafka])
    console.log(`  season ${s.id} (${s.name}): ${await storedResults(pg.sql, s.id)} match_results rows`);
  for (const [x, y] of [
    [raw, ladder],
    [raw, viaKafka],
  ] as const) {
    console.log(
      `  ${x.id} vs ${y.id}: ${await standingsDifferences(pg.sql, x.id, y.id)} standings rows differ, ` +
        `${await boardDifferences(redis, x.id, y.id)} board entries differ`,
    );
  }
  console.log('\nRedis memory (MEMORY USAGE ... SAMPLES 0):');
  for (const s of [raw, ladder]) {
    const m = await boardMemory(redis, s.id);
    console.log(
      `  ${m.key}: ${m.members} members, ${m.bytes} B, ${(m.bytes / m.members).toFixed(1)} B/member (${m.encoding}); ` +
        `all ${m.boards} boards of the season: ${m.allMembers} entries, ${m.allBytes} B, ${(m.allBytes / m.allMembers).toFixed(1)} B/entry`,
    );
  }
}

function printMachine(load0: number[]): void {
  const cpus = os.cpus();
  console.log(
    `\nmachine: nproc ${os.availableParallelism()}, ${cpus[0]?.model ?? 'unknown CPU'}, node ${process.version}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM; loadavg(1m) ${load0[0]!.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`,
  );
  console.log(
    'PostgreSQL, Redis and the Kafka broker share this machine. CPU s: seconds of CPU used during the scenario by',
  );
  console.log(
    'this process, our PostgreSQL backends (+ WAL writer, checkpointer), Redis, the broker, and everything else',
  );
  console.log(
    `(other): ${os.availableParallelism()} x seconds is the most the machine can give. "PG"/"Redis" in notes: wall time`,
  );
  console.log('inside the PostgreSQL / Redis step, Node work of that step included.');
}
