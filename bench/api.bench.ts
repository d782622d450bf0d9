// Read-path benchmark (STYLE 15): ladder's GraphQL reads beside a plain Node HTTP server that
// returns the same top(100) JSON, pre-serialised, measured in the same run on the same machine.
//
//   npm run bench:api                      # 100,000 players, 50 connections, 5 s per scenario
//   npm run bench:api -- --players 20000 --connections 20 --seconds 3
//
// ladder runs as its own process (LADDER_ROLES=api), the load generator (bench/load.mjs) as
// another, so neither measures the other's event loop. It owns the database ladder_bench_api and
// Redis database 2 (both emptied at start). Numbers are printed, never asserted.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { ensureDatabase } from '../scripts/ensure-database.js';
import type { AcceptedResult } from '../src/domain/board-deltas.js';
import { validateSeasonDefinition, type SeasonDefinition } from '../src/domain/season.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createResultsStore } from '../src/postgres/results-store.js';
import { createSeasonsRepo } from '../src/postgres/seasons-repo.js';
import { createBoardWriter } from '../src/redis/board-writer.js';
import { createRedis } from '../src/redis/client.js';
import { applyResults } from '../src/service/apply-results.js';

const run = promisify(execFile);
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const PLAYERS = arg('players', 100_000);
const CONNECTIONS = arg('connections', 50);
const SECONDS = arg('seconds', 5);
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/ladder_bench_api';
const REDIS_URL = 'redis://127.0.0.1:6379/2';
const PORT = 4700;
const PLAIN_PORT = 4701;

async function seed(): Promise<number> {
  await ensureDatabase(DATABASE_URL);
  await migrateDatabase(DATABASE_URL);
  const pg = createPostgres(DATABASE_URL, 4);
  const redis = createRedis(REDIS_URL);
  try {
    await pg.sql`truncate match_results, standings, season_final_standings, blocked_players, seasons cascade`;
    await redis.flushdb();
    const now = Date.now();
    const def: SeasonDefinition = {
      name: 'bench', startsAt: new Date(now - 10 * 86_400_000), endsAt: new Date(now + 20 * 86_400_000),
      scoring: 'BEST', order: 'DESC', rankStyle: 'ORDINAL', maxPointsPerMatch: 1_000_000,
    };
    const season = await createSeasonsRepo(pg.db).insert(def, validateSeasonDefinition(def), 'ACTIVE');
    const deps = { store: createResultsStore(pg.sql), boards: createBoardWriter(redis, 3 * 86_400), seasonOf: () => season, now: Date.now };
    for (let first = 1; first <= PLAYERS; first += 2_000) {
      const chunk: AcceptedResult[] = [];
      for (let p = first; p < Math.min(first + 2_000, PLAYERS + 1); p++) {
        chunk.push({
          matchId: `00000000-0000-4000-8000-${String(p).padStart(12, '0')}`, playerId: String(p), seasonId: season.id,
          points: (p * 7919) % 50_000, endedAt: new Date(now - ((p * 104_729) % 86_400_000)), partition: 0, offset: String(p),
        });
      }
      await applyResults(deps, chunk);
    }
    return season.id;
  } finally {
    redis.disconnect();
    await pg.close();
  }
}

function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.on('data', (d: Buffer) => { if (ready.test(d.toString())) resolve(child); });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function load(url: string, body: string) {
  const { stdout } = await run(process.execPath, ['bench/load.mjs', url, body, String(CONNECTIONS), String(SECONDS), String(PLAYERS)]);
  return JSON.parse(stdout) as { rps: number; failed: number; p50: number; p90: number; p99: number };
}

const gql = (query: string) => JSON.stringify({ query });
const seasonId = await seed();
const ladder = await start(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  LADDER_ROLES: 'api', PORT: String(PORT), HOST: '127.0.0.1', DATABASE_URL, REDIS_URL, LOG_LEVEL: 'info',
  KAFKA_TOPIC: 'bench-api-results', RATE_LIMIT_READS_PER_SEC: '1000000000', RATE_LIMIT_READS_BURST: '1000000000',
}, /GraphQL API listening/);
const url = `http://127.0.0.1:${PORT}/graphql`;
const topQuery = gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 100) { rank playerId points achievedAt } } }`);
const topBody = await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: topQuery })).text();
const bodyFile = `${os.tmpdir()}/ladder-bench-top100.json`;
writeFileSync(bodyFile, topBody);
const plain = await start(process.execPath, ['bench/plain-server.mjs', String(PLAIN_PORT), bodyFile], {}, /ready/);

try {
  const scenarios: Array<[string, string, string]> = [
    ['plain Node HTTP, same top(100) JSON', `http://127.0.0.1:${PLAIN_PORT}/`, '-'],
    ['ladder top(100) (RAM cache)', url, topQuery],
    ['ladder entry(random player)', url, gql(`{ leaderboard(seasonId: ${seasonId}) { entry(playerId: "{{player}}") { rank points } } }`)],
    ['ladder around(random player, radius 5)', url, gql(`{ leaderboard(seasonId: ${seasonId}) { around(playerId: "{{player}}") { rank playerId points } } }`)],
    ['ladder friends(50 random players)', url, gql(`{ leaderboard(seasonId: ${seasonId}) { friends(playerIds: {{players}}) { rank playerId } } }`)],
    ['ladder top(100) with player names', url, gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 100) { rank playerId player { displayName } } } }`)],
  ];
  await load(url, topQuery); // warm-up: JIT, caches, connection pools
  const rows: string[][] = [];
  let baseline = 0;
  for (const [name, target, body] of scenarios) {
    const r = await load(target, body);
    baseline ||= r.rps;
    rows.push([name, String(r.rps), String(r.p50), String(r.p90), String(r.p99), `${((100 * r.rps) / baseline).toFixed(1)}%`, String(r.failed)]);
  }
  const header = ['scenario', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'vs plain', 'failed'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${PLAYERS.toLocaleString('en')} players, ${CONNECTIONS} connections, ${SECONDS} s per scenario; ${os.cpus().length} cores, Node ${process.version}`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  const redis = new Redis(REDIS_URL);
  console.log(`\nRedis commands during the run: ${(await redis.info('commandstats')).split('\n').filter((l) => /cmdstat_(evalsha|zrevrange|zcard)/.test(l)).join(' ')}`);
  redis.disconnect();
} finally {
  ladder.kill('SIGTERM');
  plain.kill('SIGTERM');
}
