// Hostile inputs (issue 9): each hole a hostile client found, reproduced against a real ladder.
// docs/reliability.md lists every class tried here and its result.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';

let api: TestApi;
let port: number;

beforeAll(async () => {
  api = await startApi({
    HTTP_REQUEST_TIMEOUT_MS: '1000',
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    HTTP_CONNECTIONS_PER_ADDRESS: '20',
    TOP_CACHE_MAX_BOARDS: '5',
  });
  port = Number(new URL(api.base).port);
});
afterAll(async () => {
  await api?.close();
});

/**
 * Sends `total` bytes of a valid GraphQL request padded with spaces, chunked (no Content-Length),
 * and resolves with the status once the answer comes and the bytes written by then.
 */
function sendChunked(path: string, opts: { method?: string; headers?: Record<string, string>; total: number }) {
  return new Promise<{ status: number; written: number }>((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...opts.headers },
      },
      (res) => {
        answered = true;
        res.resume();
        resolve({ status: res.statusCode!, written });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const head = '{"query":"{ __typename }"';
    const chunk = ' '.repeat(64 * 1024);
    const write = () => {
      if (answered) return void req.destroy();
      if (written === 0) {
        req.write(head);
        written += head.length;
      }
      if (written + chunk.length >= opts.total) {
        req.end('}');
        return;
      }
      written += chunk.length;
      if (req.write(chunk)) setImmediate(write);
      else req.once('drain', write);
    };
    write();
  });
}

describe('request bodies are bounded on the bytes read, whatever the route and headers', () => {
  const MB = 1024 * 1024;
  it.each([
    ['POST /graphql', '/graphql', {}],
    ['POST /graphql with Accept: text/event-stream', '/graphql', { headers: { accept: 'text/event-stream' } }],
    ['POST /graphql with Accept: multipart/mixed', '/graphql', { headers: { accept: 'multipart/mixed' } }],
    ['POST /graphql with Accept: text/html', '/graphql', { headers: { accept: 'text/html' } }],
    ['PUT /graphql', '/graphql', { method: 'PUT' }],
    ['POST /graphql/', '/graphql/', {}],
    ['POST /health', '/health', {}],
    ['POST /metrics', '/metrics', {}],
    ['POST to an unknown path', '/nowhere', {}],
  ] as const)('%s: a 4 MB chunked body gets 413 before it is read whole', async (_name, path, opts) => {
    const { status, written } = await sendChunked(path, { ...opts, total: 4 * MB });
    expect(status).toBe(413);
    expect(written).toBeLessThan(4 * MB);
  });

  it.each([
    ['JSON', 'application/json'],
    ['server-sent events', 'text/event-stream'],
    ['multipart', 'multipart/mixed'],
  ])('a small chunked body still gets its answer (%s)', async (_name, accept) => {
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/graphql',
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', accept },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write('{"query":');
      req.end('"{ __typename }"}');
    });
    expect(status).toBe(200);
    expect(text).toContain('"__typename":"Query"');
  });
});

