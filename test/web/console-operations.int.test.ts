// The console's operations and audit pages (src/console/operations.ts, audit-view.ts, jobs.ts;
// web/console-operations.ts, console-audit.ts) in headless Chromium against a real ladder (API +
// ingest in this process, PostgreSQL, Redis, Kafka): results submitted to a season, its Redis board
// corrupted behind ladder's back, a reconcile from the page reports the drift, a repair and a
// rebuild put it right (Redis checked against PostgreSQL directly); a big season's rebuild shows its
// progress while it runs; a closed season's final standings downloaded as CSV and NDJSON; the audit
// page filtered by action shows what was just done and downloads as NDJSON. Then the refusals, by
// fetch: forged cross-site or CSRF-less starts (403, nothing started or audited), and the sign-in
// limit per client address (429 with Retry-After). Leaves tmp/screenshots/console-operations.png and
// console-audit.png.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { seasonBoard } from '../../src/domain/board.js';
import { boardKey } from '../../src/redis/keys.js';
import { launchChromium } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
import { createSeason, waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi({ API_KEY_CACHE_MS: '0' });
  [admin, submitter] = await Promise.all([api.key('admin'), api.key('submit')]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('dialog', (d) => void d.accept()); // repair and rebuild ask first
}, 120_000);
afterEach(() => expect(pageErrors).toEqual([]));
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** A season of 12 players with distinct points (no ties), on its boards in Redis. */
async function seasonWithResults(): Promise<number> {
  const created = await api.gql<{ createSeason: { id: number } }>(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: uniqueName('Console operations'),
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  const seasonId = created.data!.createSeason.id;
  for (let m = 0; m < 3; m++) {
    const results = [0, 1, 2, 3].map((i) => ({
      playerId: String(710_000_000_000 + m * 4 + i),
      points: 10 + m * 4 + i,
    }));
    const submitted = await api.gql(
      `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
      { input: { matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-5 - m), results } },
      submitter,
    );
    expect(submitted.errors).toBeUndefined();
  }
  await waitFor('the results on the board', async () => (await api.s.redis.zcard(seasonKey(seasonId))) === 12);
  return seasonId;
}

const seasonKey = (seasonId: number) => boardKey(seasonBoard({ id: seasonId }));

/** The SEASON board's players best first, in Redis and in PostgreSQL's standings. */
async function boardAndTruth(seasonId: number): Promise<[string[], string[]]> {
  const redis = await api.s.redis.zrevrange(seasonKey(seasonId), 0, -1);
  const pg = await api.s.pg.sql<Array<{ id: string }>>`
    select player_id::text as id from standings where season_id = ${seasonId} and "window" = 'SEASON'
    order by points desc, achieved_at, player_id`;
  return [redis, pg.map((r) => r.id)];
}

/** Runs a job from the operations page's row of the season; returns the finished job's state line. */
async function runJob(seasonId: number, label: string): Promise<string> {
  const previous = await page.getAttribute('#job', 'data-id');
  await page.click(`#operations-table tr[data-id="${seasonId}"] button:text-is("${label}")`);
  await page.waitForFunction(
    (before) => {
      const job = document.querySelector<HTMLElement>('#job')!;
      return job.dataset['id'] !== before && job.dataset['state'] !== 'running' && job.dataset['state'];
    },
    previous,
    { timeout: 60_000 },
  );
  expect(await page.getAttribute('#job', 'data-state')).toBe('done');
  return (await page.textContent('#job-state'))!;
}

const cells = (selector: string) =>
  page.$$eval(`${selector} td`, (tds) => tds.map((td) => td.textContent ?? '').slice(0, -1));

async function downloaded(selector: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

it('reconciles, repairs and rebuilds with progress, exports final standings and shows the audit trail', async () => {
  const seasonId = await seasonWithResults();
  await page.goto(`${api.base}/console#operations`);
  await page.fill('#key', admin);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector(`#operations-table tr[data-id="${seasonId}"]`);

  // Behind ladder's back: two players gone from the SEASON board, one that has no result added.
  const [before] = await boardAndTruth(seasonId);
  await api.s.redis.zrem(seasonKey(seasonId), before[0]!, before[5]!);
  await api.s.redis.zadd(seasonKey(seasonId), 1, '799999999999');

  // Reconcile reports the drift, changes nothing.
  expect(await runJob(seasonId, 'Reconcile')).toBe(
    'Drift: 2 missing, 1 extra, 0 different (reported only: repair to fix).',
  );
  expect(await cells('#job-boards tbody tr:last-child')).toEqual(['total', '36', '35', '2', '1', '0', '0']);
  expect((await cells('#job-boards tbody tr:first-child'))[0]).toBe('SEASON ');
  expect(await page.textContent('#job-count')).toBe('36 of 36 members');
  expect(await api.s.redis.zcard(seasonKey(seasonId))).toBe(11);
  mkdirSync('tmp/screenshots', { recursive: true });
  await page.screenshot({ path: 'tmp/screenshots/console-operations.png', fullPage: true });

  // Repair writes PostgreSQL's values over it: the board equals the standings again.
  expect(await runJob(seasonId, 'Repair')).toBe('Drift: 2 missing, 1 extra, 0 different; 3 repaired.');
  let [redis, truth] = await boardAndTruth(seasonId);
  expect(truth).toHaveLength(12);
  expect(redis).toEqual(truth);
  expect(await runJob(seasonId, 'Reconcile')).toMatch(/^No drift: Redis matches PostgreSQL/);

  // Rebuild: the board deleted outright comes back whole.
  await api.s.redis.del(seasonKey(seasonId));
  expect(await runJob(seasonId, 'Rebuild')).toMatch(/^Rebuilt 3 boards, 36 members in \d+ ms\.$/);
  [redis, truth] = await boardAndTruth(seasonId);
  expect(redis).toEqual(truth);
  // The job's status is in Redis (any API worker answers a poll), kept an hour once finished.
  const jobId = (await page.getAttribute('#job', 'data-id'))!;
  const ttl = await api.s.redis.ttl(`console:job:${jobId}`);
  expect(ttl).toBeGreaterThan(3500);
  expect(ttl).toBeLessThanOrEqual(3600);

  // Progress while it runs: a big season's rebuild, every frame the page shows recorded.
  const big = await createSeason(api.s, { name: uniqueName('Console big season'), daysAgo: 1 });
  const MEMBERS = 300_000;
  await api.s.pg.sql`
    insert into standings (season_id, "window", period, player_id, points, achieved_at)
    select ${big.id}, 'SEASON', '', 800000000000 + i, i, now() - interval '1 hour'
    from generate_series(1, ${MEMBERS}) i`;
  await page.reload();
  await page.waitForSelector(`#operations-table tr[data-id="${big.id}"]`);
  await page.evaluate(() => {
    const frames: string[] = [];
    (window as unknown as { frames_: string[] }).frames_ = frames;
    new MutationObserver(() => frames.push(document.querySelector('#job-count')!.textContent ?? '')).observe(
      document.querySelector('#job-count')!,
      { childList: true, characterData: true, subtree: true },
    );
  });
  expect(await runJob(big.id, 'Rebuild')).toMatch(/^Rebuilt \d+ boards, 300000 members/);
  const frames = await page.evaluate(() => (window as unknown as { frames_: string[] }).frames_);
  const done = frames.flatMap((f) => /^(\d+) of 300000 members$/.exec(f)?.[1] ?? []).map(Number);
  expect(done.at(-1)).toBe(MEMBERS);
  expect(
    done.some((n) => n > 0 && n < MEMBERS),
    frames.join(' | '),
  ).toBe(true);
  expect(await api.s.redis.zcard(seasonKey(big.id))).toBe(MEMBERS);
  await api.s.redis.del(seasonKey(big.id));
  await api.s.pg.sql`delete from standings where season_id = ${big.id}`;

  // Export: the season closed, its final standings downloaded, the same as the CLI's export writes.
  const closed = await api.gql('mutation($id: Int!) { closeSeason(id: $id) { status } }', { id: seasonId }, admin);
  expect(closed.errors).toBeUndefined();
  await page.reload();
  const row = `#operations-table tr[data-id="${seasonId}"]`;
  await page.waitForSelector(`${row} a.export`);
  const expected = async (format: 'csv' | 'ndjson') => {
    let text = '';
    await api.app.seasonJobs.exportFinal({ seasonId, filter: {}, format }, async (c) => void (text += c));
    return text;
  };
  const csv = await downloaded(`${row} a:text("Export CSV")`);
  expect(csv.name).toBe(`season-${seasonId}-final.csv`);
  expect(csv.text).toBe(await expected('csv'));
  const lines = csv.text.trimEnd().split('\r\n');
  expect(lines[0]).toBe('rank,player_id,display_name,points,achieved_at,window,period');
  expect(lines.filter((l) => l.endsWith(',SEASON,'))).toHaveLength(12);
  expect(lines.find((l) => l.endsWith(',SEASON,'))).toMatch(new RegExp(`^1,${truth[0]},,21,`));
  const ndjson = await downloaded(`${row} a:text("Export NDJSON")`);
  expect(ndjson.text).toBe(await expected('ndjson'));
  const first = ndjson.text.split('\n').find((l) => l.includes('"window":"SEASON"'))!;
  expect(JSON.parse(first)).toMatchObject({ rank: 1, player_id: truth[0], points: 21 });

  // The audit page, filtered by action: the reconciles and the repair just run, newest first.
  await page.click('#nav a[data-view=audit]');
  await page.fill('#audit-form [name=action]', 'reconcile');
  await page.fill('#audit-form [name=seasonId]', String(seasonId));
  await page.click('#audit-form button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 3);
  const audited = await page.$$eval('#audit-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).slice(2, 9)),
  );
  const reconcileRow = (repair: boolean) => [
    'test admin',
    'reconcile',
    String(seasonId),
    '-',
    'ok',
    expect.stringMatching(/^console \(API key \d+\)$/),
    JSON.stringify({ repair }),
  ];
  expect(audited).toEqual([reconcileRow(false), reconcileRow(true), reconcileRow(false)]);
  // Every action of the season, and the export of the filtered trail.
  await page.fill('#audit-form [name=action]', '');
  await page.click('#audit-form button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length >= 8);
  const actions = await page.$$eval('#audit-table tbody tr', (trs) => trs.map((tr) => tr.dataset['action']));
  expect(actions).toEqual([
    'export_standings',
    'export_standings',
    'finalize_season',
    'close_season',
    'rebuild',
    'reconcile',
    'reconcile',
    'reconcile',
  ]);
  await page.fill('#audit-form [name=action]', 'export_standings');
  await page.click('#audit-form button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 2);
  await page.screenshot({ path: 'tmp/screenshots/console-audit.png', fullPage: true });
  const trail = await downloaded('#audit-export');
  expect(trail.name).toBe('audit.ndjson');
  const entries = trail.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { action: string; seasonId: number; details: unknown; outcome: string });
  expect(entries.map((e) => [e.action, e.seasonId, e.details, e.outcome])).toEqual([
    ['export_standings', seasonId, { format: 'ndjson' }, 'ok'],
    ['export_standings', seasonId, { format: 'csv' }, 'ok'],
  ]);
}, 180_000);

/** A console API call from this process; `local`: the client address to connect from. */
function consoleCall(
  method: string,
  path: string,
  opts: { sid?: string; csrf?: string; origin?: string | null; body?: unknown; local?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const origin = opts.origin === undefined ? api.base : opts.origin;
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.base}/console/api${path}`,
      {
        method,
        localAddress: opts.local,
        headers: {
          'content-type': 'application/json',
          ...(opts.sid ? { cookie: `ladder_console=${opts.sid}` } : {}),
          ...(origin ? { origin } : {}),
          ...(opts.csrf ? { 'x-csrf-token': opts.csrf } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

it('refuses forged cross-site and CSRF-less starts: 403, nothing started or audited', async () => {
  const seasonId = await seasonWithResults();
  const signedIn = await consoleCall('POST', '/session', { body: { key: admin } });
  expect(signedIn.status).toBe(200);
  const sid = /ladder_console=([^;]+)/.exec(String(signedIn.headers['set-cookie']))![1]!;
  const { csrf } = JSON.parse(signedIn.body) as { csrf: string };
  const audited = async () =>
    (
      await api.s.pg.sql<Array<{ n: number }>>`
        select count(*)::int as n from admin_audit where season_id = ${seasonId}`
    )[0]!.n;
  // The jobs of this season (other test files may start jobs meanwhile).
  const jobs = async () => {
    const keys = await api.s.redis.keys('console:job:*');
    const all = keys.length > 0 ? await api.s.redis.mget(keys) : [];
    return all.filter((j) => j !== null && (JSON.parse(j) as { seasonId: number }).seasonId === seasonId).length;
  };
  const [auditedBefore, jobsBefore] = [await audited(), await jobs()];
  const forged = [
    await consoleCall('POST', `/seasons/${seasonId}/rebuild`, { sid, csrf, origin: 'http://evil.example' }),
    await consoleCall('POST', `/seasons/${seasonId}/rebuild`, { sid, csrf, origin: null }),
    await consoleCall('POST', `/seasons/${seasonId}/rebuild`, { sid }),
    await consoleCall('POST', `/seasons/${seasonId}/reconcile`, { sid, body: { repair: true } }),
    await consoleCall('POST', `/seasons/${seasonId}/reconcile`, { sid, csrf: csrf.slice(1), body: { repair: true } }),
  ];
  expect(forged.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
  // Without a session, the reads are refused too.
  expect((await consoleCall('GET', '/audit')).status).toBe(401);
  expect((await consoleCall('GET', `/seasons/${seasonId}/export`)).status).toBe(401);
  await new Promise((r) => setTimeout(r, 200));
  expect([await audited(), await jobs()]).toEqual([auditedBefore, jobsBefore]);
  // The same start, genuine, runs.
  const started = await consoleCall('POST', `/seasons/${seasonId}/reconcile`, { sid, csrf, body: { repair: false } });
  expect(started.status).toBe(200);
  const { id } = JSON.parse(started.body) as { id: string };
  await waitFor('the reconcile done', async () => {
    const job = await consoleCall('GET', `/jobs/${id}`, { sid });
    return (JSON.parse(job.body) as { state: string }).state === 'done';
  });
  expect(await audited()).toBe(auditedBefore + 1);
  // An unknown season: the job fails, and says why.
  const unknown = await consoleCall('POST', '/seasons/2147483647/rebuild', { sid, csrf });
  const job = JSON.parse(unknown.body) as { id: string };
  let failed: { state: string; error: string } | undefined;
  await waitFor('the rebuild failed', async () => {
    failed = JSON.parse((await consoleCall('GET', `/jobs/${job.id}`, { sid })).body) as typeof failed;
    return failed!.state !== 'running';
  });
  expect(failed).toMatchObject({ state: 'failed', error: expect.stringMatching(/2147483647/) });
  expect((await consoleCall('GET', '/jobs/no-such-job-id-000000', { sid })).status).toBe(400);
  // The audit view pages newest first with `before`, as the auditLog query does.
  const page1 = JSON.parse((await consoleCall('GET', `/audit?action=reconcile&first=1`, { sid })).body) as Array<{
    id: number;
    action: string;
  }>;
  const page2 = JSON.parse(
    (await consoleCall('GET', `/audit?action=reconcile&first=5&before=${page1[0]!.id}`, { sid })).body,
  ) as Array<{ id: number; action: string }>;
  expect(page1).toMatchObject([{ action: 'reconcile' }]);
  expect(page2.length).toBeGreaterThan(0);
  expect(page2.every((e) => e.id < page1[0]!.id && e.action === 'reconcile')).toBe(true);
  expect((await consoleCall('GET', '/audit?first=501', { sid })).status).toBe(400);
});

it('limits sign-in attempts per client address: 429 with Retry-After after 10, other addresses unaffected', async () => {
  const from = '127.0.0.2'; // all of 127/8 is this machine: an address of its own
  const wrong = `ldr_${'x'.repeat(43)}`;
  for (let i = 0; i < 10; i++)
    expect((await consoleCall('POST', '/session', { body: { key: wrong }, local: from })).status).toBe(401);
  const limited = await consoleCall('POST', '/session', { body: { key: wrong }, local: from });
  expect(limited.status).toBe(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(12);
  // Even the right key waits: the limit is on attempts, so guesses cannot be told apart by it.
  expect((await consoleCall('POST', '/session', { body: { key: admin }, local: from })).status).toBe(429);
  expect((await consoleCall('POST', '/session', { body: { key: admin } })).status).toBe(200);
});
