import { expect } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import { expectedBoards, type OracleResult } from './oracle.js';
import { boardContents, boardKeys, type Services } from './services.js';

/** Asserts every board of the season equals the oracle byte for byte, and no other board exists. */
export async function expectBoardsMatchOracle(
  s: Services,
  season: Season,
  input: readonly OracleResult[],
): Promise<void> {
  const expected = expectedBoards(season, input);
  const actualKeys = await boardKeys(s.redis, season.id);
  expect(actualKeys.sort()).toEqual([...expected.keys()].sort());
  for (const [key, entries] of expected) {
    expect(await boardContents(s.redis, key), key).toEqual(entries);
  }
}

/** Asserts PostgreSQL holds each (match, player) of the season exactly once. */
export async function expectStoredOnce(s: Services, seasonId: number, distinctResults: number): Promise<void> {
  const [row] = await s.pg.sql<{ n: number; distinct: number }[]>`
    select count(*)::int as n, count(distinct (match_id, player_id))::int as distinct
    from match_results where season_id = ${seasonId}`;
  expect(row).toEqual({ n: distinctResults, distinct: distinctResults });
}
