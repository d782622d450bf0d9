// Boards a studio configures (issue 31, items 1, 2, 4): a season declares several boards, each
// ranking a stat (kills SUM, lap_time ascending) or several keys (wins, kills, then time ascending);
// one submission carries each player's stats and updates every board whose stats it carries, once,
// through the real API, Kafka, PostgreSQL and Redis. A retry stores nothing new, another payload
// for the matchId is a CONFLICT, and a bad stat refuses the whole match.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;
let seasonId: number;
let plain: number;

const CREATE = `mutation($input: CreateSeasonInput!) { createSeason(input: $input) {
  id boards { name stat keys { stat order max } scoring order rankStyle maxValue windows } } }`;
const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId accepted } }';
const TOP = `query($s: Int!, $b: String, $w: Window) { leaderboard(seasonId: $s, board: $b, window: $w) {
  board size season { id } top(limit: 10) { playerId points keys } } }`;
const P = (n: number) => String(832_000_000_000 + n);
const submit = (input: Record<string, unknown>) => api.gql(SUBMIT, { input }, submitter);
const stat = (name: string, value: number) => ({ name, value });

const BOARDS = [
  { name: 'score', maxValue: 10_000 },
  { name: 'kills', scoring: 'SUM', maxValue: 100, windows: ['SEASON', 'DAY'] },
  { name: 'lap_time', order: 'ASC', maxValue: 600_000, rankStyle: 'COMPETITION' },
  {
    name: 'royale',
    keys: [
      { stat: 'wins', max: 1, order: 'DESC' },
      { stat: 'kills', max: 100 },
      { stat: 'survived', order: 'ASC', max: 3600 },
    ],
  },
];

beforeAll(async () => {
  api = await startApi({ HISTORY_ARCHIVE_DIR: mkdtempSync(join(tmpdir(), 'ladder-boards-archive-')) });
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
  const season = (startsAt: Date, input: Record<string, unknown>) =>
    api.gql(
      CREATE,
      { input: { name: 'boards', startsAt, endsAt: new Date(Date.now() + 30 * 86_400_000), ...input } },
      admin,
    );
  const made = await season(new Date(Date.now() - 86_400_000), { boards: BOARDS });
  expect(made.errors).toBeUndefined();
  seasonId = made.data?.['createSeason'].id;
  const old = await season(new Date(Date.now() - 86_400_000), { scoring: 'BEST', maxPointsPerMatch: 1000 });
  plain = old.data?.['createSeason'].id;
});
afterAll(async () => {
  await api?.close();
});

/**
 * The ids of the season's rows (its own and its further boards'). Queries of match_results name
 * them: it is partitioned by season, and a query naming none plans every partition of the database.
 */
const rowsOf = async () =>
  (
    await api.s.pg.sql<Array<{ id: number }>>`select id from seasons where ${seasonId} in (id, parent_id) order by id`
  ).map((r) => r.id);

const top = async (board: string | null, window = 'SEASON') => {
  const res = await api.gql(TOP, { s: seasonId, b: board, w: window });
  expect(res.errors).toBeUndefined();
  return res.data?.['leaderboard'] as {
    board: string;
    size: number;
    season: { id: number };
    top: Array<{ playerId: string; points: number; keys: number[] | null }>;
  };
};

