// A league season's placements against the real PostgreSQL (src/postgres/leagues-store.ts):
// chunks placing the same newcomers at once (a replay beside a zombie consumer) place each player
// once, fill each cohort to its size, and count each player once in the tier's counter, so the
// next newcomer lands right after them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cohortScope, type League } from '../../src/domain/leagues.js';
import { createLeaguesStore } from '../../src/postgres/leagues-store.js';
import { testConfig, uniqueName } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

it('places newcomers once when chunks with the same players race, cohorts full and the counter exact', async () => {
  const league: League = {
    name: uniqueName('race'),
    tiers: ['Bronze', 'Silver'],
    cohortSize: 3,
    promote: 1,
    relegate: 1,
  };
  const season = await createSeason(s, { name: 'league race', league });
  const leagues = createLeaguesStore(s.pg.sql);
  const ids = Array.from({ length: 12 }, (_, i) => String(771_000_000_000 + i));

  // Four chunks at once, each with an overlapping half of the players, in another order.
  const chunks = [ids.slice(0, 6), ids.slice(3, 9).reverse(), ids.slice(6, 12), [...ids].reverse().slice(0, 6)];
  const answers = await Promise.all(chunks.map((chunk) => leagues.place(season.id, league, chunk)));

  const placed = new Map<string, string>();
  for (const answer of answers)
    for (const [id, cohort] of answer) {
      // Every chunk is told the cohort the player keeps.
      expect(placed.get(id) ?? cohort).toBe(cohort);
      placed.set(id, cohort);
    }
  expect(placed.size).toBe(12);
  const sizes = new Map<string, number>();
  for (const cohort of placed.values()) sizes.set(cohort, (sizes.get(cohort) ?? 0) + 1);
  expect(new Map([...sizes].sort())).toEqual(new Map([0, 1, 2, 3].map((c) => [cohortScope(0, c), 3])));
  expect(await leagues.cohorts(season.id, ids)).toEqual(placed);

  const [counter] = await s.pg.sql<[{ placed: number }]>`
    select placed from league_cohorts where season_id = ${season.id} and tier = 0`;
  expect(counter!.placed).toBe(12);
  const newcomer = String(771_000_000_100);
  const next = await leagues.place(season.id, league, [newcomer]);
  expect(next.get(newcomer)).toBe(cohortScope(0, 4));
});
