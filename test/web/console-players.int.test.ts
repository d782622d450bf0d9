// The console's players page (src/console/players.ts, web/console-players.ts) in headless Chromium
// against a real ladder (API + ingest, PostgreSQL, Redis, Kafka), beside the live board page in a
// second tab: find a player by name, hide them pending review and see them leave the live board
// (ranks close up), show them again and see them come back, block and unblock, remove one match
// from their latest results; each action audited under the session's key. A forged cross-site
// hide is refused and changes nothing.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;
let browser: Browser;
let consolePage: Page;
let boardPage: Page;
const pageErrors: string[] = [];

const base = 830_000_000_000 + Math.floor(Math.random() * 1e8) * 100;
const [suspect, second, third] = [String(base + 1), String(base + 2), String(base + 3)];
const suspectName = `Suspect ${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi({ BLOCKED_PLAYERS_CACHE_MS: '200' });
  admin = await api.key('admin');
  submitter = await api.key('submit');
  browser = await launchChromium();
  consolePage = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  boardPage = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  for (const p of [consolePage, boardPage]) p.on('pageerror', (err) => pageErrors.push(err.message));
  consolePage.on('dialog', (d) => void d.accept());
}, 120_000);
afterEach(() => {
  expect(pageErrors).toEqual([]);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function submit(seasonId: number, results: Array<{ playerId: string; points: number; displayName?: string }>) {
  const res = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId } }',
    { input: { matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-1), results } },
    submitter,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.submitMatchResult.matchId as string;
}

const boardRows = () =>
  boardPage.$$eval('#top tbody tr', (rows) => rows.map((r) => r.getAttribute('data-player')).join());

const waitForBoard = (ids: string[]) =>
  boardPage.waitForFunction(
    (want) => [...document.querySelectorAll('#top tbody tr')].map((r) => r.getAttribute('data-player')).join() === want,
    ids.join(),
    { timeout: 30_000 },
  );

async function action(button: string, reason: string, done: string): Promise<void> {
  await consolePage.fill('#player-reason', reason);
  await consolePage.click(button);
  await consolePage.waitForFunction((text) => document.querySelector('#message')?.textContent === text, done);
}

const lastAudit = async () =>
  (
    await api.s.pg.sql<Array<{ action: string; actor: string; reason: string; player_id: string }>>`
      select action, actor, reason, player_id::text from admin_audit where player_id = ${suspect} order by id desc limit 1`
  )[0];

it('hides a player from the live board page and shows them again, blocks, unblocks and removes a match', async () => {
  const created = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'moderation',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  const seasonId: number = created.data!.createSeason.id;
  const firstMatch = await submit(seasonId, [
    { playerId: suspect, points: 900, displayName: suspectName },
    { playerId: second, points: 500 },
    { playerId: third, points: 400 },
  ]);
  await submit(seasonId, [{ playerId: suspect, points: 800 }]);
  await waitFor('both matches stored', async () => {
    const [r] = await api.s.pg.sql<[{ n: string }]>`
      select count(*) as n from match_results where season_id = ${seasonId} and player_id = ${suspect}`;
    return r.n === '2';
  });

  await boardPage.goto(`${api.base}/?season=${seasonId}`);
  await waitForBoard([suspect, second, third]);

  await consolePage.goto(`${api.base}/console`);
  await consolePage.fill('#key', admin);
  await consolePage.click('#sign-in button[type=submit]');
  await consolePage.waitForSelector('#nav:not([hidden])');
  await consolePage.click('a[data-view=players]');
  // Found by the start of their name, any case: the one match opens.
  await consolePage.fill('#player-q', suspectName.slice(0, 12).toLowerCase());
  await consolePage.click('#player-search button[type=submit]');
  await consolePage.waitForSelector('#player-detail:not([hidden])');
  expect(await consolePage.textContent('#player-title')).toBe(`${suspectName} · ${suspect}`);
  const standings = () =>
    consolePage.$$eval('#player-standings tbody tr', (rows) =>
      rows.map((r) =>
        [...r.querySelectorAll('td')]
          .slice(1, 6)
          .map((td) => td.textContent)
          .join(' '),
      ),
    );
  expect((await standings())[0]).toMatch(/^points SEASON 900 .* 1$/);
  expect(await consolePage.$$eval('#player-results tbody tr', (rows) => rows.length)).toBe(2);

  await consolePage.fill('#player-season', String(seasonId));
  await action('#player-hide', 'reported for wallhack', 'Hidden from the boards pending review.');
  // The live page closes the ranks up by itself; the console still shows the stored standing.
  await waitForBoard([second, third]);
  expect(await boardPage.textContent('#top tbody tr:first-child .rank')).toBe('#1');
  expect(await consolePage.textContent('#player-moderation tbody')).toContain('hiddenreported for wallhack');
  expect((await standings())[0]).toMatch(/^points SEASON 900 .* not shown$/);
  expect(await lastAudit()).toEqual({
    action: 'hide_player',
    actor: 'test admin',
    reason: 'reported for wallhack',
    player_id: suspect,
  });

  await action('#player-unhide', 'cleared after review', 'Shown on the boards again.');
  await waitForBoard([suspect, second, third]);
  expect(await lastAudit()).toMatchObject({ action: 'unhide_player', reason: 'cleared after review' });

  await action('#player-block', 'second report', 'Blocked: later results are refused.');
  expect(await consolePage.textContent('#player-moderation tbody')).toContain('blockedsecond report');
  const refused = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId } }',
    {
      input: {
        matchId: randomUUID(),
        seasonId,
        endedAt: minutesFromNow(-1),
        results: [{ playerId: suspect, points: 1 }],
      },
    },
    submitter,
  );
  expect(refused.errors?.[0]?.extensions?.code).toBe('PLAYER_BLOCKED');
  await action('#player-unblock', 'lifted', 'Unblocked.');
  expect(await consolePage.textContent('#player-moderation tbody')).toBe('');

  // Remove the 900 match (the newest row is the 800 one): the player drops to 800 and stays first.
  await consolePage.fill('#player-reason', 'one bad match');
  const rowOf900 = consolePage.locator('#player-results tbody tr', { hasText: firstMatch });
  await rowOf900.locator('button').click();
  await consolePage.waitForFunction(() => document.querySelector('#message')?.textContent === 'Result removed.');
  expect(await consolePage.$$eval('#player-results tbody tr', (rows) => rows.length)).toBe(1);
  await boardPage.waitForFunction(
    () => document.querySelector('#top tbody tr:first-child .points')?.textContent?.replace(/\D/g, '') === '800',
    undefined,
    { timeout: 30_000 },
  );
  expect(await boardRows()).toBe([suspect, second, third].join());
  expect(await lastAudit()).toMatchObject({ action: 'remove_results', reason: 'one bad match' });

  // Region and groups from the page: queued, applied by ingest, shown when the page is opened again.
  await consolePage.fill('#player-region', 'BR-SP');
  await consolePage.fill('#player-groups', 'wolves, ravens');
  await consolePage.click('#player-scopes-form button[type=submit]');
  await consolePage.waitForFunction(() => document.querySelector('#message')?.textContent?.startsWith('Scopes queued'));
  await waitFor('the scopes applied', async () => {
    await consolePage.click('a[data-view=keys]');
    await consolePage.click('a[data-view=players]');
    return (await consolePage.textContent('#player-scopes')) === 'Scopes: BR-SP, ravens, wolves';
  });
  const [scopesAudit] = await api.s.pg.sql`
    select actor, details->>'via' as via from admin_audit
    where action = 'setPlayerScopes' and details->>'playerId' = ${suspect}`;
  expect(scopesAudit).toEqual({ actor: 'test admin', via: 'console' });
  const brazil = await api.gql(
    `{ leaderboard(seasonId: ${seasonId}, scope: { region: "BR" }) { top(limit: 5) { playerId } } }`,
  );
  expect(brazil.data!.leaderboard.top).toEqual([{ playerId: suspect }]);

  // A forged cross-site hide: refused before anything, the player stays on the board.
  const forged = await fetch(`${api.base}/console/api/players/${suspect}/hide`, {
    method: 'POST',
    headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
    body: JSON.stringify({ seasonId, reason: 'forged' }),
  });
  expect(forged.status).toBe(403);
  expect(await lastAudit()).toMatchObject({ action: 'remove_results' });
  await consolePage.screenshot({ path: 'tmp/screenshots/console-players.png', fullPage: true });
});
