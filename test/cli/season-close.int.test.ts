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
    const first = await cli('seasons', 'close', '--season', String(season.id), '--reason', 'tournament cancelled');
    expect(first, first.stderr).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(
      new RegExp(
        `^closed season ${season.id}: \\d+ final standings on \\d+ boards, \\d+ Redis keys removed, in [\\d.]+ s\\n$`,
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
      stdout: `season ${season.id} was already closed and final; 0 leftover Redis keys removed\n`,
    });
  }, 90_000);

  it('exits 2 with the usage text without a reason', async () => {
    const res = await cli('seasons', 'close', '--season', '1');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--reason is required');
    expect(res.stderr).toContain('seasons close --season <id> --reason <text>');
  }, 60_000);
});