describe('query texts are bounded in length (they are cache keys)', () => {
  const padded = (query: string, length: number) => `${query} #${'x'.repeat(length)}`;

  it('refuses a 200 KB query of a few tokens (a long comment) with BAD_USER_INPUT, and takes one of 30 KB', async () => {
    const res = await api.gql(padded('{ __typename }', 200_000));
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/at most 32768/);
    expect((await api.gql(padded('{ __typename }', 30_000))).data).toEqual({ __typename: 'Query' });
  });

  it('does not keep a long query as a persisted query, and counts its errors like any other', async () => {
    const errorCount = async (code: string) => {
      const metrics = await (await fetch(`${api.base}/metrics`)).text();
      return Number(new RegExp(`ladder_graphql_errors_total\\{code="${code}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    };
    const notFoundBefore = await errorCount('PERSISTED_QUERY_NOT_FOUND');
    const query = padded('{ seasons { id } }', 40_000);
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const first = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions }),
    });
    expect(
      ((await first.json()) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code,
    ).toBe('BAD_USER_INPUT');
    const byHash = await fetch(`${api.url}?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, {
      headers: { accept: 'application/json' },
    });
    expect(
      ((await byHash.json()) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code,
    ).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(await errorCount('PERSISTED_QUERY_NOT_FOUND')).toBe(notFoundBefore + 1);
  });
});

describe('the cost of a query counts its list sizes', () => {
  const seasonsTop = (aliases: number, limit: number) =>
    `{ ${Array.from({ length: aliases }, (_, i) => `a${i}: seasons { leaderboard { top(limit: ${limit}) { rank playerId points player { displayName } } } }`).join(' ')} }`;

  it("refuses 15 aliases of every season's top 1,000 (45,088 entries in the probe) with BAD_USER_INPUT", async () => {
    const res = await api.gql(seasonsTop(15, 1000));
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/query cost \d+ is over the limit of 10000/);
    expect(res.data ?? null).toBeNull();
  });

  it('refuses a limit hidden in a variable default', async () => {
    const many = Array.from(
      { length: 11 },
      (_, i) => `a${i}: leaderboard(seasonId: 1) { top(limit: $n) { rank } }`,
    ).join(' ');
    const res = await api.gql(`query($n: Int = 1000) { ${many} }`);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('weighs a limit from a variable anew each time (the same text, a small then a large limit)', async () => {
    const many = Array.from(
      { length: 11 },
      (_, i) => `a${i}: leaderboard(seasonId: 1) { top(limit: $n) { rank } }`,
    ).join(' ');
    const query = `query($n: Int) { ${many} }`;
    expect((await api.gql(query, { n: 10 })).errors).toBeUndefined();
    expect((await api.gql(query, { n: 1000 })).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('answers the largest legitimate read: one full top 1,000 with every field', async () => {
    const res = await api.gql(
      '{ leaderboard(seasonId: 1) { size top(limit: 1000) { rank playerId points achievedAt player { id displayName } } } }',
    );
    expect(res.errors).toBeUndefined();
  });
});

/** A raw connection that sends `data` and resolves with what it received once the server closed it. */
function rawUntilClosed(data: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.write(data);
  });
}

describe('slow clients and many connections', () => {
  // Each would be held 300 s (request) or 60 s (headers) with Node's defaults; a hang fails the test.
  it('closes a request whose body does not arrive within HTTP_REQUEST_TIMEOUT_MS (408)', async () => {
    const got = await rawUntilClosed(
      'POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"qu',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a request whose headers do not arrive within HTTP_HEADERS_TIMEOUT_MS (408)', async () => {
    const got = await rawUntilClosed('GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nhost: x\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 408/);
  });

  it('keeps a server-sent-events subscription open past the request timeout (it bounds receiving the request only)', async () => {
    const created = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      {
        i: {
          name: 'sse',
          startsAt: minutesFromNow(-60),
          endsAt: minutesFromNow(600),
          scoring: 'BEST',
          maxPointsPerMatch: 10,
        },
      },
      await api.key('admin'),
    );
    const seasonId = created.data!.createSeason.id as number;
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: `subscription { topChanged(seasonId: ${seasonId}) { rank playerId } }` }),
    });
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (part: string) => {
      while (!text.includes(part)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before ${part}: ${text}`);
        text += new TextDecoder().decode(value);
      }
    };
    await readUntil('"topChanged"');
    expect(text).toContain('"topChanged":[]');
    // Nothing to wait for: a window past the request timeout (1 s) and the server's 1 s check of it.
    await new Promise((r) => setTimeout(r, 2_500));
    // Still open, and still delivering: a result submitted now reaches it.
    const submitted = await api.gql(
      'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
      {
        i: { matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-1), results: [{ playerId: '7', points: 1 }] },
      },
      await api.key('submit'),
    );
    expect(submitted.errors).toBeUndefined();
    await readUntil('"playerId":"7"');
    await reader.cancel();
  });

  it('closes connections over HTTP_CONNECTIONS_PER_ADDRESS at once, and takes new ones when some close', async () => {
    const open = async () => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.on('error', () => {});
      await new Promise((r) => socket.once('connect', r));
      return socket;
    };
    const idle = await Promise.all(Array.from({ length: 20 }, open));
    const extra = await open();
    await new Promise((r) => extra.once('close', r)); // closed by the server, without a byte sent
    for (const s of idle.slice(0, 5)) s.destroy();
    await expect.poll(async () => (await fetch(`${api.base}/health`)).status, { timeout: 5_000 }).toBe(200);
    for (const s of idle) s.destroy();
  });
});

describe('boards a client can make the server hold', () => {
  const DAY_MS = 86_400_000;
  const daysFromNow = (d: number) => new Date(Date.now() + d * DAY_MS).toISOString();
  let seasonId = 0;
  beforeAll(async () => {
    seasonId = (
      await api.gql(
        'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
        {
          i: {
            name: 'slots',
            startsAt: daysFromNow(-20),
            endsAt: daysFromNow(20),
            scoring: 'BEST',
            maxPointsPerMatch: 10,
          },
        },
        await api.key('admin'),
      )
    ).data!.createSeason.id;
  });
  const series = async () =>
    (await (await fetch(`${api.base}/metrics`)).text())
      .split('\n')
      .filter((l) => l.startsWith('ladder_top_cache_age_seconds{')).length;
  const days = (offsets: number[]) =>
    `{ ${offsets.map((d, i) => `d${i}: leaderboard(seasonId: ${seasonId}, window: DAY, at: "${daysFromNow(d)}") { top(limit: 1) { rank } }`).join(' ')} }`;

  it.each([
    ['a day two days ahead', 2],
    ['a day after the season', 30],
    ['a day before the season', -30],
    ['a day in another century', 365 * 100],
  ])('refuses %s (BAD_USER_INPUT on `at`)', async (_name, offset) => {
    const res = await api.gql(days([offset]));
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'at' });
  });

  it('answers every day the season can hold, yet keeps at most TOP_CACHE_MAX_BOARDS boards and metric series', async () => {
    // The probe: distinct dates in aliases made one cached board (a top 1,000 read) and one series each.
    for (let first = -19; first <= 1; first += 7) {
      const res = await api.gql(days(Array.from({ length: 7 }, (_, i) => first + i).filter((d) => d <= 1)));
      expect(res.errors).toBeUndefined();
    }
    expect(api.app.api!.topCache.ages().length).toBeLessThanOrEqual(5);
    expect(await series()).toBeLessThanOrEqual(5);
  });
});

describe('WebSocket messages', () => {
  it('over 64 KiB close the socket (1009, message too big), printing nothing; one of 64 KiB is read', async () => {
    const open = async () => {
      const ws = new WebSocket(api.url.replace('http', 'ws'), 'graphql-transport-ws');
      await once(ws, 'open');
      return ws;
    };
    // connection_init padded to `bytes`: graphql-ws acknowledges it when it is read.
    const init = (bytes: number) => {
      const bare = JSON.stringify({ type: 'connection_init', payload: { pad: '' } });
      return JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(bytes - bare.length) } });
    };
    const small = await open();
    small.send(init(64 * 1024));
    const [ack] = (await once(small, 'message')) as [Buffer];
    expect(JSON.parse(ack.toString()).type).toBe('connection_ack');
    small.close();
    // graphql-ws printed ws's RangeError with its stack (console.error) on every such socket.
    const printed = vi.spyOn(console, 'error');
    try {
      const big = await open();
      big.send(init(64 * 1024 + 1));
      const [code] = (await once(big, 'close')) as [number];
      expect(code).toBe(1009);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the server's 'error' follows its close frame
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });
});

describe('a bad subscribe message on a WebSocket', () => {
  it.each([
    ['a syntax error', 'subscription { topChanged(seasonId: 1 { rank } }'],
    [
      '16 aliases',
      `subscription { ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ')} topChanged(seasonId: 1) { rank } }`,
    ],
    ['over 1,000 tokens', `subscription { topChanged(seasonId: 1) { ${'rank '.repeat(1_001)} } }`],
  ])('%s: only that operation gets an error; the socket and its other subscriptions stay', async (_name, bad) => {
    const created = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      {
        i: {
          name: 'ws',
          startsAt: minutesFromNow(-60),
          endsAt: minutesFromNow(600),
          scoring: 'BEST',
          maxPointsPerMatch: 10,
        },
      },
      await api.key('admin'),
    );
    const seasonId = created.data!.createSeason.id as number;
    const client = api.wsClient();
    let closed: unknown;
    client.on('closed', (e) => {
      closed = e;
    });
    const good = api.subscribe(`subscription { topChanged(seasonId: ${seasonId}) { rank } }`, undefined, client);
    await good.waitFor('the first top', (e) => e.data?.topChanged !== undefined);
    const wrong = api.subscribe(bad, undefined, client);
    const codeOf = (errors: unknown) =>
      (errors as Array<{ extensions?: { code?: string } }> | undefined)?.[0]?.extensions?.code;
    await expect
      .poll(() => codeOf(wrong.events[0]?.errors) ?? codeOf(wrong.failure) ?? (closed ? 'socket closed' : undefined), {
        timeout: 5_000,
      })
      .toBe('BAD_USER_INPUT');
    // The socket still serves: a new subscription on it gets its first answer.
    const again = api.subscribe(
      `subscription { topChanged(seasonId: ${seasonId}, limit: 2) { rank } }`,
      undefined,
      client,
    );
    await again.waitFor('a top on the same socket', (e) => e.data?.topChanged !== undefined);
    expect(closed).toBeUndefined();
    expect(good.failure).toBeUndefined();
    good.close();
    again.close();
  });
});

describe('GraphiQL', () => {
  /** GET /graphql as a browser would; the raw bytes, not decompressed. */
  const load = (headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(
          { host: '127.0.0.1', port, path: '/graphql', agent: false, headers: { accept: 'text/html', ...headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
            );
          },
        )
        .on('error', reject);
    });

  it('is served compressed and cacheable, and full loads are rate limited per address (revalidations are not)', async () => {
    const br = await load({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=3600');
    const html = brotliDecompressSync(br.body);
    expect(html.toString()).toContain('GraphiQL');
    expect(br.body.length).toBeLessThan(html.length / 3);
    const gz = await load({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(html)).toBe(true);
    expect(gz.headers.etag).toBe(br.headers.etag);
    const plain = await load();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(html)).toBe(true);

    const revalidated = await load({ 'if-none-match': br.headers.etag! });
    expect([revalidated.status, revalidated.body.length]).toEqual([304, 0]);
    // Burst 5: three loads above, two more, then refused; a revalidation still answers.
    expect([(await load()).status, (await load()).status, (await load()).status]).toEqual([200, 200, 429]);
    expect((await load({ 'if-none-match': br.headers.etag! })).status).toBe(304);
  });
});

describe('CORS', () => {
  const cors = async (url: string, init: RequestInit & { origin: string }) => {
    const res = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), origin: init.origin },
    });
    await res.arrayBuffer();
    return {
      status: res.status,
      origin: res.headers.get('access-control-allow-origin'),
      credentials: res.headers.get('access-control-allow-credentials'),
    };
  };
  const post = (query: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

  it('by default lets any origin read, never with credentials (yoga echoed any origin with credentials)', async () => {
    const origin = 'https://evil.example';
    for (const init of [
      post('{ seasons { id } }'),
      post('{ seasons { id } }'),
      post('mutation { closeSeason(id: 1) { id } }'),
      { method: 'GET' },
    ]) {
      expect(await cors(api.url, { ...init, origin })).toMatchObject({ origin: '*', credentials: null });
    }
    const preflight = await cors(api.url, {
      method: 'OPTIONS',
      origin,
      headers: { 'access-control-request-method': 'POST' },
    });
    expect(preflight).toEqual({ status: 204, origin: '*', credentials: null });
  });

  describe('with CORS_ORIGINS set (and GRAPHIQL=false)', () => {
    let other: TestApi;
    beforeAll(async () => {
      other = await startApi({ GRAPHIQL: 'false', CORS_ORIGINS: 'https://game.example, https://admin.game.example' });
    });
    afterAll(async () => {
      await other?.close();
    });

    it('answers listed origins with credentials, and others with no CORS header', async () => {
      for (const init of [post('{ seasons { id } }'), post('mutation { closeSeason(id: 1) { id } }')]) {
        expect(await cors(other.url, { ...init, origin: 'https://admin.game.example' })).toMatchObject({
          origin: 'https://admin.game.example',
          credentials: 'true',
        });
        expect(await cors(other.url, { ...init, origin: 'https://evil.example' })).toMatchObject({
          origin: null,
          credentials: null,
        });
      }
      expect(await cors(other.url, { method: 'OPTIONS', origin: 'https://evil.example' })).toEqual({
        status: 204,
        origin: null,
        credentials: null,
      });
    });

    it('serves no GraphiQL page', async () => {
      const res = await fetch(other.url, { headers: { accept: 'text/html' } });
      expect(await res.text()).not.toContain('GraphiQL');
      expect((await other.gql('{ __typename }')).data).toEqual({ __typename: 'Query' });
    });
  });
});