describe('a season with several boards', () => {
  it('declares its boards; a season without boards has one, points, as before', async () => {
    const res = await api.gql(
      `query($a: Int!, $b: Int!) { a: season(id: $a) { boards { name stat keys { stat } scoring order rankStyle maxValue windows } }
        b: season(id: $b) { boards { name stat keys { stat } scoring maxValue } } }`,
      { a: seasonId, b: plain },
    );
    expect(res.data?.['a'].boards).toEqual([
      {
        name: 'score',
        stat: 'score',
        keys: [],
        scoring: 'BEST',
        order: 'DESC',
        rankStyle: 'ORDINAL',
        maxValue: 10_000,
        windows: ['SEASON', 'DAY', 'WEEK'],
      },
      {
        name: 'kills',
        stat: 'kills',
        keys: [],
        scoring: 'SUM',
        order: 'DESC',
        rankStyle: 'ORDINAL',
        maxValue: 100,
        windows: ['SEASON', 'DAY'],
      },
      {
        name: 'lap_time',
        stat: 'lap_time',
        keys: [],
        scoring: 'BEST',
        order: 'ASC',
        rankStyle: 'COMPETITION',
        maxValue: 600_000,
        windows: ['SEASON', 'DAY', 'WEEK'],
      },
      {
        name: 'royale',
        stat: null,
        keys: [{ stat: 'wins' }, { stat: 'kills' }, { stat: 'survived' }],
        scoring: 'BEST',
        order: 'DESC',
        rankStyle: 'ORDINAL',
        // 1 + 7 + 12 bits
        maxValue: 2 ** 20 - 1,
        windows: ['SEASON', 'DAY', 'WEEK'],
      },
    ]);
    expect(res.data?.['b'].boards).toEqual([
      { name: 'points', stat: 'points', keys: [], scoring: 'BEST', maxValue: 1000 },
    ]);
  });

  it('counts each stat on every board that ranks it, once; a retry stores nothing, another payload is a CONFLICT', async () => {
    const first = {
      matchId: randomUUID(),
      seasonId,
      endedAt: minutesFromNow(-30),
      results: [
        { playerId: P(1), stats: [stat('score', 500), stat('kills', 7), stat('wins', 1), stat('survived', 900)] },
        { playerId: P(2), stats: [stat('score', 800), stat('kills', 9), stat('wins', 0), stat('survived', 1200)] },
        // Only a lap: counts on lap_time alone.
        { playerId: P(3), stats: [stat('lap_time', 61_250)] },
      ],
    };
    const one = await submit(first);
    expect(one.errors).toBeUndefined();
    // score 2, kills 2, lap_time 1, royale 2
    expect(one.data?.['submitMatchResult'].accepted).toBe(7);
    const second = {
      matchId: randomUUID(),
      seasonId,
      endedAt: minutesFromNow(-20),
      results: [
        { playerId: P(1), stats: [stat('kills', 5), stat('wins', 1), stat('survived', 600), stat('lap_time', 59_000)] },
        { playerId: P(3), stats: [stat('lap_time', 61_250)] },
      ],
    };
    expect((await submit(second)).errors).toBeUndefined();

    await waitFor('both matches on every board', async () => (await top('kills')).top[0]?.points === 12);
    expect((await top(null)).board).toBe('score');
    expect((await top('score')).top.map((e) => [e.playerId, e.points])).toEqual([
      [P(2), 800],
      [P(1), 500],
    ]);
    // SUM: 7 + 5 for player 1.
    expect((await top('kills')).top.map((e) => [e.playerId, e.points])).toEqual([
      [P(1), 12],
      [P(2), 9],
    ]);
    // Ascending; player 3's equal second lap is no better than the first.
    expect((await top('lap_time')).top.map((e) => [e.playerId, e.points])).toEqual([
      [P(1), 59_000],
      [P(3), 61_250],
    ]);
    // wins first, then kills, then the shorter survival: player 1's second match (1, 5, 600) is
    // worse than its first (1, 7, 900) on kills, so BEST keeps the first.
    const royale = await top('royale');
    expect(royale.season.id).toBe(seasonId);
    expect(royale.top.map((e) => [e.playerId, e.keys])).toEqual([
      [P(1), [1, 7, 900]],
      [P(2), [0, 9, 1200]],
    ]);
    expect((await top('score')).top[0]!.keys).toBeNull();
    // kills keeps SEASON and DAY boards only.
    const windows = await api.s.pg.sql<Array<{ window: string }>>`
      select distinct st.window::text as window from standings st join seasons s on s.id = st.season_id
      where s.parent_id = ${seasonId} and s.board = 'kills' order by 1`;
    expect(windows.map((w) => w.window)).toEqual(['DAY', 'SEASON']);

    // The same payload again: nothing new. Another payload for the matchId: CONFLICT.
    expect((await submit(first)).errors).toBeUndefined();
    const changed = structuredClone(first);
    changed.results[1]!.stats[1]!.value = 10;
    expect(errorOf(await submit(changed))[0]).toBe('CONFLICT');
    const rows = await api.s.pg.sql<Array<{ n: number }>>`
      select count(*)::int as n from match_results where season_id = any(${await rowsOf()}) and match_id = ${first.matchId}`;
    expect(rows[0]!.n).toBe(7);
  });

  it('refuses a stat out of its range, a stat no board ranks, a result that counts nowhere, and stores nothing', async () => {
    const match = (results: unknown[]) => ({ matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-5), results });
    const cases: Array<[unknown[], string]> = [
      [[{ playerId: P(9), stats: [stat('kills', 101)] }], 'stats'],
      [
        [{ playerId: P(9), stats: [stat('score', 1), stat('survived', 3601), stat('wins', 1), stat('kills', 1)] }],
        'stats',
      ],
      [[{ playerId: P(9), stats: [stat('score', 1), stat('deaths', 3)] }], 'stats'],
      [[{ playerId: P(9), points: 5 }], 'stats'],
      [[{ playerId: P(9), stats: [stat('score', 1), stat('score', 2)] }], 'stats'],
      [[{ playerId: P(9), stats: [stat('Score', 1)] }], 'stats'],
      [[{ playerId: P(9) }], 'stats'],
    ];
    for (const [results, field] of cases) {
      const res = await submit(match(results));
      expect([errorOf(res)[0], res.errors?.[0]?.extensions?.field], JSON.stringify(results)).toEqual([
        'BAD_USER_INPUT',
        field,
      ]);
    }
    const rows = await api.s.pg.sql`
      select 1 from match_results where season_id = any(${await rowsOf()}) and player_id = ${P(9)}`;
    expect(rows).toHaveLength(0);
  });

  it('answers an unknown board with BAD_USER_INPUT, and keeps the rows of further boards out of season(id)', async () => {
    const res = await api.gql(TOP, { s: seasonId, b: 'deaths' });
    expect([errorOf(res)[0], res.errors?.[0]?.extensions?.field]).toEqual(['BAD_USER_INPUT', 'board']);
    const kills = await api.s.pg.sql<Array<{ id: number }>>`
      select id from seasons where parent_id = ${seasonId} and board = 'kills'`;
    const hidden = await api.gql('query($id: Int!) { season(id: $id) { id } leaderboard(seasonId: $id) { size } }', {
      id: kills[0]!.id,
    });
    expect(hidden.data).toEqual({ season: null, leaderboard: null });
    const list = await api.gql('{ seasons { id boards { name } } }');
    const listed = list.data?.['seasons'] as Array<{ id: number; boards: Array<{ name: string }> }>;
    expect(listed.map((s) => s.id)).not.toContain(kills[0]!.id);
    expect(listed.find((s) => s.id === seasonId)?.boards.map((b) => b.name)).toEqual([
      'score',
      'kills',
      'lap_time',
      'royale',
    ]);
  });

  it('pushes a further board over topChanged, and rebuilds every board of the season from PostgreSQL', async () => {
    const sub = api.subscribe(
      `subscription($s: Int!) { topChanged(seasonId: $s, board: "royale", limit: 3) { playerId points keys } }`,
      { s: seasonId },
    );
    await waitFor('the first top', async () => sub.events.length > 0);
    expect(sub.events[0]!.data?.['topChanged'].map((e: { keys: number[] }) => e.keys)).toEqual([
      [1, 7, 900],
      [0, 9, 1200],
    ]);
    const report = await api.gql(
      'mutation($s: Int!) { rebuildLeaderboard(seasonId: $s) { boards members } }',
      { s: seasonId },
      admin,
    );
    expect(report.errors).toBeUndefined();
    // Every standing of every board of the season (the matches are minutes old: no board expired).
    const [stored] = await api.s.pg.sql<Array<{ boards: number; members: number }>>`
      select count(distinct (st.season_id, st.window, st.period))::int as boards, count(*)::int as members
      from standings st join seasons s on s.id = st.season_id where ${seasonId} in (s.id, s.parent_id)`;
    expect(stored!.boards).toBeGreaterThanOrEqual(11);
    expect(report.data?.['rebuildLeaderboard']).toEqual(stored);
    expect((await top('kills')).top.map((e) => e.points)).toEqual([12, 9]);
    sub.close();
  });
});

