import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SeasonDefinition } from '../../src/domain/season.js';
import { createSeason } from '../../src/service/seasons.js';
import { testConfig } from '../support/env.js';
import { createSeason as createTestSeason, openServices, type Services } from '../support/services.js';

// Creating a sharded season (issue 11): bounds chosen, or from a previous season's histogram.
let s: Services;
beforeAll(async () => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

const now = new Date();
const def = (): SeasonDefinition => ({
  name: 'sharded',
  startsAt: new Date(now.getTime() - 1000),
  endsAt: new Date(now.getTime() + 30 * 24 * 3600 * 1000),
  scoring: 'BEST',
  order: 'DESC',
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
});

it('bounds chosen at creation: stored with one tag per shard (one server: plain tags)', async () => {
  const season = await createSeason(s.seasons, { ...def(), shards: { bounds: [100, 500] } }, now);
  expect(season.shards).toEqual({ bounds: [100, 500], tags: [0, 1, 2].map((k) => `s${season.id}.${k}`) });
  expect((await s.seasons.get(season.id))!.shards).toEqual(season.shards);
  expect((await createSeason(s.seasons, def(), now)).shards).toBeNull();
});

it('bounds from the points histogram of a previous season: shards of about equal size', async () => {
  const previous = await createTestSeason(s);
  // 40 players with 1..40 points on the previous season's SEASON board.
  await s.pg.sql`insert into standings (season_id, "window", period, player_id, points, achieved_at)
    select ${previous.id}, 'SEASON', '', g, g, now() from generate_series(1, 40) g`;
  const season = await createSeason(s.seasons, { ...def(), shards: { count: 4, fromSeasonId: previous.id } }, now);
  expect(season.shards!.bounds).toEqual([11, 21, 31]);
  expect(season.shards!.tags).toHaveLength(4);
});

it.each([
  [{ bounds: [5, 5] }, 'shardBounds'],
  [{ bounds: [3_000_000] }, 'shardBounds'],
  [{ count: 3 }, 'shards'],
  [{ fromSeasonId: 1 }, 'shards'],
  [{ bounds: [5], count: 3 }, 'shards'],
  [{ count: 0, fromSeasonId: 1 }, 'shards'],
])('refuses %j with BAD_USER_INPUT on %s', async (shards, field) => {
  await expect(createSeason(s.seasons, { ...def(), shards }, now)).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field,
  });
});

it('an unknown previous season: SEASON_NOT_FOUND', async () => {
  await expect(
    createSeason(s.seasons, { ...def(), shards: { count: 2, fromSeasonId: 2_000_000_000 } }, now),
  ).rejects.toMatchObject({ code: 'SEASON_NOT_FOUND' });
});
