// A document of several operations, as GraphiQL sends its editor: each request runs the one it names.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api.js';
import { createSeason } from '../support/services.js';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

it.each([
  ['queries only', ''],
  // A subscription beside them takes the document off the board read path, to yoga and graphql-jit.
  ['queries and a subscription', 'subscription Live { topChanged(seasonId: 1) { rank } }'],
])('%s: each operationName gets its own operation’s answer, whichever ran first', async (_name, more) => {
  const { id } = await createSeason(api.s, { name: 'operation names' });
  const query = `query Size { leaderboard(seasonId: ${id}) { size } }
    query Top { leaderboard(seasonId: ${id}) { top(limit: 1) { rank } } }
    query Seasons { season(id: ${id}) { name } } ${more}`;
  const run = async (operationName: string) =>
    (await (
      await fetch(api.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, operationName }),
      })
    ).json()) as unknown;
  for (let round = 0; round < 2; round++) {
    expect(await run('Size')).toEqual({ data: { leaderboard: { size: 0 } } });
    expect(await run('Top')).toEqual({ data: { leaderboard: { top: [] } } });
    expect(await run('Seasons')).toEqual({ data: { season: { name: 'operation names' } } });
  }
});
