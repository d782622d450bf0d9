// The console's live charts page (#charts, web/console-charts.ts) in headless Chromium against a
// real ladder (API + ingest in this process, PostgreSQL, Redis, Kafka): signed in, with results
// submitted and boards read while it is open, its charts show results stored/s, reads/s and the
// submissions' p99 above zero, drawn as SVG lines; shown another page, it stops reading
// /console/api/metrics; and that endpoint needs a session. Leaves tmp/screenshots/console-charts.png.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { createSeason } from '../support/services.js';

let api: TestApi;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const metricsReads: number[] = [];

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('request', (req) => {
    if (req.url().endsWith('/console/api/metrics')) metricsReads.push(Date.now());
  });
}, 120_000);
afterEach(() => expect(pageErrors).toEqual([]));
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** A chart's current value (its figure's data-value), NaN while it has none. */
const valueOf = (id: string) => page.$eval(`#chart-${id}`, (f) => Number((f as HTMLElement).dataset['value'] || NaN));

it('charts results/s, reads/s and p99 from the service metrics while open, and stops when left', async () => {
  const season = await createSeason(api.s, { name: 'Charts season' });
  const submitter = await api.key('submit');
  await page.goto(`${api.base}/console#charts`);
  await page.fill('#key', await api.key('admin'));
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#charts-view:not([hidden]) #chart-results');

  // Traffic while the page polls: a match of two players and a read of the top every 100 ms.
  let traffic = true;
  const game = (async () => {
    while (traffic) {
      const res = await api.gql(
        'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
        {
          input: {
            matchId: randomUUID(),
            seasonId: season.id,
            endedAt: minutesFromNow(-1),
            results: [
              { playerId: String(Math.floor(Math.random() * 1e9)), points: 10 },
              { playerId: String(Math.floor(Math.random() * 1e9)), points: 20 },
            ],
          },
        },
        submitter,
      );
      expect(res.errors).toBeUndefined();
      const read = await api.gql('query($s: Int!) { leaderboard(seasonId: $s) { top(limit: 10) { rank } } }', {
        s: season.id,
      });
      expect(read.errors).toBeUndefined();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await page.waitForFunction(
      // Two points at least: a line, kept between readings.
      () =>
        ['results', 'reads', 'submit-p99'].every(
          (id) => Number(document.querySelector<HTMLElement>(`#chart-${id}`)?.dataset['value']) > 0,
        ) && (document.querySelector('#chart-results polyline')?.getAttribute('points') ?? '').split(' ').length >= 2,
      undefined,
      { timeout: 30_000, polling: 200 },
    );
  } finally {
    traffic = false;
    await game;
  }
  expect(await valueOf('results')).toBeGreaterThan(0);
  expect(await page.textContent('#chart-results .value')).toMatch(/^[\d.]+\/s$/);
  // The line has points, and one of them above the bottom (y < 60).
  const ys = await page.$eval('#chart-results polyline', (l) =>
    (l.getAttribute('points') ?? '').split(' ').map((p) => Number(p.split(',')[1])),
  );
  expect(ys.length).toBeGreaterThanOrEqual(2);
  expect(Math.min(...ys)).toBeLessThan(60);
  mkdirSync('tmp/screenshots', { recursive: true });
  await page.screenshot({ path: 'tmp/screenshots/console-charts.png' });

  // Another page: no more reads of the metrics.
  await page.click('#nav a[data-view=keys]');
  await page.waitForSelector('#charts-view[hidden]', { state: 'attached' });
  const left = Date.now();
  await new Promise((r) => setTimeout(r, 5_000));
  expect(metricsReads.filter((t) => t > left + 500)).toEqual([]);

  // Without a session the endpoint answers 401.
  const res = await fetch(`${api.base}/console/api/metrics`);
  expect(res.status).toBe(401);
});
