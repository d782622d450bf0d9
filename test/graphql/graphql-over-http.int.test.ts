// GraphQL over HTTP to the letter: graphql-http's own audit suite (its MUST, SHOULD and MAY
// audits) against the real server. Its documents read only `__typename`, a board-state read, so
// the fast path (read-path.ts) answers the ones it takes and yoga the rest: both are audited.
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { createSeason } from '../support/services.js';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
}, 60_000);
afterAll(async () => {
  await api?.close();
});

describe('graphql-http server audits', () => {
  for (const audit of serverAudits({ url: () => api.url, fetchFn: fetch })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      const why = result.status === 'ok' ? '' : `${result.reason}`;
      expect({ status: result.status, why }).toEqual({ status: 'ok', why: '' });
    });
  }
});

describe('the fast path answers in the media type Accept prefers', () => {
  const GR = 'application/graphql-response+json';
  let read: string;
  beforeAll(async () => {
    const { id } = await createSeason(api.s, { name: 'media types' });
    const query = `{ leaderboard(seasonId: ${id}) { size top(limit: 3) { rank } } }`;
    read = `${api.url}?query=${encodeURIComponent(query)}`;
  });

  it.each([
    [GR, GR],
    [`${GR}, application/json;q=0.9`, GR], // Apollo Client's default
    ['application/json;q=0.5, ' + GR, GR],
    ['application/json', 'application/json'],
    ['*/*', 'application/json'],
  ])('Accept %s → %s, a tag of its own, Vary: Accept, 304 on its tag', async (accept, media) => {
    const first = await fetch(read, { headers: { accept } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe(`${media}; charset=utf-8`);
    expect(first.headers.get('vary')).toContain('Accept');
    const etag = first.headers.get('etag')!;
    expect(etag.endsWith('-gr"')).toBe(media === GR);
    expect(await first.json()).toMatchObject({ data: { leaderboard: { size: 0, top: [] } } });
    const again = await fetch(read, { headers: { accept, 'if-none-match': `W/${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('vary')).toContain('Accept');
  });

  it('a tag of one media type does not revalidate the other', async () => {
    const json = await fetch(read, { headers: { accept: 'application/json' } });
    const other = await fetch(read, { headers: { accept: GR, 'if-none-match': json.headers.get('etag')! } });
    expect(other.status).toBe(200);
    expect(other.headers.get('content-type')).toBe(`${GR}; charset=utf-8`);
  });

  it('answers 406 when neither JSON type is accepted', async () => {
    const res = await fetch(read, { headers: { accept: 'text/plain' } });
    expect(res.status).toBe(406);
  });

  it('a mutation under graphql-response+json: 200 once it ran, 400 when its variables do not coerce', async () => {
    const submit = await api.key('submit');
    const post = (variables: Record<string, unknown>) =>
      fetch(api.url, {
        method: 'POST',
        headers: { accept: GR, 'content-type': 'application/json', authorization: `Bearer ${submit}` },
        body: JSON.stringify({
          query: 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
          variables,
        }),
      });
    const ran = await post({
      input: {
        seasonId: 999_999,
        matchId: crypto.randomUUID(),
        endedAt: minutesFromNow(-1),
        results: [{ playerId: '1', points: 1 }],
      },
    });
    expect(ran.status).toBe(200);
    expect(ran.headers.get('content-type')).toBe(`${GR}; charset=utf-8`);
    expect(((await ran.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe(
      'SEASON_NOT_FOUND',
    );
    const refused = await post({ input: { seasonId: 'x' } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe(`${GR}; charset=utf-8`);
  });
});
