import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost, UNBOUNDED_LIST_SIZE } from '../../src/graphql/list-cost.js';
import { schema } from '../../src/graphql/schema.js';

const ENTRY = 'rank playerId points achievedAt player { id displayName }'; // 7 per entry
const cost = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
  operationCost(schema, parse(query), operationName, variables);

describe('operationCost', () => {
  it.each([
    ['one field', '{ seasons { id } }', 1 + UNBOUNDED_LIST_SIZE],
    ['top with its default limit (100)', '{ leaderboard(seasonId: 1) { top { rank } } }', 1 + 1 + 100],
    [
      'top(limit: 1000), every entry field',
      `{ leaderboard(seasonId: 1) { size top(limit: 1000) { ${ENTRY} } } }`,
      1 + 1 + 1 + 7000,
    ],
    [
      'the limit from a variable',
      'query($n: Int) { leaderboard(seasonId: 1) { top(limit: $n) { rank } } }',
      2 + 500,
      { n: 500 },
    ],
    [
      'the limit from a variable default',
      'query($n: Int = 1000) { leaderboard(seasonId: 1) { top(limit: $n) { rank } } }',
      2 + 1000,
    ],
    [
      'a limit past its bound counts as the bound',
      '{ leaderboard(seasonId: 1) { top(limit: 99999) { rank } } }',
      2 + 1000,
    ],
    [
      'a limit that is no integer counts as the bound',
      'query($n: Int) { leaderboard(seasonId: 1) { top(limit: $n) { rank } } }',
      2 + 1000,
      { n: 'x' },
    ],
    [
      'around: 2 radius + 1',
      '{ leaderboard(seasonId: 1) { around(playerId: "1", radius: 50) { rank playerId } } }',
      2 + 101 * 2,
    ],
    ['friends: as many as ids', '{ leaderboard(seasonId: 1) { friends(playerIds: ["1", "2", "3"]) { rank } } }', 2 + 3],
    [
      'friends from a variable',
      'query($ids: [ID!]!) { leaderboard(seasonId: 1) { friends(playerIds: $ids) { rank } } }',
      2 + 4,
      { ids: ['1', '2', '3', '4'] },
    ],
    [
      'friendsPage: the fewer of ids and first, its entries once each',
      'query($ids: [ID!]!) { leaderboard(seasonId: 1) { friendsPage(playerIds: $ids, first: 2) { entries { rank playerId } endCursor } } }',
      // leaderboard 1 + friendsPage 1 + 2 × (entries 1 + 2 fields + endCursor 1)
      2 + 2 * 4,
      { ids: ['1', '2', '3'] },
    ],
    [
      'friendsPage: first by default (100), or the ids when fewer',
      '{ leaderboard(seasonId: 1) { friendsPage(playerIds: ["1"]) { ranked } } }',
      2 + 1,
    ],
    [
      'aliases add up',
      `{ a: leaderboard(seasonId: 1) { top(limit: 10) { rank } } b: leaderboard(seasonId: 2) { top(limit: 10) { rank } } }`,
      2 * 12,
    ],
    [
      'lists multiply',
      '{ seasons { leaderboard { top(limit: 1000) { rank } } } }',
      1 + UNBOUNDED_LIST_SIZE * (1 + 1 + 1000),
    ],
    [
      'fragments count where spread',
      'query { leaderboard(seasonId: 1) { top(limit: 10) { ...E } } } fragment E on Entry { rank points }',
      2 + 20,
    ],
    ['inline fragments count', '{ leaderboard(seasonId: 1) { top(limit: 10) { ... on Entry { rank } } } }', 2 + 10],
    [
      'the operation named',
      'query A { seasons { id } } query B { leaderboard(seasonId: 1) { size } }',
      2,
      undefined,
      'B',
    ],
    ['introspection is free', '{ __schema { types { name fields { name } } } }', 0],
    ['topChanged: its limit', 'subscription { topChanged(seasonId: 1, limit: 100) { rank } }', 1 + 100],
  ] as const)('%s', (_name, query, expected, variables?: Record<string, unknown>, operationName?: string) => {
    expect(cost(query, variables, operationName)).toBe(expected);
  });

  it('counts nested fragment spreads without walking every path (a fragment bomb)', () => {
    // 10^11 paths: unmemoised, this would outlast the test's timeout.
    const levels = 12;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1
        ? `fragment F${i} on Query { seasons { id } }`
        : `fragment F${i} on Query { ${Array.from({ length: 10 }, () => `...F${i + 1}`).join(' ')} }`,
    ).join(' ');
    expect(cost(`{ ...F0 } ${fragments}`)).toBe(10 ** (levels - 1) * (1 + UNBOUNDED_LIST_SIZE));
  });
});
