// The board page on a board that keeps CUSTOM periods (every 6 hours from the season start): the
// window picker offers it, the span now is shown live, and the period picker lists the spans that
// hold standings, named by their start (UTC), each read as a period of its own.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createLadderClient, type LadderClient } from '../../src/client/ladder-client.js';
import { launchChromium } from '../support/browser.js';
import { startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

const HOUR = 3_600_000;
const id = (n: number) => String(841_000_000_000 + n);
const anchor = Math.floor(Date.now() / HOUR) * HOUR - 25 * HOUR;
const current = anchor + Math.floor((Date.now() - anchor) / (6 * HOUR)) * 6 * HOUR;

let api: TestApi;
let game: LadderClient;
let browser: Browser;
let page: Page;
let seasonId: number;
const pageErrors: string[] = [];

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi();
  game = createLadderClient({ url: api.url, apiKey: await api.key('submit') });
  const made = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: 'Six-hourly Cup',
        startsAt: new Date(anchor).toISOString(),
        endsAt: new Date(anchor + 10 * 24 * HOUR).toISOString(),
        maxPointsPerMatch: 1000,
        windows: ['SEASON', 'DAY', 'CUSTOM'],
        periodHours: 6,
      },
    },
    await api.key('admin'),
  );
  expect(made.errors).toBeUndefined();
  seasonId = made.data!['createSeason'].id as number;
  for (const [n, points, endedAt] of [
    [1, 300, current - HOUR], // the span before
    [2, 200, current + 1],
    [3, 100, current + 2],
  ] as const)
    await game.submitMatchResult({
      matchId: randomUUID(),
      seasonId,
      endedAt: new Date(endedAt).toISOString(),
      results: [{ playerId: id(n), points }],
    });
  await waitFor('the results', async () => (await game.top({ seasonId, limit: 5 }))?.top.length === 3, 10_000);
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
}, 120_000);
afterEach(() => expect(pageErrors).toEqual([]));
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const topPlayers = () => page.$$eval('#top tbody tr', (rows) => rows.map((r) => r.getAttribute('data-player')));

it('offers the CUSTOM window, shows the span now live, and lists the spans by their start', async () => {
  await page.goto(`${api.base}/?season=${seasonId}`);
  await page.waitForFunction(() => document.querySelectorAll('#window option').length === 3, undefined, {
    timeout: 30_000,
  });
  expect(
    await page.$$eval('#window option', (os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent])),
  ).toEqual([
    ['SEASON', 'season'],
    ['DAY', 'today'],
    ['CUSTOM', 'this period'],
  ]);
  await page.selectOption('#window', 'CUSTOM');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('window') === 'CUSTOM');
  await page.waitForFunction(() => document.querySelectorAll('#top tbody tr').length === 2, undefined, {
    timeout: 30_000,
  });
  expect(await topPlayers()).toEqual([id(2), id(3)]);

  // The spans that hold standings, newest first, named by their start; the one before read as a period.
  const label = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  await page.waitForFunction(() => document.querySelectorAll('#period option').length === 3);
  const options = await page.$$eval('#period option', (os) =>
    os.map((o) => [o.textContent, (o as HTMLOptionElement).value]),
  );
  expect(options.slice(1).map(([text]) => text)).toEqual([
    `${label(current)} · 2 players`,
    `${label(current - 6 * HOUR)} · 1 players`,
  ]);
  await page.selectOption('#period', options[2]![1]!);
  await page.waitForFunction(
    (start) => document.querySelector('#status')?.textContent === `period of ${start}`,
    label(current - 6 * HOUR),
  );
  await page.waitForFunction(() => document.querySelectorAll('#top tbody tr').length === 1);
  expect(await topPlayers()).toEqual([id(1)]);
});
