import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { readsOnlyBoards } from '../../src/graphql/board-state.js';
import { schema } from '../../src/graphql/schema.js';

// Reads of board state only are cached (ETag, response cache) and served by the fast path;
// anything else (PostgreSQL history, seasons' settings, mutations) is not.
describe('readsOnlyBoards', () => {
  it.each([
    [
      'top, entry, around, friends',
      '{ leaderboard(seasonId: 1) { size top { rank playerId points achievedAt } entry(playerId: "1") { rank } around(playerId: "1") { rank } friends(playerIds: ["1"]) { rank } } }',
      true,
    ],
    ['percentile', '{ leaderboard(seasonId: 1) { entry(playerId: "1") { rank percentile } } }', true],
    [
      'cutoff',
      '{ leaderboard(seasonId: 1) { cutoff(rank: 1000) { place points achievedAt entry { playerId player { displayName } } } } }',
      true,
    ],
    [
      'friendsPage',
      '{ leaderboard(seasonId: 1) { friendsPage(playerIds: ["1"], first: 5) { entries { rank } endCursor hasNextPage ranked } } }',
      true,
    ],
    [
      'rankHistory (PostgreSQL snapshots)',
      '{ leaderboard(seasonId: 1) { entry(playerId: "1") { rankHistory { rank } } } }',
      false,
    ],
    ['rankDelta (PostgreSQL snapshots)', '{ leaderboard(seasonId: 1) { entry(playerId: "1") { rankDelta } } }', false],
    ["the season's settings", '{ leaderboard(seasonId: 1) { season { name } } }', false],
  ])('%s: %s', (_name, query, expected) => {
    expect(readsOnlyBoards(schema, parse(query))).toBe(expected);
  });
});
