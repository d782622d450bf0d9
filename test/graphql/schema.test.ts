import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema.js';

describe('the printed schema', () => {
  it('matches schema/schema.graphql (run `npm run codegen` after changing the GraphQL layer)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(printSortedSchema()).toBe(committed);
  });

  it.each([
    'type Query',
    'season(id: Int!): Season',
    'seasons(status: SeasonStatus): [Season!]!',
    'leaderboard(',
    'top(limit: Int = 100, offset: Int = 0): [Entry!]!',
    'entry(playerId: ID!): Entry',
    'around(playerId: ID!, radius: Int = 5): [Entry!]!',
    'friends(playerIds: [ID!]!): [Entry!]!',
    'submitMatchResult(input: MatchResultInput!): SubmitMatchResultPayload!',
    'createSeason(input: CreateSeasonInput!): Season!',
    'closeSeason(id: Int!): Season!',
    'rebuildLeaderboard(seasonId: Int!): RebuildReport!',
    'recordUpdated(',
    'rankChanged(',
    'board: String',
    'boards: [Board!]!',
    'keys: [Int!]',
  ])('keeps the contract of docs/design.md#graphql-contract: %s', (fragment) => {
    expect(printSortedSchema()).toContain(fragment);
  });
});
