import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { produceRaw, waitFor } from '../support/services.js';

// The read path: one snapshot per board, the response cache, persisted GETs and HTTP validators.
let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_READS_PER_SEC: '1000000', RATE_LIMIT_READS_BURST: '1000000' });
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
});

async function createSeason(input: Record<string, unknown> = {}): Promise<number> {
  const res = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'serving',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 100_000,
        ...input,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createSeason.id;
}

/** Results straight into Kafka, one message per player (what the API would produce). */
async function produce(seasonId: number, results: Array<[string, number]>): Promise<void> {
  const matchId = randomUUID();
  await produceRaw(
    api.s.kafka,
    api.config.kafka.topic,
    results.map(([playerId, points]) => ({
      key: playerId,
      value: JSON.stringify({ v: 1, matchId, seasonId, endedAt: minutesFromNow(-1), playerId, points }),
    })),
  );
}

/** Keeps results landing on a board until stopped: new players and improvements. */
function writer(seasonId: number, firstPlayer: number, pauseMs = 20) {
  let stop = false;
  let n = 0;
  const done = (async () => {
    while (!stop) {
      n++;
      await produce(seasonId, [
        [String(firstPlayer + n), (n * 7_919) % 5_000],
        [String(firstPlayer + (n % 7) + 1), 5_000 + n],
      ]);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return async () => {
    stop = true;
    await done;
    return n;
  };
}

type Row = { rank: number; playerId: string; points: number };
type Top = { size: number; top: Row[] };

/** The ranks a page of a board must show given its points, best first, from rank 1. */
function expectedRanks(style: 'ORDINAL' | 'COMPETITION', points: number[]): number[] {
  return points.map((p, i) => (style === 'ORDINAL' ? i + 1 : 1 + points.filter((q, j) => j < i && q !== p).length));
}

describe('one snapshot per board', () => {
  for (const [order, rankStyle] of [
    ['DESC', 'ORDINAL'],
    ['DESC', 'COMPETITION'],
    ['ASC', 'ORDINAL'],
    ['ASC', 'COMPETITION'],
  ] as const) {
    it(`${order} ${rankStyle}: size, top, entry, around and friends agree in every answer while results land`, async () => {
      const seasonId = await createSeason({ order, rankStyle });
      const stopWriting = writer(seasonId, 1_000, 0);
      // Player 1001 keeps improving (the writer's second result), 1002-1004 too, 1100 comes later.
      const row = 'rank playerId points';
      const query =
        `{ leaderboard(seasonId: ${seasonId}) { size top(limit: 1000) { ${row} } entry(playerId: "1001") { ${row} } ` +
        `around(playerId: "1001", radius: 2) { ${row} } friends(playerIds: ["1004", "1001", "1100", "9999"]) { ${row} } } }`;
      let answers = 0;
      let lastSize = 0;
      try {
        const until = Date.now() + 3_000;
        while (Date.now() < until || lastSize < 20) {
          const res = await api.gql<{ leaderboard: Top }>(query);
          expect(res.errors).toBeUndefined();
          const { size, top, entry, around, friends } = res.data!.leaderboard as Top & {
            entry: Row | null;
            around: Row[];
            friends: Row[];
          };
          expect(top.length).toBe(size);
          expect(top.map((e) => e.rank)).toEqual(
            expectedRanks(
              rankStyle,
              top.map((e) => e.points),
            ),
          );
          // The per-player fields are read at the same instant as the top (one board, one snapshot).
          const at = top.findIndex((e) => e.playerId === '1001');
          expect(entry).toEqual(at < 0 ? null : top[at]);
          const first = Math.max(0, Math.min(at - 2, top.length - 5));
          expect(around).toEqual(at < 0 ? [] : top.slice(first, first + 5));
          expect(friends).toEqual(top.filter((e) => ['1004', '1001', '1100'].includes(e.playerId)));
          expect(size).toBeGreaterThanOrEqual(lastSize); // never an older snapshot than one already served
          lastSize = size;
          answers++;
        }
      } finally {
        await stopWriting();
      }
      expect(answers).toBeGreaterThan(10);
    });
  }

  it('a top read that starts after this process heard of a record shows it', async () => {
    const seasonId = await createSeason();
    await produce(
      seasonId,
      Array.from({ length: 30 }, (_, i) => [String(i + 1), 100 + i] as [string, number]),
    );
    await waitFor(
      'the first players',
      async () => (await api.gql(`{ leaderboard(seasonId: ${seasonId}) { size } }`)).data!.leaderboard.size === 30,
    );
    const records = api.subscribe(`subscription { recordUpdated(seasonId: ${seasonId}) { playerId points } }`);
    const stopWriting = writer(seasonId, 5_000);
    try {
      for (let i = 1; i <= 15; i++) {
        const points = 90_000 + i;
        await produce(seasonId, [[String(i), points]]);
        // The event reached this process (it pushed it to the socket): the next read must show it.
        await records.waitFor(`record ${i}`, (e) => e.data?.recordUpdated.points === points);
        const res = await api.gql<{ leaderboard: Top }>(
          `{ leaderboard(seasonId: ${seasonId}) { top(limit: 1) { playerId points } } }`,
        );
        expect(res.data!.leaderboard.top[0]).toEqual({ playerId: String(i), points });
      }
    } finally {
      await stopWriting();
      records.close();
    }
  });
});

describe('shared snapshot subscriptions', () => {
  it('one execution serves every client of the same topChanged, a late joiner gets the current top first', async () => {
    const seasonId = await createSeason();
    await produce(seasonId, [
      ['1', 10],
      ['2', 20],
      ['3', 30],
    ]);
    await waitFor(
      'the players',
      async () => (await api.gql(`{ leaderboard(seasonId: ${seasonId}) { size } }`)).data!.leaderboard.size === 3,
    );
    const query = `subscription { topChanged(seasonId: ${seasonId}, limit: 2) { playerId points } }`;
    const first = [api.subscribe(query), api.subscribe(query)];
    const initial = [
      { playerId: '3', points: 30 },
      { playerId: '2', points: 20 },
    ];
    for (const sub of first)
      await sub.waitFor('the first top', (e) => JSON.stringify(e.data?.topChanged) === JSON.stringify(initial));
    const executions = api.app.api!.server.sharedSubscriptions();

    await produce(seasonId, [['4', 40]]);
    const next = [
      { playerId: '4', points: 40 },
      { playerId: '3', points: 30 },
    ];
    for (const sub of first)
      await sub.waitFor('the new top', (e) => JSON.stringify(e.data?.topChanged) === JSON.stringify(next));
    const late = api.subscribe(query);
    const firstLate = await late.waitFor('a first message', () => true);
    expect(firstLate.data?.topChanged).toEqual(next);
    expect(api.app.api!.server.sharedSubscriptions()).toBe(executions);
    for (const sub of [...first, late]) sub.close();
  });
});

describe('the response cache and HTTP caching', () => {
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
  const stats = () => api.app.api!.responseCache.stats();

  it('answers identical reads from one serialisation until the board changes', async () => {
    const seasonId = await createSeason();
    await produce(seasonId, [
      ['1', 10],
      ['2', 20],
    ]);
    const query = `{ leaderboard(seasonId: ${seasonId}) { size top(limit: 10) { rank playerId points } } }`;
    await waitFor('both players', async () => (await api.gql(query)).data!.leaderboard.size === 2);
    const before = stats();
    const first = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = await first.text();
    for (let i = 0; i < 5; i++) {
      const again = await fetch(api.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      expect(await again.text()).toBe(body);
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    }
    expect(stats().hits - before.hits).toBeGreaterThanOrEqual(5);
    expect(first.headers.get('cache-control')).toBeNull(); // POST answers are not for shared caches
    const revalidated = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'if-none-match': first.headers.get('etag')! },
      body: JSON.stringify({ query }),
    });
    expect(revalidated.status).toBe(200); // 304 is GET semantics

    await produce(seasonId, [['3', 30]]);
    await waitFor('the new player', async () => (await api.gql(query)).data!.leaderboard.size === 3);
    const after = await api.gql<{ leaderboard: Top }>(query);
    expect(after.data!.leaderboard.top.map((e) => e.playerId)).toEqual(['3', '2', '1']);
  });

  it('serves persisted queries by GET with ETag, If-None-Match and Cache-Control', async () => {
    const seasonId = await createSeason();
    await produce(seasonId, [['7', 70]]);
    // Registered queries outlive a run in Redis: a text of this run's own is unknown at first.
    const query = `query Top($s: Int!) { leaderboard(seasonId: $s) { top(limit: 5) { rank playerId points } } } # ${randomUUID()}`;
    const hash = sha256(query);
    const ext = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }));
    const vars = encodeURIComponent(JSON.stringify({ s: seasonId }));
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${api.url}?extensions=${ext}&variables=${vars}`, { headers: { accept: 'application/json', ...headers } });

    const unknown = (await (await get()).json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(unknown.errors[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const wrong = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('other') } } }),
    });
    expect(
      ((await wrong.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code,
    ).toBe('BAD_USER_INPUT');

    const register = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query,
        variables: { s: seasonId },
        extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      }),
    });
    expect(((await register.json()) as { errors?: unknown }).errors).toBeUndefined();
    await waitFor(
      'the player',
      async () => ((await (await get()).json()) as { data: { leaderboard: Top } }).data.leaderboard.top.length === 1,
    );

    const ok = await get();
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { leaderboard: Top } }).data.leaderboard.top).toEqual([
      { rank: 1, playerId: '7', points: 70 },
    ]);
    const etag = ok.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(ok.headers.get('cache-control')).toBe(`public, max-age=${api.config.serving.httpCacheMaxAgeSeconds}`);
    const notModified = await get({ 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    // RFC 9110 §13.1.2: weak comparison (nginx weakens the tag when it gzips), lists, `*`; the 304
    // keeps the validator and the caching rules.
    for (const header of [`W/${etag}`, `"other", W/${etag}`, '*']) {
      const weak = await get({ 'if-none-match': header });
      expect(weak.status, header).toBe(304);
      expect(weak.headers.get('etag')).toBe(etag);
      expect(weak.headers.get('cache-control')).toBe(ok.headers.get('cache-control'));
    }
    expect((await get({ 'if-none-match': '"other"' })).status).toBe(200);

    // The board changes: the validator changes with it.
    await produce(seasonId, [['8', 80]]);
    await waitFor('the new top', async () => (await get({ 'if-none-match': etag })).status === 200);
    expect((await get()).headers.get('etag')).not.toBe(etag);
  });

  it('never caches answers with errors, authenticated reads or reads of other data', async () => {
    const seasonId = await createSeason();
    const bad = await fetch(
      `${api.url}?query=${encodeURIComponent(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 1001) { rank } } }`)}`,
      { headers: { accept: 'application/json' } },
    );
    expect(((await bad.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe(
      'BAD_USER_INPUT',
    );
    expect(bad.headers.get('etag')).toBeNull();
    expect(bad.headers.get('cache-control')).toBeNull();

    const q = encodeURIComponent(`{ leaderboard(seasonId: ${seasonId}) { size } }`);
    const authed = await fetch(`${api.url}?query=${q}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${submitter}` },
    });
    expect(authed.status).toBe(200);
    expect(authed.headers.get('etag')).toBeNull();
    expect(authed.headers.get('cache-control')).toBeNull();

    const withSeason = await fetch(
      `${api.url}?query=${encodeURIComponent(`{ leaderboard(seasonId: ${seasonId}) { size season { status } } }`)}`,
      { headers: { accept: 'application/json' } },
    );
    expect(
      ((await withSeason.json()) as { data: { leaderboard: { season: { status: string } } } }).data.leaderboard.season
        .status,
    ).toBe('ACTIVE');
    expect(withSeason.headers.get('etag')).toBeNull();
  });

  it('shows display names from memory and a changed name at once', async () => {
    const seasonId = await createSeason();
    const submit = async (playerId: string, points: number, displayName: string) => {
      const res = await api.gql(
        `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
        {
          input: {
            matchId: randomUUID(),
            seasonId,
            endedAt: minutesFromNow(-1),
            results: [{ playerId, points, displayName }],
          },
        },
        submitter,
      );
      expect(res.errors).toBeUndefined();
    };
    await submit('11', 50, 'Ann');
    const query = `{ leaderboard(seasonId: ${seasonId}) { top(limit: 3) { playerId player { displayName } } } }`;
    const name = async () =>
      (await api.gql<{ leaderboard: { top: Array<{ player: { displayName: string } }> } }>(query)).data!.leaderboard
        .top[0]?.player.displayName;
    await waitFor('Ann on the board', async () => (await name()) === 'Ann');
    const before = stats();
    for (let i = 0; i < 5; i++) expect(await name()).toBe('Ann');
    expect(stats().hits - before.hits).toBeGreaterThanOrEqual(5);

    await submit('11', 10, 'Ann the Second'); // a lower score: the board does not change, the name does
    await waitFor('the new name', async () => (await name()) === 'Ann the Second', 5_000);

    // A live subscription shows the name as it is at each push, not the one it first loaded.
    const live = api.subscribe(
      `subscription { topChanged(seasonId: ${seasonId}, limit: 3) { playerId points player { displayName } } }`,
    );
    const shows = (points: number, displayName: string) => (e: { data?: any }) =>
      e.data?.topChanged?.[0]?.points === points && e.data.topChanged[0].player.displayName === displayName;
    await live.waitFor('the top with its name', shows(50, 'Ann the Second'));
    await submit('11', 60, 'Ann the Third'); // a new best: the top changes and is pushed
    await live.waitFor('the push with the new name', shows(60, 'Ann the Third'));
  });
});

describe('reads executed by the read path (prepared once, run without yoga)', () => {
  const post = (base: TestApi, query: string, variables?: Record<string, unknown>) =>
    fetch(base.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  it('give the same answers compiled (graphql-jit) and interpreted (graphql-js), errors included', async () => {
    const interpreted = await startApi({
      GRAPHQL_JIT: 'false',
      RATE_LIMIT_READS_PER_SEC: '1000000',
      RATE_LIMIT_READS_BURST: '1000000',
    });
    try {
      const seasonId = await createSeason({ rankStyle: 'COMPETITION' });
      await produce(seasonId, [
        ['1', 50],
        ['2', 40],
        ['3', 40],
        ['4', 30],
        ['5', 10],
      ]);
      const board = `leaderboard(seasonId: ${seasonId})`;
      await waitFor('five players', async () => (await api.gql(`{ ${board} { size } }`)).data!.leaderboard.size === 5);
      const reads: Array<[string, Record<string, unknown>?]> = [
        [`{ ${board} { size window top(limit: 10) { rank playerId points achievedAt player { id displayName } } } }`],
        // Every leaf type of the board-state fields (graphql-jit passes Int, ID, String and enum
        // values through unserialised there, read-path.ts compileOperation), __typename included.
        [
          `{ __typename ${board} { __typename window periodStart size entry(playerId: "2") { __typename rank playerId points achievedAt player { __typename id displayName } } } }`,
        ],
        [
          `{ day: leaderboard(seasonId: ${seasonId}, window: DAY) { window periodStart around(playerId: "3", radius: 2) { rank playerId points achievedAt } } }`,
        ],
        [`query ($p: ID!) { ${board} { entry(playerId: $p) { rank points } } }`, { p: '3' }],
        [`query ($p: ID!) { ${board} { entry(playerId: $p) { rank points } } }`, { p: 'nobody' }],
        [
          `query ($p: ID!, $r: Int!) { ${board} { around(playerId: $p, radius: $r) { rank playerId } } }`,
          { p: '4', r: 1 },
        ],
        [
          `query Friends($ps: [ID!]!) { ${board} { friends(playerIds: $ps) { rank playerId } } }`,
          { ps: ['5', '1', 'x'] },
        ],
        [`query ($p: ID!) { ${board} { entry(playerId: $p) { rank } } }`, { p: 7 }], // coerced: an Int is a valid ID
        [`query ($p: ID!) { ${board} { entry(playerId: $p) { rank } } }`, {}], // missing variable: an error
        [`query ($r: Int!) { ${board} { around(playerId: "1", radius: $r) { rank } } }`, { r: 51 }], // over the limit: BAD_USER_INPUT
      ];
      for (const [query, variables] of reads) {
        const [a, b] = await Promise.all([post(api, query, variables), post(interpreted, query, variables)]);
        // graphql-jit leaves out `locations` of resolver errors, and yoga answers its variable errors
        // with 200 where graphql-js's get 400 (yoga's rule: a result without `data` is a request
        // error); the errors themselves are equal.
        const answer = async (res: Response) => {
          const body = (await res.json()) as { data?: unknown; errors?: Array<Record<string, unknown>> };
          for (const e of body.errors ?? []) delete e.locations;
          return { query, status: body.data === undefined && res.status === 400 ? 200 : res.status, body };
        };
        expect(await answer(a)).toEqual(await answer(b));
      }
    } finally {
      await interpreted.close();
    }
  });

  it('spend the read budget like any request, answers from the cache included', async () => {
    const limited = await startApi({ RATE_LIMIT_READS_PER_SEC: '0.001', RATE_LIMIT_READS_BURST: '3' });
    try {
      const seasonId = await createSeason();
      const query = `{ leaderboard(seasonId: ${seasonId}) { size } }`;
      const codes = [];
      for (let i = 0; i < 5; i++) {
        const res = (await (await post(limited, query)).json()) as { errors?: Array<{ extensions: { code: string } }> };
        codes.push(res.errors?.[0]?.extensions.code ?? 'ok');
      }
      expect(codes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
    } finally {
      await limited.close();
    }
  });
});

describe('mutations executed by the read path (prepared once, run without yoga)', () => {
  it('answer as yoga does: accepted, refused by a resolver, refused before any resolver ran', async () => {
    const seasonId = await createSeason();
    const submit = `mutation Submit($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId accepted } }`;
    const input = (matchId: string, extra: Record<string, unknown> = {}) => ({
      matchId,
      seasonId,
      endedAt: minutesFromNow(-1),
      results: [{ playerId: '71', points: 10 }],
      ...extra,
    });
    const conflicting = randomUUID();
    await api.gql(submit, { input: input(conflicting) }, submitter);
    const cases: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['accepted (then an identical retry)', { input: input(randomUUID()) }, submitter],
      ['SEASON_NOT_FOUND', { input: input(randomUUID(), { seasonId: 999_999 }) }, submitter],
      ['CONFLICT', { input: input(conflicting, { results: [{ playerId: '71', points: 11 }] }) }, submitter],
      [
        'BAD_USER_INPUT from the domain',
        { input: input(randomUUID(), { results: [{ playerId: 'x', points: 1 }] }) },
        submitter,
      ],
      ['UNAUTHENTICATED', { input: input(randomUUID()) }, undefined],
      ['FORBIDDEN', { input: input(randomUUID()) }, admin],
      [
        'variables that do not coerce',
        { input: input(randomUUID(), { results: [{ playerId: '71', points: 'x' }] }) },
        submitter,
      ],
    ];
    for (const [name, variables, key] of cases) {
      // Plain JSON takes the prepared path; an Accept header it does not take goes to yoga.
      const answer = async (accept?: string) => {
        const res = await fetch(api.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(accept ? { accept } : {}),
            ...(key ? { authorization: `Bearer ${key}` } : {}),
          },
          body: JSON.stringify({ query: submit, variables }),
        });
        const body = (await res.json()) as { errors?: Array<Record<string, unknown>> };
        // graphql-jit leaves out `locations` of resolver errors (as on reads, above).
        for (const e of body.errors ?? []) delete e.locations;
        return { name, status: res.status, type: res.headers.get('content-type'), body };
      };
      expect(await answer()).toEqual(await answer('application/json, multipart/mixed'));
    }
  });
});
