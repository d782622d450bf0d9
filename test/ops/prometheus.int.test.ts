// The alerting rules are checked, not only written (issue 34, item 4): promtool checks and unit-tests
// prometheus/ladder.rules.yml, and a real Prometheus (Debian's `prometheus`) scrapes a running ladder
// with those rules loaded: every series the rules read exists, and every rule evaluates cleanly.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { freePort } from '../support/process.js';
import { createSeason, produceRaw, waitFor } from '../support/services.js';

const run = promisify(execFile);
const RULES_DIR = fileURLToPath(new URL('../../prometheus/', import.meta.url));
const RULES = path.join(RULES_DIR, 'ladder.rules.yml');

let api: TestApi;
let prometheus: ChildProcess | undefined;
let dir: string;
let promUrl: string;

beforeAll(async () => {
  api = await startApi();
  dir = mkdtempSync(path.join(tmpdir(), 'ladder-prometheus-'));
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  const { host } = new URL(api.base);
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: ['${RULES}']`,
      'scrape_configs:',
      `  - { job_name: ladder, static_configs: [{ targets: ['${host}'] }] }`,
    ].join('\n'),
  );
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
});
afterAll(async () => {
  prometheus?.kill('SIGKILL');
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const query = async <T>(apiPath: string): Promise<T> => {
  const res = await fetch(`${promUrl}${apiPath}`);
  const body = (await res.json()) as { status: string; data: T };
  expect(body.status).toBe('success');
  return body.data;
};

describe('the Prometheus rules', () => {
  it('pass promtool check rules and promtool test rules', async () => {
    const check = await run('promtool', ['check', 'rules', RULES]);
    expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const test = await run('promtool', ['test', 'rules', 'ladder.rules.test.yml'], { cwd: RULES_DIR });
    expect(test.stdout).toContain('SUCCESS');
  });

  it('read only series a running ladder exports, and all evaluate cleanly in a real Prometheus', async () => {
    // Traffic that makes every labelled series appear: a match, a dead letter, a client error and
    // a reconcile (its drift gauge).
    const season = await createSeason(api.s, { name: 'prometheus' });
    const submitter = await api.key('submit');
    const admin = await api.key('admin');
    const submitted = await api.gql(
      'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
      {
        input: {
          matchId: randomUUID(),
          seasonId: season.id,
          endedAt: minutesFromNow(-1),
          results: [{ playerId: '834000000001', points: 5 }],
        },
      },
      submitter,
    );
    expect(submitted.errors).toBeUndefined();
    await produceRaw(api.s.kafka, api.config.kafka.topic, [{ key: '1', value: 'not json' }]);
    // A window the season does not keep: BAD_USER_INPUT, counted by code.
    const refused = await api.gql(`{ leaderboard(seasonId: ${season.id}, window: MONTH) { size } }`);
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    const reconciled = await api.gql(
      'mutation($s: Int!) { reconcileLeaderboard(seasonId: $s) { seasonId } }',
      { s: season.id },
      admin,
    );
    expect(reconciled.errors).toBeUndefined();

    // The series each rule reads: every ladder_* name in its expressions (a histogram's by its own
    // suffixed names), and `up`.
    const rules = readFileSync(RULES, 'utf8');
    const names = [...new Set(rules.match(/\bladder_[a-z_]+\b/g))].filter((n) => !n.startsWith('ladder_response'));
    expect(names.length).toBeGreaterThan(8);
    await waitFor(
      'Prometheus scraping ladder',
      async () => {
        try {
          const up = await query<{ result: Array<{ value: [number, string] }> }>(
            '/api/v1/query?query=up{job="ladder"}',
          );
          return up.result[0]?.value[1] === '1';
        } catch {
          return false;
        }
      },
      30_000,
    );
    await waitFor(
      'every series the rules read',
      async () => {
        for (const name of names) {
          const series = await query<unknown[]>(
            `/api/v1/series?match[]=${encodeURIComponent(`${name}{job="ladder"}`)}`,
          );
          if (series.length === 0) return false;
        }
        return true;
      },
      30_000,
    ).catch(async (err: unknown) => {
      const missing = [];
      for (const name of names)
        if ((await query<unknown[]>(`/api/v1/series?match[]=${encodeURIComponent(name)}`)).length === 0)
          missing.push(name);
      throw new Error(`series not exported: ${missing.join(', ')} (${String(err)})`);
    });
    // The readiness gauge tells each check, all ok here.
    const ready = await query<{ result: Array<{ metric: { check: string }; value: [number, string] }> }>(
      '/api/v1/query?query=ladder_ready',
    );
    expect(Object.fromEntries(ready.result.map((r) => [r.metric.check, r.value[1]]))).toEqual({
      postgres: '1',
      redis: '1',
      ingest: '1',
    });
    // Every rule has been evaluated, without an error, and no alert fires on this healthy ladder.
    await waitFor(
      'every rule evaluated',
      async () => {
        const { groups } = await query<{ groups: Array<{ rules: Array<{ health: string }> }> }>('/api/v1/rules');
        return groups.flatMap((g) => g.rules).every((r) => r.health === 'ok');
      },
      15_000,
    );
    const { groups } = await query<{
      groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string; state?: string }> }>;
    }>('/api/v1/rules');
    const all = groups.flatMap((g) => g.rules);
    expect(all).toHaveLength(14);
    expect(all.filter((r) => r.health !== 'ok' || r.lastError)).toEqual([]);
    expect(all.filter((r) => r.state === 'firing').map((r) => r.name)).toEqual([]);
  });
});
