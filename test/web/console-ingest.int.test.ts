// The console's ingest page (src/console/ingest.ts, web/console-ingest.ts) in headless Chromium
// against a real ladder (API + ingest in this process, PostgreSQL, Redis, Kafka): a blocked
// player's result produced to Kafka as a game server would (twice: a retry), a malformed scope
// change and a result for a season that does not exist are dead-lettered; the page lists them with
// why and where from. After the unblock a replay from the page counts the result once (one row in
// PostgreSQL, its points once on the board); replaying it again, and "replay all", change nothing:
// the retry's copy is stored once, no replayed letter is sent again, the scope change is refused,
// and the still-poison result comes back as a new dead letter. Every replay is audited; a replay
// without the CSRF token or from another origin is 403; two replays of one letter at once send it
// once. Leaves tmp/screenshots/console-ingest.png.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-web.sh']);
  api = await startApi({ API_KEY_CACHE_MS: '0', BLOCKED_PLAYERS_CACHE_MS: '200' });
  admin = await api.key('admin');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('dialog', (d) => void d.accept()); // "replay all" asks first
}, 120_000);
afterEach(() => expect(pageErrors).toEqual([]));
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const BLOCK = (op: string) => `mutation($input: PlayerBlockInput!) { ${op}(input: $input) { blocked changed } }`;

async function produce(messages: Array<{ key: string; value: string; headers?: Record<string, string> }>) {
  const producer = api.s.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic: api.config.kafka.topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

async function highs(topic: string): Promise<number> {
  const admin = api.s.kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The player's rows in PostgreSQL and their points on the season's board. */
async function counted(seasonId: number, matchId: string, playerId: string) {
  const rows = await api.s.pg.sql`
    select points from match_results where season_id = ${seasonId} and match_id = ${matchId} and player_id = ${playerId}`;
  const res = await api.gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 10) { playerId points } } }`);
  const top = res.data!.leaderboard.top as Array<{ playerId: string; points: number }>;
  return { rows: rows.length, board: top.filter((e) => e.playerId === playerId).map((e) => e.points) };
}

/** The DLQ table's rows: offset, code, reason, match, player, state (data-state). */
const letters = () =>
  page.$$eval('#dlq-table tbody tr', (trs) =>
    trs.map((tr) => {
      const td = [...tr.querySelectorAll('td')].map((c) => c.textContent ?? '');
      return {
        offset: td[0]!,
        code: td[2]!,
        reason: td[3]!,
        source: td[4]!,
        match: td[5]!,
        player: td[6]!,
        state: (tr as HTMLElement).dataset['state']!,
      };
    }),
  );

/** Opens the ingest page again until the DLQ holds `size` letters. */
async function untilDlqHolds(size: number): Promise<void> {
  await waitFor(`${size} dead letters on the page`, async () => {
    await page.goto(`${api.base}/console#ingest`);
    await page.reload();
    await page.waitForSelector('#ingest-summary[data-dlq]');
    return (await page.getAttribute('#ingest-summary', 'data-dlq')) === String(size);
  });
  await page.waitForFunction((n) => document.querySelectorAll('#dlq-table tbody tr').length === n, size);
}

