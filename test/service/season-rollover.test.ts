// Repeating seasons (service/season-rollover.ts): the successor's name and dates, table-driven; its
// rules copied. Its creation against PostgreSQL is in test/graphql/league-seasons.int.test.ts.
import { describe, expect, it } from 'vitest';
import { nextName, successorOf } from '../../src/service/season-rollover.js';
import type { Season } from '../../src/domain/season.js';
import { leagueOf, seededCohort } from '../../src/domain/leagues.js';
import { thrown, utc } from '../domain/helpers.js';

const season = (startsAt: string, endsAt: string, extra: Partial<Season> = {}): Season => ({
  id: 7,
  name: 'Arena #4',
  startsAt: utc(startsAt),
  endsAt: utc(endsAt),
  status: 'CLOSED',
  scoring: 'BEST',
  order: 'DESC',
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
  split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 },
  board: 'points',
  stat: 'points',
  repeats: true,
  ...extra,
});

describe('repeating seasons', () => {
  it.each([
    ['Ranked', 'Ranked #2'],
    ['Ranked #2', 'Ranked #3'],
    ['Ranked #99', 'Ranked #100'],
    ['Season 3', 'Season 3 #2'],
    ['#5', '#5 #2'],
  ])('names the season after %j %j', (name, next) => expect(nextName(name)).toBe(next));

  it.each([
    // now, the successor's start and end: as long as the season, from its end; whole steps skipped when late.
    ['2026-01-08T00:00:05Z', '2026-01-08T00:00:00Z', '2026-01-15T00:00:00Z'],
    ['2026-01-07T12:00:00Z', '2026-01-08T00:00:00Z', '2026-01-15T00:00:00Z'], // closed early: starts at its end
    ['2026-01-15T00:00:00Z', '2026-01-15T00:00:00Z', '2026-01-22T00:00:00Z'],
    ['2026-01-30T10:00:00Z', '2026-01-29T00:00:00Z', '2026-02-05T00:00:00Z'],
  ])('at %s starts the next week-long season at %s', (now, startsAt, endsAt) => {
    const next = successorOf(season('2026-01-01T00:00:00Z', '2026-01-08T00:00:00Z'), utc(now));
    expect([next.startsAt.toISOString(), next.endsAt.toISOString()]).toEqual([
      utc(startsAt).toISOString(),
      utc(endsAt).toISOString(),
    ]);
    expect(next.endsAt.getTime()).toBeGreaterThan(utc(now).getTime());
  });

  it('copies every rule, board, reward and the league, and names what it follows', () => {
    const league = leagueOf({ name: 'arena', tiers: ['A', 'B'], cohortSize: 50, promote: 5, relegate: 5 });
    const rewards = [{ name: 'top', board: 'points', ranks: { from: 1, to: 1 }, reward: { gems: 1 } }];
    const kills = season('2026-01-01T00:00:00Z', '2026-01-08T00:00:00Z', {
      id: 8,
      parentId: 7,
      board: 'kills',
      stat: 'kills',
      scoring: 'SUM',
      repeats: undefined,
      league,
    });
    const s = season('2026-01-01T00:00:00Z', '2026-01-08T00:00:00Z', {
      windows: ['SEASON', 'DAY'],
      resetOffsetMinutes: 120,
      shards: { bounds: [100, 500], tags: ['a', 'b', 'c'] },
      groupBestOf: 3,
      league,
      rewards,
      boards: [kills],
    });
    const next = successorOf(s, utc('2026-01-08T00:00:01Z'));
    expect(next).toMatchObject({
      name: 'Arena #5',
      windows: ['SEASON', 'DAY'],
      resetOffsetMinutes: 120,
      shardBounds: [100, 500],
      groupBestOf: 3,
      league,
      rewards,
      repeats: true,
      follows: 7,
      split: s.split,
    });
    expect(next.boards).toEqual([
      expect.objectContaining({ name: 'Arena #5', board: 'kills', stat: 'kills', scoring: 'SUM', league }),
    ]);
    expect(next.boards![0]).not.toHaveProperty('parentId');
  });
});

describe('league placement', () => {
  const league = leagueOf({ name: 'arena', tiers: ['A'], cohortSize: 3, promote: 1, relegate: 1, placement: 'RANK' });
  it.each([
    [1, 0],
    [3, 0],
    [4, 1],
    [7, 2],
  ])('puts seed %i in cohort %i', (seed, cohort) => expect(seededCohort(league, seed)).toBe(cohort));

  it.each([
    [{ placement: 'RANK' }, 'no error'],
    [{ placement: null }, 'no error'],
    [{ placement: 'SKILL' }, { code: 'BAD_USER_INPUT', field: 'league' }],
  ])('checks placement %j', (extra, outcome) =>
    expect(
      thrown(() =>
        leagueOf({ name: 'arena', tiers: ['A'], cohortSize: 3, promote: 1, relegate: 1, ...(extra as object) }),
      ),
    ).toEqual(outcome),
  );

  it('keeps ARRIVAL as the absent default', () => {
    expect(
      leagueOf({ name: 'a', tiers: ['A'], cohortSize: 3, promote: 0, relegate: 0, placement: 'ARRIVAL' }),
    ).not.toHaveProperty('placement');
  });
});
