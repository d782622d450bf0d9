import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi();
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
});

const ENTRY = 'rank playerId points achievedAt';

async function createSeason(input: Record<string, unknown>): Promise<number> {
  const res = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id status } }`,
    {
      input: {
        name: 'e2e',
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
        ...input,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createSeason.id;
}

async function submit(
  seasonId: number,
  endedAt: string,
  results: Array<[string, number, string?]>,
  matchId = randomUUID(),
) {
  const res = await api.gql(
    `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId accepted } }`,
    {
      input: {
        matchId,
        seasonId,
        endedAt,
        results: results.map(([playerId, points, displayName]) => ({ playerId, points, displayName })),
      },
    },
    submitter,
  );
  expect(res.errors).toBeUndefined();
  expect(res.data!.submitMatchResult.accepted).toBe(results.length);
  return matchId;
}

async function top(seasonId: number, extra = '') {
  const res = await api.gql(`{ leaderboard(seasonId: ${seasonId}${extra}) { size top(limit: 10) { ${ENTRY} } } }`);
  expect(res.errors).toBeUndefined();
  return res.data!.leaderboard as { size: number; top: Array<{ rank: number; playerId: string; points: number }> };
}

const ranked = (entries: Array<{ rank: number; playerId: string; points?: number }>) =>
  entries.map((e) => [e.rank, e.playerId, e.points]);

describe('the GraphQL API end to end', () => {
  // Player ids no other test file uses: display names live in one shared players table.
  it('shows a submitted match through top, entry, around and friends within a second, and pushes recordUpdated, rankChanged and topChanged', async () => {
    const seasonId = await createSeason({});
    const records = api.subscribe(
      `subscription($s: Int!) { recordUpdated(seasonId: $s) { seasonId playerId points rank achievedAt } }`,
      { s: seasonId },
    );
    const ranks = api.subscribe(
      `subscription($s: Int!) { rankChanged(seasonId: $s, playerId: "800000001001") { ${ENTRY} } }`,
      { s: seasonId },
    );
    const tops = api.subscribe(`subscription($s: Int!) { topChanged(seasonId: $s, limit: 3) { ${ENTRY} } }`, {
      s: seasonId,
    });
    await tops.waitFor('the initial (empty) top', (e) => Array.isArray(e.data?.topChanged));

    const t0 = Date.now();
    await submit(seasonId, minutesFromNow(-1), [
      ['800000001001', 30, 'Ann'],
      ['800000001002', 50],
      ['800000001003', 40],
    ]);
    // The board (Redis) shows the match within a second of its submission...
    await waitFor('the match to be visible', async () => (await top(seasonId)).size === 3, 1_000);
    console.log(`submitted → visible on the board in ${Date.now() - t0} ms`);
    // ...and the cached top follows at its next refresh (it serves its last copy meanwhile).
    await expect.poll(async () => (await top(seasonId)).top.length, { timeout: 3_000 }).toBe(3);

    const res = await api.gql(
      `query($s: Int!) { leaderboard(seasonId: $s) {
      top(limit: 10) { rank playerId points player { displayName } }
      entry(playerId: "800000001003") { rank points }
      around(playerId: "800000001001", radius: 1) { rank playerId }
      friends(playerIds: ["800000001001", "800000001002", "999"]) { rank playerId } } }`,
      { s: seasonId },
    );
    expect(res.errors).toBeUndefined();
    const lb = res.data!.leaderboard;
    expect(lb.top).toEqual([
      { rank: 1, playerId: '800000001002', points: 50, player: { displayName: null } },
      { rank: 2, playerId: '800000001003', points: 40, player: { displayName: null } },
      { rank: 3, playerId: '800000001001', points: 30, player: { displayName: 'Ann' } },
    ]);
    expect(lb.entry).toEqual({ rank: 2, points: 40 });
    // Last place: the window keeps its 2 * radius + 1 size by reaching further up.
    expect(lb.around).toEqual([
      { rank: 1, playerId: '800000001002' },
      { rank: 2, playerId: '800000001003' },
      { rank: 3, playerId: '800000001001' },
    ]);
    expect(lb.friends).toEqual([
      { rank: 1, playerId: '800000001002' },
      { rank: 3, playerId: '800000001001' },
    ]);

    for (const [player, points] of [
      ['800000001001', 30],
      ['800000001002', 50],
      ['800000001003', 40],
    ] as const) {
      await records.waitFor(
        `recordUpdated of ${player}`,
        (e) => e.data?.recordUpdated.playerId === player && e.data.recordUpdated.points === points,
      );
    }
    await ranks.waitFor('rankChanged: 800000001001 enters at rank 3', (e) => e.data?.rankChanged.rank === 3);
    await tops.waitFor(
      'topChanged with the three players',
      (e) =>
        JSON.stringify(e.data?.topChanged.map((x: { playerId: string }) => x.playerId)) ===
        '["800000001002","800000001003","800000001001"]',
    );

    // Someone overtakes 800000001001: its rank moves without 800000001001 playing.
    const endedAt = minutesFromNow(-1);
    const overtaking = await submit(seasonId, endedAt, [['800000001004', 35]]);
    await ranks.waitFor('rankChanged: 800000001001 overtaken, now 4th', (e) => e.data?.rankChanged.rank === 4, 5_000);
    await records.waitFor('recordUpdated of 800000001004', (e) => e.data?.recordUpdated.playerId === '800000001004');

    // A lower score and a replayed match emit no record update, and change no board.
    const before = records.events.length;
    await submit(seasonId, endedAt, [['800000001004', 35]], overtaking);
    await submit(seasonId, minutesFromNow(-1), [
      ['800000001002', 10],
      ['800000001005', 1],
    ]);
    await records.waitFor(
      'recordUpdated of newcomer 800000001005',
      (e) => e.data?.recordUpdated.playerId === '800000001005',
    );
    expect(records.events.slice(before).map((e) => e.data?.recordUpdated.playerId)).toEqual(['800000001005']);
    expect(ranked((await top(seasonId)).top).slice(0, 2)).toEqual([
      [1, '800000001002', 50],
      [2, '800000001003', 40],
    ]);
  });

  it('orders ties by who reached the score first (ORDINAL) and shares ranks 1,2,2,4 (COMPETITION)', async () => {
    const ordinal = await createSeason({ rankStyle: 'ORDINAL' });
    const competition = await createSeason({ rankStyle: 'COMPETITION' });
    for (const seasonId of [ordinal, competition]) {
      await submit(seasonId, minutesFromNow(-30), [
        ['1', 50],
        ['2', 40],
      ]);
      await submit(seasonId, minutesFromNow(-20), [
        ['3', 40],
        ['4', 30],
      ]);
    }
    // Polled: results land player by player, and top is served from a cache refreshed behind readers.
    await expect
      .poll(async () => ranked((await top(ordinal)).top), { timeout: 10_000 })
      .toEqual([
        [1, '1', 50],
        [2, '2', 40],
        [3, '3', 40],
        [4, '4', 30],
      ]);
    await expect
      .poll(async () => ranked((await top(competition)).top), { timeout: 10_000 })
      .toEqual([
        [1, '1', 50],
        [2, '2', 40],
        [2, '3', 40],
        [4, '4', 30],
      ]);
    const res = await api.gql(
      `{ leaderboard(seasonId: ${competition}) { entry(playerId: "3") { rank } around(playerId: "4", radius: 1) { rank playerId } } }`,
    );
    expect(res.data!.leaderboard).toEqual({
      entry: { rank: 2 },
      around: [
        { rank: 2, playerId: '2' },
        { rank: 2, playerId: '3' },
        { rank: 4, playerId: '4' },
      ],
    });
  });

  it('ranks fewer points first on an ASC season (time trials)', async () => {
    const seasonId = await createSeason({ order: 'ASC', maxPointsPerMatch: 100_000 });
    await submit(seasonId, minutesFromNow(-10), [
      ['7', 6120],
      ['8', 5980],
      ['9', 6500],
    ]);
    await submit(seasonId, minutesFromNow(-5), [['9', 5900]]); // 9 improves its time
    await expect
      .poll(async () => ranked((await top(seasonId)).top), { timeout: 10_000 })
      .toEqual([
        [1, '9', 5900],
        [2, '8', 5980],
        [3, '7', 6120],
      ]);
  });

  it("completes a partial score split with the defaults of the season's own scoring mode", async () => {
    // SUM defaults are 31 point bits and minutes; BEST's 21 bits and seconds would make 20 time
    // bits hold 12 days, too short for this 33-day season.
    const sum = await createSeason({ scoring: 'SUM', timeBits: 20 });
    expect((await api.s.seasons.get(sum))?.split).toEqual({ pointsBits: 31, timeBits: 20, timeUnitSeconds: 60 });
    const best = await createSeason({ scoring: 'BEST', pointsBits: 20 });
    expect((await api.s.seasons.get(best))?.split).toEqual({ pointsBits: 20, timeBits: 32, timeUnitSeconds: 1 });
  });

  it('picks DAY and WEEK boards with `at`, by the time the match ended', async () => {
    const seasonId = await createSeason({ startsAt: minutesFromNow(-20 * 24 * 60) });
    const tenDaysAgo = minutesFromNow(-10 * 24 * 60);
    await submit(seasonId, tenDaysAgo, [['21', 100]]);
    // A minute ago, but today (UTC): just after midnight a minute ago is on yesterday's DAY board.
    const recent = new Date(Math.max(Date.now() - 60_000, new Date().setUTCHours(0, 0, 0, 0))).toISOString();
    await submit(seasonId, recent, [['22', 50]]);
    await waitFor('ingested', async () => (await top(seasonId)).size === 2);
    const poll = (args: string) =>
      expect.poll(async () => ranked((await top(seasonId, args)).top), { timeout: 10_000 });
    await poll(`, window: DAY, at: "${tenDaysAgo}"`).toEqual([[1, '21', 100]]);
    await poll(', window: DAY').toEqual([[1, '22', 50]]);
    await poll(`, window: WEEK, at: "${tenDaysAgo}"`).toEqual([[1, '21', 100]]);
    const res = await api.gql(
      `{ leaderboard(seasonId: ${seasonId}, window: DAY, at: "${tenDaysAgo}") { window periodStart } }`,
    );
    expect(res.data!.leaderboard).toEqual({ window: 'DAY', periodStart: `${tenDaysAgo.slice(0, 10)}T00:00:00.000Z` });
  });

  it('accepts an identical retry of a match but refuses its matchId reused with other results (CONFLICT)', async () => {
    const [seasonId, other] = [await createSeason({}), await createSeason({})];
    const endedAt = minutesFromNow(-2);
    const matchId = await submit(seasonId, endedAt, [
      ['31', 10],
      ['32', 20],
    ]);
    await waitFor('ingested', async () => (await top(seasonId)).size === 2);
    await submit(
      seasonId,
      endedAt,
      [
        ['31', 10],
        ['32', 20],
      ],
      matchId,
    ); // a game server's retry: fine
    const conflicting = async (season: number, results: Array<[string, number]>) =>
      (
        await api.gql(
          'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
          {
            input: {
              matchId,
              seasonId: season,
              endedAt,
              results: results.map(([playerId, points]) => ({ playerId, points })),
            },
          },
          submitter,
        )
      ).errors?.[0]?.extensions;
    expect(
      await conflicting(seasonId, [
        ['31', 99],
        ['32', 20],
      ]),
    ).toEqual({ code: 'CONFLICT', field: 'matchId' });
    expect(
      await conflicting(other, [
        ['31', 10],
        ['32', 20],
      ]),
    ).toEqual({ code: 'CONFLICT', field: 'matchId' });
  });

  it('loads the players of a whole page in one PostgreSQL query at most, and none once they are held', async () => {
    const seasonId = await createSeason({});
    await submit(
      seasonId,
      minutesFromNow(-1),
      Array.from({ length: 20 }, (_, i) => [String(500 + i), i, `p${i}`] as [string, number, string]),
    );
    // Results land player by player: wait for the whole match.
    await waitFor('ingested', async () => (await top(seasonId)).size === 20);
    const loads = () => api.app.api!.names.stats().loads;
    const query = `{ leaderboard(seasonId: ${seasonId}) { top(limit: 20) { player { displayName } } around(playerId: "505") { player { displayName } } } }`;
    const before = loads();
    const res = await api.gql(query);
    expect(res.data!.leaderboard.top).toHaveLength(20);
    expect(res.data!.leaderboard.top.map((e: { player: { displayName: string } }) => e.player.displayName)).toEqual(
      Array.from({ length: 20 }, (_, i) => `p${19 - i}`),
    );
    expect(loads() - before).toBeLessThanOrEqual(1); // the page's names in one query (DataLoader + name cache)
    await api.gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 20) { playerId player { displayName } } } }`);
    expect(loads() - before).toBeLessThanOrEqual(1); // held in memory now
  });

  it('masks an unexpected error: a stable code, none of its internals', async () => {
    const seasonId = await createSeason({});
    await submit(seasonId, minutesFromNow(-1), [['41', 10]]);
    await expect.poll(async () => (await top(seasonId)).top.length, { timeout: 30_000 }).toBe(1);
    const services = api.app.api!.services;
    const original = services.playerNames;
    // A fault injected behind the real server: what a driver bug or a lost connection looks like.
    services.playerNames = async () => {
      throw new Error('connect to 10.1.2.3 failed: password=hunter2');
    };
    try {
      const res = await api.gql(
        `{ seasons { id } leaderboard(seasonId: ${seasonId}) { top(limit: 1) { player { displayName } } } }`,
      );
      const body = JSON.stringify(res);
      expect(res.errors?.[0]).toMatchObject({
        message: 'Unexpected error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      expect(body).not.toMatch(/hunter2|10\.1\.2\.3|stack/);
      expect(Array.isArray(res.data?.seasons)).toBe(true); // the rest of the response still answers
    } finally {
      services.playerNames = original;
    }
  });

  it('serves GraphiQL with no internet (assets bundled), /health, /ready and /metrics', async () => {
    const page = await fetch(api.url, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('GraphiQL');
    expect(html).not.toMatch(/https?:\/\/(unpkg\.com|cdn\.jsdelivr\.net)/);
    expect((await fetch(`${api.base}/health`)).status).toBe(200);
    const ready = await fetch(`${api.base}/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { ok: true, checks: { postgres: 'ok', redis: 'ok', ingest: 'ok' } },
    });
    const metrics = await (await fetch(`${api.base}/metrics`)).text();
    for (const name of [
      'ladder_submissions_total',
      'ladder_results_ingested_total',
      'ladder_consumer_lag_seconds',
      'ladder_top_cache_age_seconds',
      'ladder_graphql_duration_seconds',
    ]) {
      expect(metrics).toContain(name);
    }
  });
});
