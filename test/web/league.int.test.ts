// The board page's "My league" panel (web/league.ts) in headless Chromium against a real ladder
// (API + ingest in this process, PostgreSQL, Redis, Kafka): in a league season the followed
// player's tier, cohort, rank in the cohort and zone are shown with the cohort's rows, and follow
// their results live (relegation, then stay, then promotion); a player without a result in the
// season is "not placed yet" until their first one places them; a season without a league shows
// no panel. The Gold tier takes a season before: its close promotes the best of two cohorts.
// The panel, promoted, leaves a screenshot in tmp/screenshots/league-panel.png.
import { randomInt, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { launchChromium, waitLive } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
import { createSeason, waitUntilCaughtUp } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;
let browser: Browser;
let page: Page;
/** The league's second season: its Gold cohort holds the four players season 1 promoted. */
let seasonId: number;
const pageErrors: string[] = [];
// Player ids of this run alone: a player's tiers, scopes and name are theirs in every season.
const base = 9_000_000_000 + randomInt(1_000_000) * 100;
const id = (n: number) => String(base + n);
const name = (n: number) => `Leaguer ${n}`;

const league = {
  name: uniqueName('page').replace('-', '_'),
  tiers: ['Silver', 'Gold', 'Platinum'],
  cohortSize: 4,
  promote: 2,
  relegate: 1,
};

async function leagueSeason(): Promise<number> {
  const res = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: 'Page league',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(24 * 60),
        maxPointsPerMatch: 1000,
        league,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data!['createSeason'].id as number;
}

/** One match of `season`, then ingest caught up with it (a cohort is placed by ingest). */
async function match(season: number, results: Array<[number, number]>): Promise<void> {
  const res = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    {
      input: {
        matchId: randomUUID(),
        seasonId: season,
        endedAt: minutesFromNow(-1),
        results: results.map(([n, points]) => ({ playerId: id(n), points, displayName: name(n) })),
      },
    },
    submitter,
  );
  expect(res.errors).toBeUndefined();
  await waitUntilCaughtUp(api.s, 'the match');
}

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
  // Season 1, all in Silver: two matches, two cohorts (1-4, then 5-8); the close promotes the
  // best two of each to Gold: players 1, 2, 5 and 6.
  const first = await leagueSeason();
  await match(first, [
    [1, 400],
    [2, 300],
    [3, 200],
    [4, 100],
  ]);
  await match(first, [
    [5, 400],
    [6, 300],
    [7, 200],
    [8, 100],
  ]);
  const closed = await api.gql('mutation($s: Int!) { closeSeason(id: $s) { status } }', { s: first }, admin);
  expect(closed.errors).toBeUndefined();
  // Season 2: the four in one Gold cohort, player 6 last.
  seasonId = await leagueSeason();
  await match(seasonId, [
    [1, 400],
    [2, 300],
    [5, 200],
    [6, 100],
  ]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
}, 120_000);
afterEach(() => expect(pageErrors).toEqual([]));
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** The panel as shown: its dataset (tier, cohort, rank, zone), the zone's class and text, and the rows. */
const panel = () =>
  page.evaluate(() => {
    const standing = document.querySelector<HTMLElement>('#league-standing')!;
    const zone = standing.querySelector('.zone');
    return {
      ...standing.dataset,
      zoneClass: zone?.className ?? null,
      zoneText: zone?.textContent ?? null,
      rows: [...document.querySelectorAll('#league-table tbody tr')].map((r) => [
        r.getAttribute('data-rank'),
        r.querySelector('.name')?.textContent,
        r.querySelector('.points')?.textContent,
        r.classList.contains('me'),
      ]),
    };
  });

/** Waits until the panel shows the player at `rank` in `zone`. */
const shown = (rank: number, zone: string) =>
  page.waitForFunction(
    ([r, z]) => {
      const d = document.querySelector<HTMLElement>('#league-standing')?.dataset;
      return d?.rank === r && d?.zone === z;
    },
    [String(rank), zone],
    { timeout: 30_000 },
  );

