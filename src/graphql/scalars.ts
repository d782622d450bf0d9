import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';

// ISO-8601 with an explicit zone: a time without one would mean whatever the server's zone is.
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseDateTime(value: unknown): Date {
  const date = typeof value === 'string' && ISO_WITH_ZONE.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new GraphQLError('DateTime must be an ISO-8601 string with a time zone, e.g. 2026-11-30T12:00:00Z', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return date;
}

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO-8601 string with a time zone; always returned in UTC.',
  serialize: (d) => d.toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

export const ScoringModeEnum = builder.enumType('ScoringMode', {
  values: { BEST: { description: "a player's best single match" }, SUM: { description: 'the total of their matches' } },
});
export const SortOrderEnum = builder.enumType('SortOrder', {
  values: { DESC: { description: 'more points rank first' }, ASC: { description: 'fewer points rank first (time trials)' } },
});
export const RankStyleEnum = builder.enumType('RankStyle', {
  values: {
    ORDINAL: { description: '1,2,3,4: equal points are ordered by who reached them first' },
    COMPETITION: { description: '1,2,2,4: equal points share a rank' },
  },
});
export const WindowEnum = builder.enumType('Window', {
  values: { SEASON: { description: 'the whole season' }, DAY: { description: 'a UTC day' }, WEEK: { description: 'an ISO week (UTC)' } },
});
export const SeasonStatusEnum = builder.enumType('SeasonStatus', { values: ['SCHEDULED', 'ACTIVE', 'CLOSED'] as const });
