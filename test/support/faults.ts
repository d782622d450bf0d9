// The fault matrix's parts (docs/reliability.md#fault-matrix): ladder as real processes, game
// servers submitting at a rate through the typed client (retrying with the same matchId, as the
// contract asks), and the oracle at the end: every acknowledged result stored exactly once,
// every board equal to what those results imply.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { ensureDatabase } from '../../scripts/ensure-database.js';
import { createLadderClient, LadderError } from '../../src/client/ladder-client.js';
import type { Season } from '../../src/domain/season.js';
import { createApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { migrateDatabase } from '../../src/postgres/client.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { expectBoardsMatchOracle, expectStoredOnce } from './assert-boards.js';
import { TEST_DATABASE_URL, testEnv, uniqueName } from './env.js';
import { prng } from './generate.js';
import type { OracleResult } from './oracle.js';
import { freePort, request, spawnEntry, until, type Entry } from './process.js';
import type { Services } from './services.js';

/** Waits `seconds`: the fault tests count their phases in seconds. */
export const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/** A knob of the fault matrix: `npm run chaos` and CI set different figures (FAULTS_<NAME>). */
export function knob(name: string, ci: number): number {
  const v = process.env[`FAULTS_${name}`];
  return v === undefined ? ci : Number(v);
}

export interface LadderProcess {
  entry: Entry;
  /** The API's port (roles with api). */
  port?: number;
  url?: string;
  /** SIGKILL, waiting for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, waiting for the exit code (SIGKILL after 40 s). */
  stop(): Promise<number | null>;
}

/**
 * `src/main.ts` as a real process (one API process when the roles include api), ready: /ready
 * answers 200 (api), or the log says 'ladder started' (ingest only). `wait: false` returns at
 * once (churn kills processes whether they finished starting or not).
 */
export async function startLadder(env: Record<string, string>, opts: { wait?: boolean } = {}): Promise<LadderProcess> {
  const roles = env.LADDER_ROLES ?? 'api,ingest';
  const port = roles.includes('api') ? await freePort() : undefined;
  const entry = spawnEntry(
    'src/main.ts',
    testEnv({
      API_WORKERS: '1',
      HOST: '127.0.0.1',
      // Every game server of a test connects from 127.0.0.1: no per-address cap.
      HTTP_CONNECTIONS_PER_ADDRESS: '0',
      ...env,
      LOG_LEVEL: 'info', // the scenarios read the warnings and the restore reports
      PORT: String(port ?? 0),
    }),
  );
  if (opts.wait ?? true)
    await until(
      'ladder to be ready',
      180_000, // tsx compiles the service at each start: slow on a busy machine
      async () =>
        port
          ? (await request(port, '/ready')).status === 200 || undefined
          : entry.stdout.includes('"ladder started"') || undefined,
      entry,
    );
  // FAULTS_LOG_DIR: each process's log in a file of its own, to read after a failed run.
  const dir = process.env.FAULTS_LOG_DIR;
  if (dir) entry.child.stdout!.on('data', (d: Buffer) => appendFileSync(`${dir}/ladder-${entry.child.pid}.log`, d));
  const exited = entry.exited;
  return {
    entry,
    port,
    url: port ? `http://127.0.0.1:${port}/graphql` : undefined,
    async kill() {
      entry.kill();
      await exited;
    },
    async stop() {
      entry.child.kill('SIGTERM');
      const late = setTimeout(() => entry.kill(), 40_000); // past the 30 s drain of a stuck process
      const { code } = await exited;
      clearTimeout(late);
      return code;
    },
  };
}

/**
 * A migrated database of its own, for a scenario whose service acts on every season it finds
 * (the board restore rebuilds every ACTIVE season: in ladder_test, every earlier run's). Left in
 * place: the next run's global setup drops it (test/support/global-setup.ts says why).
 */
export async function privateDatabase(): Promise<{ url: string }> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${uniqueName('ladder_faults').replace('-', '_')}`;
  await ensureDatabase(url.toString());
  await migrateDatabase(url.toString());
  return { url: url.toString() };
}

/** A new API key of scope submit. */
export async function submitKey(s: Services): Promise<string> {
  return (await createApiKey(createApiKeysRepo(s.pg.db), { name: 'fault matrix', scopes: ['submit'] })).key;
}

export interface LoadReport {
  /** Matches acknowledged (`accepted`), and their results. */
  matches: number;
  results: OracleResult[];
  /** Failed attempts by code (each was retried with the same matchId). */
  failures: Record<string, number>;
  /** The slowest failed attempt's answer (ms): a refusal must come within the API's deadline. */
  slowestFailureMs: number;
  slowestFailure?: string;
  /** How long each UNAVAILABLE took to come back (ms), in order. */
  unavailableMs: number[];
  /** The longest time without any acknowledgement while the load ran (ms), and when it ended (epoch ms). */
  longestUnavailableMs: number;
  longestUnavailableEndedAt: number;
  /** Submissions refused for good (not retryable): must stay empty. */
  refused: string[];
}

/**
 * Game servers: `rate` results/s in matches of 5 players out of `players`, each submitted with
 * the typed client and retried with the same matchId until accepted. `url()` is asked at each
 * attempt (a test may move the API). stop() ends new matches and waits for every match started
 * to be accepted (or `drainMs` to pass).
 */
export function gameServers(opts: {
  url: () => string;
  apiKey: string;
  season: Season;
  rate: number;
  players: number;
  seed: number;
  maxInFlight?: number;
}) {
  const rand = prng(opts.seed);
  const report: LoadReport = {
    matches: 0,
    results: [],
    failures: {},
    slowestFailureMs: 0,
    unavailableMs: [],
    longestUnavailableMs: 0,
    longestUnavailableEndedAt: 0,
    refused: [],
  };
  const inFlight = new Set<Promise<void>>();
  const drain = new AbortController();
  let lastAck = Date.now();
  let stopped = false;

  async function submit(): Promise<void> {
    const matchId = randomUUID();
    // Whole seconds, a second ago: inside the season, never ahead of the server's clock.
    const endedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
    const players = new Set<string>();
    while (players.size < 5) players.add(String(1 + Math.floor(rand() * opts.players)));
    const results = [...players].map((playerId) => ({ playerId, points: Math.floor(rand() * 1000) }));
    const input = { matchId, seasonId: opts.season.id, endedAt, results };
    for (let attempt = 1; ; attempt++) {
      const t0 = Date.now();
      try {
        const client = createLadderClient({ url: opts.url(), apiKey: opts.apiKey, timeoutMs: 30_000 });
        await client.submitMatchResult(input, { attempts: 1 });
        const now = Date.now();
        if (!stopped && now - lastAck > report.longestUnavailableMs) {
          report.longestUnavailableMs = now - lastAck;
          report.longestUnavailableEndedAt = now;
        }
        lastAck = now;
        report.matches++;
        for (const r of results) report.results.push({ matchId, ...r, endedAt: new Date(endedAt) });
        return;
      } catch (err) {
        const e = err as LadderError;
        report.failures[e.code] = (report.failures[e.code] ?? 0) + 1;
        if (e.code === 'UNAVAILABLE') report.unavailableMs.push(Date.now() - t0);
        if (e.code !== 'NETWORK' && Date.now() - t0 > report.slowestFailureMs) {
          report.slowestFailureMs = Date.now() - t0;
          report.slowestFailure = e.message;
        }
        if (!(e instanceof LadderError) || !e.retryable || drain.signal.aborted) {
          report.refused.push(`${matchId}: ${e.code} ${e.message}`);
          return;
        }
        // The typed client's own pause: growing, jittered (a retry storm would be a test of its own).
        await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** attempt) * (0.5 + rand())));
      }
    }
  }

  const tickMs = 50;
  let owed = 0;
  const timer = setInterval(() => {
    owed += (opts.rate / 5) * (tickMs / 1000);
    for (; owed >= 1; owed--) {
      if (inFlight.size >= (opts.maxInFlight ?? 5_000)) continue;
      const p = submit().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }, tickMs);

  return {
    report,
    /** Stops new matches; waits until every match started is accepted (at most `drainMs`). */
    async stop(drainMs = 240_000): Promise<LoadReport> {
      clearInterval(timer);
      stopped = true;
      const t = setTimeout(() => drain.abort(), drainMs);
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      clearTimeout(t);
      return report;
    },
  };
}

/** The oracle: each acknowledged result stored once, nothing else stored, boards as implied. */
export async function expectExactlyOnce(s: Services, season: Season, acknowledged: readonly OracleResult[]) {
  await expectStoredOnce(s, season.id, acknowledged.length);
  await expectBoardsMatchOracle(s, season, acknowledged);
}

/** The median, 99th percentile and largest of some durations (ms). */
export function spread(ms: readonly number[]): { p50: number; p99: number; max: number } | undefined {
  if (ms.length === 0) return undefined;
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! };
}

/** One line per figure, for the log of a run (docs/reliability.md quotes them). */
export function printReport(name: string, figures: Record<string, unknown>): void {
  console.log(`[faults] ${name}: ${JSON.stringify(figures)}`);
}
