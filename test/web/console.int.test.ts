// The console (/console, src/console/, web/console*.ts) in headless Chromium against a real ladder
// (API + ingest in this process, PostgreSQL, Redis, Kafka): sign in with an admin key, create a
// season and see it listed, close it, create a key and see its secret once, rotate it, revoke it; then the
// refusals, by fetch from this process: a wrong or non-admin key, an expired session, a session
// whose key was revoked, and forged cross-site mutations (another Origin, none, no CSRF token),
// each 403 with nothing changed. Leaves tmp/screenshots/console.png (and docs/console.png with
// UPDATE_SCREENSHOT=1, the one the README shows).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { launchChromium } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';

let api: TestApi;
let admin: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const elsewhere: string[] = [];
const TTL = 600;

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  // API_KEY_CACHE_MS 0: a revoked key is refused at once (else up to 5 s later, as documented).
  api = await startApi({ CONSOLE_SESSION_TTL_SECONDS: String(TTL), API_KEY_CACHE_MS: '0' });
  admin = await api.key('admin');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('request', (req) => {
    if (!req.url().startsWith(api.base)) elsewhere.push(req.url());
  });
  // Close and revoke ask first: accepted.
  page.on('dialog', (d) => void d.accept());
}, 120_000);
afterEach(() => {
  expect(pageErrors).toEqual([]);
  expect(elsewhere).toEqual([]);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** A datetime-local value `minutes` from now, in the local time zone (the browser's and this process's). */
function localInput(minutes: number): string {
  const d = new Date(Date.now() + minutes * 60_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

const cells = (selector: string) =>
  page.$$eval(`${selector} td`, (tds) => tds.map((td) => td.textContent ?? '').slice(0, -1));

const auditOf = (action: string) =>
  api.s.pg.sql<Array<{ actor: string; reason: string; outcome: string; details: unknown }>>`
    select actor, reason, outcome, details from admin_audit where action = ${action} order by id desc limit 1`;

it('signs in with an admin key, creates and closes a season, creates a key shown once and revokes it', async () => {
  await page.goto(`${api.base}/console`);
  await page.fill('#key', admin);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#nav:not([hidden])');
  expect(await page.textContent('#who')).toBe('signed in as test admin');
  // The session is an HttpOnly, SameSite=Strict cookie of /console; the key is kept nowhere.
  const [cookie] = await page.context().cookies();
  expect(cookie).toMatchObject({ name: 'ladder_console', httpOnly: true, sameSite: 'Strict', path: '/console' });
  expect(cookie!.value).not.toContain(admin);
  expect(cookie!.expires * 1000).toBeGreaterThan(Date.now() + (TTL - 60) * 1000);
  expect(cookie!.expires * 1000).toBeLessThan(Date.now() + (TTL + 60) * 1000);
  expect(page.url()).toBe(`${api.base}/console`);
  const stored = await page.evaluate(() =>
    JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.body.innerHTML]),
  );
  expect(stored).not.toContain(admin);

  // A season: created from the form, listed, then closed after a confirm.
  const name = uniqueName('Console season');
  await page.fill('#season-form [name=name]', name);
  await page.fill('#season-form [name=startsAt]', localInput(-60));
  await page.fill('#season-form [name=endsAt]', localInput(24 * 60));
  await page.selectOption('#season-form [name=scoring]', 'SUM');
  await page.fill('#season-form [name=maxPointsPerMatch]', '500');
  await page.fill(
    '#season-form [name=advanced]',
    '{ "boards": [{ "name": "points", "maxValue": 500 }, { "name": "kills", "maxValue": 50 }] }',
  );
  await page.click('#season-form button[type=submit]');
  await page.waitForSelector('#message:not([hidden])');
  expect(await page.textContent('#message')).toMatch(/^Season \d+ ".*" created\.$/);
  const season = await page.waitForSelector(`#seasons-table tbody tr:has(td:text-is("${name}"))`);
  const id = Number(await season.getAttribute('data-id'));
  expect(await cells(`#seasons-table tr[data-id="${id}"]`)).toEqual([
    String(id),
    name,
    'ACTIVE',
    expect.any(String),
    expect.any(String),
    'points, kills',
    '-',
    'no',
  ]);
  // Each board's definition on hover: what it ranks, how, and its windows.
  expect(await page.getAttribute(`#seasons-table tr[data-id="${id}"] td:nth-child(6)`, 'title')).toBe(
    'points: points (SUM, DESC, max 500 a match); SEASON DAY WEEK\nkills: kills (SUM, DESC, max 50 a match); SEASON DAY WEEK',
  );
  const listed = await api.gql<{ season: { name: string; scoring: string } }>(
    'query($id: Int!) { season(id: $id) { name scoring } }',
    { id },
  );
  expect(listed.data!.season).toEqual({ name, scoring: 'SUM' });
  const [created] = await auditOf('create_season');
  expect(created).toMatchObject({
    actor: 'test admin',
    outcome: 'ok',
    reason: expect.stringMatching(/^console \(API key \d+\)$/),
  });
  mkdirSync('tmp/screenshots', { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'tmp/screenshots/console.png' });
  if (process.env.UPDATE_SCREENSHOT === '1') copyFileSync('tmp/screenshots/console.png', 'docs/console.png');

  await page.click(`#seasons-table tr[data-id="${id}"] button:text("Close")`);
  await page.waitForSelector(`#seasons-table tr[data-id="${id}"][data-status="CLOSED"]`, { timeout: 60_000 });

  // A key: its secret shown once, listed (never the secret), then revoked.
  await page.click('#nav a[data-view=keys]');
  const keyName = uniqueName('console key');
  await page.fill('#key-form [name=name]', keyName);
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('#secret:not([hidden])');
  const secret = (await page.textContent('#secret-key'))!;
  expect(secret).toMatch(/^ldr_[A-Za-z0-9_-]{43}$/);
  const row = await page.waitForSelector(`#keys-table tbody tr:has(td:text-is("${keyName}"))`);
  const keyId = await row.getAttribute('data-id');
  expect(await cells(`#keys-table tr[data-id="${keyId}"]`)).toEqual([
    keyId,
    keyName,
    'submit',
    expect.any(String),
    '-',
    'active',
  ]);
  expect(await page.textContent('#keys-table')).not.toContain(secret);
  // It works: a submit-scoped call with it is authenticated (an unknown reward, not UNAUTHENTICATED).
  const claim = 'mutation { claimReward(key: "none") { key } }';
  expect((await api.gql(claim, {}, secret)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  await page.screenshot({ path: 'tmp/screenshots/console-keys.png', fullPage: true });
  // Shown once: gone when the page is shown again.
  await page.reload();
  await page.waitForSelector(`#keys-table tr[data-id="${keyId}"]`);
  expect(await page.isHidden('#secret')).toBe(true);
  expect(await page.content()).not.toContain(secret);

  // Rotated: a new key (its secret shown once) with the same name and scopes; the old one stops at once.
  await page.click(`#keys-table tr[data-id="${keyId}"] button:text("Rotate")`);
  await page.waitForSelector(`#keys-table tr[data-id="${keyId}"][data-state="revoked"]`);
  await page.waitForSelector('#secret:not([hidden])');
  const rotated = (await page.textContent('#secret-key'))!;
  expect(rotated).toMatch(/^ldr_[A-Za-z0-9_-]{43}$/);
  expect(rotated).not.toBe(secret);
  const newId = (await page.textContent('#secret-name'))!.split(' ')[0]!;
  expect(await cells(`#keys-table tr[data-id="${newId}"]`)).toEqual([
    newId,
    keyName,
    'submit',
    expect.any(String),
    '-',
    'active',
  ]);
  expect((await api.gql(claim, {}, secret)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect((await api.gql(claim, {}, rotated)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect((await auditOf('keys_rotate'))[0]).toMatchObject({ actor: 'test admin', outcome: 'ok' });

  // Revoked: refused from then on.
  await page.click(`#keys-table tr[data-id="${newId}"] button:text("Revoke")`);
  await page.waitForSelector(`#keys-table tr[data-id="${newId}"][data-state="revoked"]`);
  expect((await cells(`#keys-table tr[data-id="${newId}"]`))[5]).toMatch(/^revoked /);
  expect((await api.gql(claim, {}, rotated)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect((await auditOf('keys_revoke'))[0]).toMatchObject({ actor: 'test admin', outcome: 'ok' });

  // Signing out ends the session on the server too.
  const value = (await page.context().cookies())[0]!.value;
  await page.click('#sign-out');
  await page.waitForSelector('#sign-in:not([hidden])');
  expect((await get('/session', value)).status).toBe(401);
}, 120_000);

/** A console API call from this process, as a browser of `origin` would send it. */
function post(path: string, sid: string, opts: { origin?: string | null; csrf?: string; body?: unknown } = {}) {
  const origin = opts.origin === undefined ? api.base : opts.origin;
  return fetch(`${api.base}/console/api${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: `ladder_console=${sid}`,
      ...(origin ? { origin } : {}),
      ...(opts.csrf ? { 'x-csrf-token': opts.csrf } : {}),
    },
    body: JSON.stringify(opts.body ?? {}),
  });
}
const get = (path: string, sid: string) =>
  fetch(`${api.base}/console/api${path}`, { headers: { cookie: `ladder_console=${sid}` } });

/** Signs in by fetch: the session id (from Set-Cookie) and CSRF token. */
async function signIn(key: string): Promise<{ sid: string; csrf: string; setCookie: string }> {
  const res = await post('/session', '', { body: { key } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  const { csrf } = (await res.json()) as { csrf: string };
  return { sid: /ladder_console=([^;]+)/.exec(setCookie)![1]!, csrf, setCookie };
}

it('refuses a wrong or non-admin key, an expired session, a revoked key, and forged cross-site mutations', async () => {
  // Wrong keys, in the page and by fetch.
  await page.context().clearCookies();
  await page.goto(`${api.base}/console`);
  await page.fill('#key', `ldr_${'x'.repeat(43)}`);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#message.error:not([hidden])');
  expect(await page.textContent('#message')).toBe('Sign-in refused: unknown or revoked API key');
  expect(await page.isHidden('#nav')).toBe(true);
  expect(await page.context().cookies()).toEqual([]);
  expect((await post('/session', '', { body: { key: 'nonsense' } })).status).toBe(401);
  expect((await post('/session', '', { body: { key: await api.key('submit') } })).status).toBe(403);
  // Signing in from another site is refused too (login CSRF).
  expect((await post('/session', '', { origin: 'http://evil.example', body: { key: admin } })).status).toBe(403);

  const { sid, csrf, setCookie } = await signIn(admin);
  expect(setCookie).toBe(`ladder_console=${sid}; Max-Age=${TTL}; Path=/console; HttpOnly; SameSite=Strict`);
  // Behind a TLS proxy the cookie is Secure.
  const tls = await fetch(`${api.base}/console/api/session`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: api.base.replace('http:', 'https:'),
      'x-forwarded-proto': 'https',
    },
    body: JSON.stringify({ key: admin }),
  });
  expect(tls.headers.get('set-cookie')).toMatch(/; Secure$/);

  // Forged mutations: another origin, no origin at all, no or a wrong CSRF token. Each 403, nothing created.
  const name = uniqueName('Forged season');
  const input = { name, startsAt: minutesFromNow(-1), endsAt: minutesFromNow(60), maxPointsPerMatch: 10 };
  const forged = [
    await post('/seasons', sid, { origin: 'http://evil.example', csrf, body: { input } }),
    await post('/seasons', sid, { origin: null, csrf, body: { input } }),
    await post('/seasons', sid, { body: { input } }),
    await post('/seasons', sid, { csrf: csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), body: { input } }),
    await post('/keys', sid, { origin: 'http://evil.example', csrf, body: { name, scopes: ['admin'] } }),
    await post('/keys', sid, { body: { name, scopes: ['admin'] } }),
  ];
  expect(forged.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
  const seasons = await api.gql<{ seasons: Array<{ name: string }> }>('{ seasons { name } }');
  expect(seasons.data!.seasons.map((s) => s.name)).not.toContain(name);
  const keys = await createApiKeysRepo(api.s.pg.db).list();
  expect(keys.map((k) => k.name)).not.toContain(name);
  // A Referer of the console's own origin stands for a missing Origin; the same request, genuine, works.
  const viaReferer = await fetch(`${api.base}/console/api/keys`, {
    headers: {
      cookie: `ladder_console=${sid}`,
      referer: `${api.base}/console`,
      'x-csrf-token': csrf,
      'content-type': 'application/json',
    },
    method: 'POST',
    body: JSON.stringify({ name, scopes: ['submit'] }),
  });
  expect(viaReferer.status).toBe(200);
  expect((await post('/seasons', sid, { csrf, body: { input } })).status).toBe(200);

  // An expired session: refused, for reads and mutations alike.
  const expiring = await signIn(admin);
  expect((await get('/seasons', expiring.sid)).status).toBe(200);
  const sessionKey = `console:session:${createHash('sha256').update(expiring.sid).digest('hex')}`;
  const ttl = await api.s.redis.ttl(sessionKey);
  expect(ttl).toBeGreaterThan(TTL - 10);
  expect(ttl).toBeLessThanOrEqual(TTL);
  await api.s.redis.pexpire(sessionKey, 1);
  await new Promise((r) => setTimeout(r, 20));
  expect((await get('/seasons', expiring.sid)).status).toBe(401);
  expect((await post('/keys', expiring.sid, { csrf: expiring.csrf, body: { name, scopes: ['admin'] } })).status).toBe(
    401,
  );

  // A session whose key was revoked ends with it.
  const other = await createApiKey(createApiKeysRepo(api.s.pg.db), {
    name: uniqueName('revoked admin'),
    scopes: ['admin'],
  });
  const revoked = await signIn(other.key);
  expect((await get('/keys', revoked.sid)).status).toBe(200);
  await createApiKeysRepo(api.s.pg.db).revoke(other.id, 0);
  expect((await get('/keys', revoked.sid)).status).toBe(401);
  // The first session still works; a cross-site sign-out does not end it.
  expect(
    (
      await fetch(`${api.base}/console/api/session`, {
        method: 'DELETE',
        headers: { cookie: `ladder_console=${sid}`, origin: 'http://evil.example' },
      })
    ).status,
  ).toBe(403);
  expect((await get('/session', sid)).status).toBe(200);
}, 60_000);