describe('client mistakes in logs and metrics', () => {
  it('are logged at info, sampled, not at error, and counted by code (one probe made 806 error lines)', async () => {
    const lines: Array<{ level: number; code?: string; leftOut?: number }> = [];
    const logger = pino(
      { level: 'info', base: {} },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line));
        },
      },
    );
    const probed = await startApi({ RATE_LIMIT_READS_BURST: '5', RATE_LIMIT_READS_PER_SEC: '0.001' }, { logger });
    try {
      const submit =
        'mutation { submitMatchResult(input: { matchId: "6f1c1d7e-7a38-4e55-9a43-1a2b3c4d5e6f", seasonId: 1, endedAt: "2026-01-01T00:00:00Z", results: [{ playerId: "1", points: 1 }] }) { accepted } }';
      const admin = await probed.key('admin');
      const before = lines.length;
      for (let i = 0; i < 30; i++) await probed.gql(submit);
      for (let i = 0; i < 30; i++) await probed.gql(submit, undefined, admin);
      for (let i = 0; i < 10; i++) await probed.gql('{ seasons { id } }');
      const probe = lines.slice(before);
      expect(probe.filter((l) => l.level >= 50)).toEqual([]);
      expect(probe.filter((l) => l.code).length).toBeLessThanOrEqual(3); // one line per code
      const metrics = await (await fetch(`${probed.base}/metrics`)).text();
      const count = (code: string) =>
        Number(new RegExp(`ladder_graphql_errors_total\\{code="${code}"\\} (\\d+)`).exec(metrics)?.[1]);
      expect([count('UNAUTHENTICATED'), count('FORBIDDEN'), count('RATE_LIMITED')]).toEqual([30, 30, 5]);
    } finally {
      await probed.close();
    }
  });
});

