// The audit trail (issue 34, item 2) against the real stack: every admin action from GraphQL or the
// CLI is a row with its actor, arguments and outcome, failures included; the trail is readable by
// the auditLog query and `cli audit`; and PostgreSQL itself refuses to change or remove a row.
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/env.js';

let api: TestApi;
let admin: string;
const cli = (...args: string[]) => runCli({ DATABASE_URL: TEST_DATABASE_URL }, ...args);

beforeAll(async () => {
  api = await startApi();
  admin = await api.key('admin');
});
afterAll(async () => {
  await api?.close();
});

type Entry = { id: number; actor: string; action: string; seasonId: number | null; outcome: string; details: any };
const trail = async (vars: Record<string, unknown>, key = admin) =>
  api.gql<{ auditLog: Entry[] }>(
    `query($first: Int, $seasonId: Int, $action: String) {
      auditLog(first: $first, seasonId: $seasonId, action: $action) { id actor action seasonId outcome details at reason }
    }`,
    vars,
    key,
  );

describe('the audit trail', () => {
  it('records GraphQL admin actions with the key, the arguments and the outcome, failures too', async () => {
    const name = uniqueName('audited');
    const input = {
      name,
      startsAt: minutesFromNow(-60),
      endsAt: minutesFromNow(60 * 24),
      scoring: 'BEST',
      maxPointsPerMatch: 10,
    };
    const created = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      { i: input },
      admin,
    );
    const seasonId = created.data!['createSeason'].id as number;
    const refused = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      { i: { ...input, maxPointsPerMatch: 0 } },
      admin,
    );
    expect(refused.errors?.[0]?.extensions?.['code']).toBeDefined();
    for (const query of [
      `mutation { rebuildLeaderboard(seasonId: ${seasonId}) { members } }`,
      `mutation { reconcileLeaderboard(seasonId: ${seasonId}, repair: true) { durationMs } }`,
    ])
      expect((await api.gql(query, {}, admin)).errors).toBeUndefined();

    const { data } = await trail({ first: 200 });
    const mine = data!.auditLog.filter(
      (e) => e.seasonId === seasonId || (e.action === 'create_season' && e.details?.input?.name === name),
    );
    // Newest first: reconcile, rebuild, the refused create, the create.
    expect(mine.map((e) => [e.action, e.outcome])).toEqual([
      ['reconcile', 'ok'],
      ['rebuild', 'ok'],
      ['create_season', refused.errors![0]!.extensions!['code']],
      ['create_season', 'ok'],
    ]);
    expect(new Set(mine.map((e) => e.actor))).toEqual(new Set(['test admin']));
    expect(mine[0]!.details).toEqual({ repair: true });
    expect(mine[3]!.details.input).toMatchObject({ name, maxPointsPerMatch: 10 });

    // Filters, and the scope: a submit key may not read it.
    const byAction = (await trail({ first: 500, action: 'rebuild', seasonId })).data!.auditLog;
    expect(byAction.map((e) => e.action)).toEqual(['rebuild']);
    const submitter = await api.key('submit');
    expect((await trail({}, submitter)).errors?.[0]?.extensions?.['code']).toBe('FORBIDDEN');
    expect((await trail({ first: 501 })).errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
  });

  it('records CLI actions as cli:<user>, and `cli audit` prints them as NDJSON', async () => {
    const name = uniqueName('audited key');
    const created = await cli('keys', 'create', '--name', name, '--scope', 'submit');
    expect(created.code).toBe(0);
    const failed = await cli('keys', 'revoke', '999999999');
    expect(failed.code).not.toBe(0);
    const run = await cli('audit', '--action', 'keys_create', '--limit', '20');
    expect(run.code).toBe(0);
    const entries = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
    const entry = entries.find((e) => e.details?.options?.name === name);
    expect(entry).toMatchObject({ actor: `cli:${userInfo().username}`, action: 'keys_create', outcome: 'ok' });
    expect(entry!.details.options).toEqual({ name, scope: 'submit' });
    const revoke = JSON.parse((await cli('audit', '--action', 'keys_revoke', '--limit', '1')).stdout) as Entry;
    expect(revoke.details).toEqual({ options: {}, arguments: ['999999999'] });
    expect(revoke.outcome).not.toBe('ok');
  });

  it('cannot be changed or removed: PostgreSQL refuses UPDATE, DELETE and TRUNCATE', async () => {
    const [row] = await api.s.pg.sql<[{ id: number }]>`select max(id) as id from admin_audit`;
    for (const statement of [
      api.s.pg.sql`update admin_audit set reason = 'rewritten' where id = ${row.id}`,
      api.s.pg.sql`delete from admin_audit where id = ${row.id}`,
      api.s.pg.sql`truncate admin_audit`,
    ])
      await expect(statement).rejects.toThrow(/admin_audit is append-only/);
  });
});
