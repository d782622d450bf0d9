import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { testEnv } from '../support/env.js';
import { generateResults, prng, toRecords, withReplays } from '../support/generate.js';
import { nodeArgsFor } from '../support/process.js';
import {
  createSeason,
  createTopics,
  openServices,
  produceRaw,
  waitFor,
  waitUntilCaughtUp,
  type Services,
} from '../support/services.js';

// A short session timeout: after a SIGKILL the group reassigns the dead member's partitions
// only once its session expires.
const env = testEnv({ LADDER_ROLES: 'ingest', KAFKA_SESSION_TIMEOUT_MS: '6000', INGEST_APPLIES_IN_FLIGHT: '1' });
const config = parseConfig(env);
const root = fileURLToPath(new URL('../..', import.meta.url));
let s: Services;
let child: ChildProcess | undefined;

function startIngestProcess(): ChildProcess {
  const proc = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return proc;
}

beforeAll(async () => {
  s = openServices(config);
  await createTopics(s.kafka, config);
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await s?.close();
});

describe('an ingest process killed with SIGKILL', () => {
  it('loses nothing and double-counts nothing when restarted, killed at random points mid-run', async () => {
    const best = await createSeason(s, { name: 'crash best' });
    const sum = await createSeason(s, { name: 'crash sum', scoring: 'SUM' });
    const inputs = [best, sum].map((season, i) => ({
      season,
      input: generateResults(season, { results: 10_000, players: 1_000, seed: 101 + i }),
    }));
    const all = inputs.flatMap((x) => x.input);
    await produceRaw(s.kafka, config.kafka.topic, toRecords(withReplays(all, 5)));

    const stored = async () => {
      const [row] = await s.pg.sql<{ n: number }[]>`
        select count(*)::int as n from match_results where season_id in (${best.id}, ${sum.id})`;
      return row!.n;
    };
    const rand = prng(2024);
    let killsMidRun = 0;
    for (let kill = 0; kill < 3; kill++) {
      const before = await stored();
      const t0 = Date.now();
      child = startIngestProcess();
      // Kill once this run has applied something, at a random moment after that.
      await waitFor('the ingest process to make progress', async () => (await stored()) > before, 60_000);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      console.log(`kill ${kill}: ${before} -> ${await stored()} after ${Date.now() - t0} ms`);
      if ((await stored()) < all.length) killsMidRun++;
    }
    expect(killsMidRun).toBeGreaterThanOrEqual(2);

    child = startIngestProcess();
    await waitUntilCaughtUp(s, 'the restarted process to commit every message', 120_000);
    // Graceful shutdown: SIGTERM stops consuming, commits, closes clients and exits 0.
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    for (const { season, input } of inputs) {
      await expectStoredOnce(s, season.id, 10_000);
      await expectBoardsMatchOracle(
        s,
        season,
        input.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
      );
    }
  }, 300_000);
});