describe('display names', () => {
  it('are stored in NFC, and a name with a bidi override or a zero-width space is refused (BAD_USER_INPUT on displayName)', async () => {
    const seasonId = (
      await api.gql(
        'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
        {
          i: {
            name: 'names',
            startsAt: minutesFromNow(-60),
            endsAt: minutesFromNow(600),
            scoring: 'BEST',
            maxPointsPerMatch: 10,
          },
        },
        await api.key('admin'),
      )
    ).data!.createSeason.id;
    const key = await api.key('submit');
    const playerId = String(700_000_000 + Math.floor(Math.random() * 1_000_000));
    const submit = (displayName: string) =>
      api.gql(
        'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
        {
          i: {
            matchId: randomUUID(),
            seasonId,
            endedAt: minutesFromNow(-1),
            results: [{ playerId, points: 1, displayName }],
          },
        },
        key,
      );
    for (const spoof of ['Ann\u202Egnp', 'An\u200Bn']) {
      expect((await submit(spoof)).errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'displayName' });
    }
    expect((await submit('Rene\u0301')).data?.submitMatchResult).toEqual({ accepted: 1 });
    const [row] = await api.s.pg.sql`select display_name from players where id = ${playerId}`;
    expect(row?.display_name).toBe('Ren\u00E9');
  });
});
