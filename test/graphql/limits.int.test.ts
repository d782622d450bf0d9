import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';

let api: TestApi;

beforeAll(async () => {
  api = await startApi({
    RATE_LIMIT_READS_PER_SEC: '0.001',
    RATE_LIMIT_READS_BURST: '3',
    RATE_LIMIT_SUBMITS_PER_SEC: '0.001',
    RATE_LIMIT_SUBMITS_BURST: '2',
    WS_SUBSCRIPTIONS_PER_SOCKET: '2',
  });
});
afterAll(async () => {
  await api?.close();
});

describe('rate and socket limits', () => {
  it('answers RATE_LIMITED once a client address spent its read budget', async () => {
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await api.gql('{ seasons { id } }')).errors?.[0]?.extensions?.code ?? 'ok');
    expect(codes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('answers RATE_LIMITED once an API key spent its submit budget, and other keys are unaffected', async () => {
    const [first, second] = [await api.key('submit'), await api.key('submit')];
    // The season lookup fails (SEASON_NOT_FOUND) after the budget check: cheap requests still count.
    const submit = async (key: string) =>
      (
        await api.gql(
          'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
          {
            i: {
              matchId: randomUUID(),
              seasonId: 999_999,
              endedAt: minutesFromNow(-1),
              results: [{ playerId: '1', points: 1 }],
            },
          },
          key,
        )
      ).errors?.[0]?.extensions?.code;
    expect([await submit(first), await submit(first), await submit(first), await submit(second)]).toEqual([
      'SEASON_NOT_FOUND',
      'SEASON_NOT_FOUND',
      'RATE_LIMITED',
      'SEASON_NOT_FOUND',
    ]);
  });

  it('refuses a third subscription on one socket', async () => {
    const created = await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      {
        i: {
          name: 'limits',
          startsAt: minutesFromNow(-60),
          endsAt: minutesFromNow(600),
          scoring: 'BEST',
          maxPointsPerMatch: 10,
        },
      },
      await api.key('admin'),
    );
    const client = api.wsClient();
    const q = `subscription { recordUpdated(seasonId: ${created.data!.createSeason.id}) { rank } }`;
    const subs = [
      api.subscribe(q, undefined, client),
      api.subscribe(q, undefined, client),
      api.subscribe(q, undefined, client),
    ];
    const codeOf = (s: (typeof subs)[number]) =>
      ((s.events[0]?.errors ?? s.failure) as Array<{ extensions?: { code?: string } }> | undefined)?.[0]?.extensions
        ?.code;
    await expect.poll(() => subs.map(codeOf), { timeout: 5_000 }).toEqual([undefined, undefined, 'RATE_LIMITED']);
    for (const s of subs) s.close();
  });
});