describe('removing a cheater from a season with several boards', () => {
  it('takes their results off every board of the season, blocks them once, and refuses their next match', async () => {
    const res = await api.gql(
      `mutation($s: Int!, $p: ID!) { removePlayerResults(input: { seasonId: $s, playerId: $p, reason: "aimbot", block: true }) {
        removedResults blocked boards { board window removed } } }`,
      { s: seasonId, p: P(2) },
      admin,
    );
    expect(res.errors).toBeUndefined();
    // score, kills and royale: one result each.
    const report = res.data?.['removePlayerResults'] as {
      removedResults: number;
      blocked: boolean;
      boards: Array<{ board: string; window: string; removed: boolean }>;
    };
    expect({ removedResults: report.removedResults, blocked: report.blocked }).toEqual({
      removedResults: 3,
      blocked: true,
    });
    expect(report.boards.filter((b) => b.window === 'SEASON')).toEqual(
      ['score', 'kills', 'royale'].map((board) => ({ board, window: 'SEASON', removed: true })),
    );
    for (const board of ['score', 'kills', 'royale'])
      expect((await top(board)).top.map((e) => e.playerId)).toEqual([P(1)]);
    const rows = await api.s.pg.sql`
      select 1 from match_results where season_id = any(${await rowsOf()}) and player_id = ${P(2)}`;
    expect(rows).toHaveLength(0);
    const again = await submit({
      matchId: randomUUID(),
      seasonId,
      endedAt: minutesFromNow(-2),
      results: [{ playerId: P(2), stats: [stat('kills', 1)] }],
    });
    expect(errorOf(again)[0]).toBe('PLAYER_BLOCKED');
  });
});