it('lists dead letters with their reason, replays one exactly once after the unblock, and replay all changes no count', async () => {
  const created = await api.gql<{ createSeason: { id: number } }>(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: uniqueName('Ingest page'),
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(24 * 60),
        scoring: 'SUM', // counted twice would show as twice the points
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  const seasonId = created.data!.createSeason.id;
  const player = '830000000001';
  const input = { seasonId, playerId: player, reason: 'under review' };
  expect((await api.gql(BLOCK('blockPlayer'), { input }, admin)).data!.blockPlayer).toMatchObject({ blocked: true });

  // As a game server's API would have produced them: the blocked player's result twice (a retry),
  // a malformed scope change, a result of a season that does not exist.
  const matchId = randomUUID();
  const result = { v: 1, matchId, seasonId, endedAt: minutesFromNow(-1), playerId: player, points: 70 };
  const lost = { ...result, matchId: randomUUID(), seasonId: 2_000_000_000 };
  await produce([
    { key: player, value: JSON.stringify(result) },
    { key: player, value: JSON.stringify(result) },
    {
      key: player,
      value: JSON.stringify({ v: 1, kind: 'scopes', playerId: 'nobody' }),
      headers: { 'x-kind': 'scopes' },
    },
    { key: player, value: JSON.stringify(lost) },
  ]);

  await page.goto(`${api.base}/console`);
  await page.fill('#key', admin);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#nav:not([hidden])');
  await page.click('#nav a[data-view=ingest]');
  await untilDlqHolds(4);
  expect(await page.textContent('#ingest-summary')).toMatch(/^lag \d+ · (…|[\d.]+) results\/s · DLQ 4 · read /);
  expect(await page.$$eval('#lag-table tbody tr', (trs) => trs.length)).toBe(api.config.kafka.partitions);
  const dead = await letters();
  const blocked = dead.filter((l) => l.match === matchId);
  expect(blocked).toHaveLength(2);
  for (const l of blocked) {
    expect(l).toMatchObject({ code: 'PLAYER_BLOCKED', player, state: 'new' });
    expect(l.reason).toContain(player);
    expect(l.source).toMatch(/^\d+\/\d+$/);
  }
  expect(dead.find((l) => l.match === lost.matchId)).toMatchObject({ code: 'SEASON_NOT_FOUND', state: 'new' });
  expect(dead.find((l) => l.code === 'BAD_USER_INPUT')).toMatchObject({ state: 'refused', match: '-' });
  expect(await counted(seasonId, matchId, player)).toEqual({ rows: 0, board: [] });
  mkdirSync('tmp/screenshots', { recursive: true });
  await page.screenshot({ path: 'tmp/screenshots/console-ingest.png', fullPage: true });

  // Unblocked, then replayed from the page: counted once.
  await api.gql(BLOCK('unblockPlayer'), { input: { ...input, reason: 'cleared' } }, admin);
  await new Promise((r) => setTimeout(r, 500)); // ingest's block cache (200 ms)
  const first = blocked[0]!.offset;
  await page.click(`#dlq-table tr[data-offset="${first}"] button:text("Replay")`);
  await page.waitForSelector(`#dlq-table tr[data-offset="${first}"][data-state="replayed"]`);
  expect(await page.textContent('#message')).toBe(`Dead letter ${first} replayed.`);
  await waitFor('the replayed result stored and on the board', async () => {
    const c = await counted(seasonId, matchId, player);
    return c.rows === 1 && c.board.length === 1;
  });
  expect(await counted(seasonId, matchId, player)).toEqual({ rows: 1, board: [70] });
  const [audit] = await api.s.pg.sql`
    select actor, season_id, player_id::text, reason, details, outcome from admin_audit
    where action = 'dlq_replay' and details->>'offset' = ${first} and details->>'dlqTopic' = ${api.config.kafka.dlqTopic}`;
  expect(audit).toMatchObject({
    actor: 'test admin',
    season_id: seasonId,
    player_id: player,
    outcome: 'ok',
    reason: expect.stringMatching(/^console \(API key \d+\)$/),
    details: { partition: 0, matchId, code: 'PLAYER_BLOCKED', replayed: true },
  });

  // By fetch with the session: the same letter again is not sent again; the scope change is refused.
  const sid = (await page.context().cookies())[0]!.value;
  const csrf = await page.evaluate(
    async () => ((await (await fetch('/console/api/session')).json()) as { csrf: string }).csrf,
  );
  const replay = (path: string, headers: Record<string, string> = { 'x-csrf-token': csrf, origin: api.base }) =>
    fetch(`${api.base}/console/api/ingest/dlq${path}`, {
      method: 'POST',
      headers: { cookie: `ladder_console=${sid}`, ...headers },
    });
  const sentBefore = await highs(api.config.kafka.topic);
  const again = await replay(`/0/${first}/replay`);
  expect(await again.json()).toEqual({ partition: 0, offset: first, replayed: false, alreadyReplayed: true });
  const scopes = dead.find((l) => l.code === 'BAD_USER_INPUT')!.offset;
  const refused = await replay(`/0/${scopes}/replay`);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toMatch(/^a scope change is not replayed/);
  // Forged: no CSRF token, or another origin: 403, nothing sent.
  expect((await replay(`/0/${blocked[1]!.offset}/replay`, { origin: api.base })).status).toBe(403);
  expect((await replay('/replay-all', { origin: api.base })).status).toBe(403);
  expect((await replay('/replay-all', { 'x-csrf-token': csrf, origin: 'http://evil.example' })).status).toBe(403);
  expect(await highs(api.config.kafka.topic)).toBe(sentBefore);

  // Replay all: the retry's copy (stored once) and the still-poison result (back to the DLQ); not
  // the replayed letter, not the scope change.
  await page.click('#dlq-replay-all');
  await page.waitForFunction(() => document.querySelector('#message')?.textContent?.includes('dead letters replayed'));
  expect(await page.textContent('#message')).toBe('2 dead letters replayed, 1 not replayable.');
  expect(await highs(api.config.kafka.topic)).toBe(sentBefore + 2);
  await untilDlqHolds(5);
  const after = await letters();
  const back = after.find((l) => l.match === lost.matchId && l.state === 'new')!;
  expect(back).toMatchObject({ code: 'SEASON_NOT_FOUND', offset: '4' });
  expect(
    after
      .filter((l) => l.state === 'replayed')
      .map((l) => l.offset)
      .sort(),
  ).toEqual(
    dead
      .filter((l) => l.code !== 'BAD_USER_INPUT')
      .map((l) => l.offset)
      .sort(),
  );
  expect(await counted(seasonId, matchId, player)).toEqual({ rows: 1, board: [70] });
  const [all] = await api.s.pg.sql`
    select details, outcome from admin_audit where action = 'dlq_replay_all' and details->>'dlqTopic' = ${api.config.kafka.dlqTopic}`;
  expect(all).toMatchObject({ outcome: 'ok', details: { replayed: 2, refused: 1 } });

  // Two replays of one letter at once: one sends it.
  const both = await Promise.all([replay('/0/4/replay'), replay('/0/4/replay')]);
  const answers = (await Promise.all(both.map((r) => r.json()))) as Array<{ replayed: boolean }>;
  expect(answers.map((a) => a.replayed).sort()).toEqual([false, true]);
  expect(await highs(api.config.kafka.topic)).toBe(sentBefore + 3);
  // And replay all once more: only the letter that poison came back as (offset 5), nothing counted.
  await untilDlqHolds(6);
  const last = (await (await replay('/replay-all')).json()) as { replayed: number; refused: number };
  expect(last).toEqual({ replayed: 1, refused: 1, more: false });
  await untilDlqHolds(7);
  expect(await counted(seasonId, matchId, player)).toEqual({ rows: 1, board: [70] });
}, 180_000);