it("shows the followed player's tier, cohort, rank and zone, and their cohort, live", async () => {
  await page.goto(`${api.base}/?season=${seasonId}&player=${id(6)}`);
  await page.waitForSelector('#league-view:not([hidden])', { timeout: 30_000 });
  await shown(4, 'RELEGATION');
  expect(await panel()).toEqual({
    tier: 'Gold',
    cohort: '0',
    rank: '4',
    zone: 'RELEGATION',
    zoneClass: 'zone relegation',
    zoneText: 'relegation ▼',
    rows: [
      ['1', name(1), '400', false],
      ['2', name(2), '300', false],
      ['3', name(5), '200', false],
      ['4', name(6), '100', true],
    ],
  });
  expect(await page.textContent('#league-standing')).toBe('Gold · cohort 0 · #4 of 4 relegation ▼');
  expect(await page.textContent('#league-name')).toBe(league.name);
  expect(await page.textContent('#league-rules')).toBe(
    'At the close the best 2 move up to Platinum, the worst 1 down to Silver.',
  );
  expect(await page.isHidden('#league-none')).toBe(true);
  // Each zone is styled its own way: its colour differs from the other two (checked at the end).
  const zoneColour = () => page.$eval('#league-standing .zone', (e) => getComputedStyle(e).color);
  const colours = [await zoneColour()];
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // Third: out of the relegation zone, no reload.
  await match(seasonId, [[6, 250]]);
  await shown(3, 'STAY');
  expect(await panel()).toMatchObject({
    zoneClass: 'zone stay',
    zoneText: 'stay',
    rows: [
      ['1', name(1), '400', false],
      ['2', name(2), '300', false],
      ['3', name(6), '250', true],
      ['4', name(5), '200', false],
    ],
  });
  colours.push(await zoneColour());
  // First: promotion.
  await match(seasonId, [[6, 500]]);
  await shown(1, 'PROMOTION');
  expect(await panel()).toMatchObject({
    tier: 'Gold',
    cohort: '0',
    zoneClass: 'zone promotion',
    zoneText: 'promotion ▲',
    rows: [
      ['1', name(6), '500', true],
      ['2', name(1), '400', false],
      ['3', name(2), '300', false],
      ['4', name(5), '200', false],
    ],
  });
  colours.push(await zoneColour());
  expect(new Set(colours).size).toBe(3);
  mkdirSync('tmp/screenshots', { recursive: true });
  await page.locator('#league-view').screenshot({ path: 'tmp/screenshots/league-panel.png' });
});

it('says "not placed yet" before the first result, and shows the cohort once it places the player', async () => {
  // Player 9 never played this league: Silver, its lowest tier, at their first result.
  await page.goto(`${api.base}/?season=${seasonId}&player=${id(9)}`);
  await page.waitForSelector('#league-none:not([hidden])', { timeout: 30_000 });
  expect(await page.textContent('#league-none')).toMatch(/^\s*Not placed yet/);
  expect(await page.isHidden('#league-standing')).toBe(true);
  expect(await page.$$eval('#league-table tbody tr', (rows) => rows.length)).toBe(0);

  await match(seasonId, [[9, 50]]);
  await shown(1, 'PROMOTION');
  expect(await page.isHidden('#league-none')).toBe(true);
  expect(await panel()).toMatchObject({ tier: 'Silver', cohort: '0', rows: [['1', name(9), '50', true]] });
  expect(await page.textContent('#league-rules')).toBe('At the close the best 2 move up to Gold.');
});

it('shows no league panel in a season without a league, nor without a player', async () => {
  const plain = (await createSeason(api.s, { name: 'No league', maxPointsPerMatch: 1000 })).id;
  await page.goto(`${api.base}/?season=${plain}&player=${id(1)}`);
  await waitLive(page);
  expect(await page.isHidden('#league-view')).toBe(true);
  await page.goto(`${api.base}/?season=${seasonId}`);
  await waitLive(page);
  expect(await page.isHidden('#league-view')).toBe(true);
});