describe('closing a season with several boards', () => {
  it('finalizes every board: each answers from PostgreSQL as it did live, its Redis keys gone', async () => {
    const live = {
      kills: (await top('kills')).top,
      royale: (await top('royale')).top,
      lap_time: (await top('lap_time')).top,
    };
    const closed = await api.gql('mutation($id: Int!) { closeSeason(id: $id) { status } }', { id: seasonId }, admin);
    expect(closed.errors).toBeUndefined();
    const rows = await api.s.pg.sql<Array<{ board: string; final: boolean }>>`
      select board, finalized_at is not null as final from seasons where ${seasonId} in (id, parent_id) order by id`;
    expect(rows).toEqual(['score', 'kills', 'lap_time', 'royale'].map((board) => ({ board, final: true })));
    for (const id of await api.s.pg.sql<Array<{ id: number }>>`
      select id from seasons where ${seasonId} in (id, parent_id) order by id`)
      expect(await api.s.redis.keys(`lb:{s${id.id}}*`)).toEqual([]);
    for (const [board, entries] of Object.entries(live)) expect((await top(board)).top).toEqual(entries);

    // Archiving the season archives every board's raw results and drops their partitions; the
    // final standings keep answering.
    const archived = await api.app.seasonJobs.archive(seasonId);
    const ids = await rowsOf();
    expect([archived.seasonId, ...archived.boards.map((b) => b.seasonId)]).toEqual(ids);
    expect(archived.rows + archived.boards.reduce((n, b) => n + b.rows, 0)).toBe(8);
    const [left] = await api.s.pg.sql<Array<{ n: number }>>`
      select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.relname ~ ${`^match_results_s(${ids.join('|')})_`}`;
    expect(left!.n).toBe(0);
    for (const [board, entries] of Object.entries(live)) expect((await top(board)).top).toEqual(entries);
  });
});
