// `npm run cli -- seasons close`: the operator's way to close a season, run as a real child process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { testConfig, testEnv } from '../support/env.js';
import { ingestDirect, tieHeavyResults } from '../support/season-boards.js';
import { createSeason, createTopics, openServices, type Services } from '../support/services.js';

// Its own topic and group (empty: nothing to drain), Redis database 1, short cache TTLs.
const env = testEnv();
const config = testConfig(env);
let s: Services;

beforeAll(async () => {
  s = openServices(config);
  await createTopics(s.kafka, config);
});
afterAll(async () => {
  await s?.close();
});

const cli = (...args: string[]) => runCli(env, ...args);

describe('seasons close', () => {
  it('closes a season for good, audited with the reason; a second run says it was already final', async () => {
    const season = await createSeason(s, { name: 'closed from the CLI' });
    await ingestDirect(s, season, tieHeavyResults(season, { players: 300, seed: 701, maxPoints: 10 }), 90 * 24 * 3600);
    // Waits of 2 s and 1 s: long enough to see the progress come as the close goes.
    const slower = { ...env, SEASON_CACHE_TTL_MS: '1000', SEASON_CLOSE_GRACE_MS: '1000' };
    const args = ['seasons', 'close', '--season', String(season.id), '--reason', 'tournament cancelled'];
    const first = await runCli(slower, ...args);
    expect(first, first.stderr).toMatchObject({ code: 0 });
    // What it waits for, on stderr, each step as it begins (its topic is empty: nothing to drain).
    expect(first.stderrLines.map((l) => l.line)).toEqual(
      [
        'waiting 2.0 s for submissions already accepted to reach Kafka (SEASON_CACHE_TTL_MS + SEASON_CLOSE_GRACE_MS)',
        'the ingest group has applied every result Kafka held',
        'writing every final rank, and the rewards they earn, to PostgreSQL',
        'sending the rewards Kafka has not acknowledged yet to the rewards topic',
        'waiting 1.0 s for every process to read the season from PostgreSQL (SEASON_CACHE_TTL_MS)',
        'removing its Redis keys',
      ].map((line) => `close season ${season.id}: ${line}`),
    );
    const [waiting, , , , , removing] = first.stderrLines;
    expect(removing!.ms - waiting!.ms).toBeGreaterThanOrEqual(2_900);
    expect(first.stdout).toMatch(
      new RegExp(
        `^closed season ${season.id}: \\d+ final standings on \\d+ boards, 0 rewards granted \\(0 sent\\), \\d+ Redis keys removed, in [\\d.]+ s\\n$`,
      ),
    );
    expect(await s.redis.keys(`lb:{s${season.id}}*`)).toEqual([]);
    const audit = await s.pg.sql<Array<{ action: string; actor: string; reason: string }>>`
      select action, actor, reason from admin_audit where season_id = ${season.id} order by id`;
    expect(audit.map((a) => [a.action, a.reason])).toEqual([
      ['close_season', 'tournament cancelled'],
      ['finalize_season', 'tournament cancelled'],
    ]);
    expect(audit[0]!.actor).toMatch(/^cli:.+$/);

    const again = await cli('seasons', 'close', '--season', String(season.id), '--reason', 'again');
    expect(again).toMatchObject({
      code: 0,
      stdout: `season ${season.id} was already closed and final; 0 rewards sent, 0 leftover Redis keys removed\n`,
    });
  }, 90_000);

  it('exits 2 with the usage text without a reason', async () => {
    const res = await cli('seasons', 'close', '--season', '1');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--reason is required');
    expect(res.stderr).toContain('seasons close --season <id> --reason <text>');
  }, 60_000);
});
