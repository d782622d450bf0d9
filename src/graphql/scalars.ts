import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import { builder } from './builder.js';

// ISO-8601 with an explicit zone: a time without one would mean whatever the server's zone is.
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/**
 * An ISO-8601 instant with a zone, every field in range: `Date` would roll 2026-11-31 over to
 * 12-01 and T24:00 to the next day, so a date that does not exist is refused, not moved.
 */
export function parseDateTime(value: unknown): Date {
  const m = typeof value === 'string' ? ISO_WITH_ZONE.exec(value) : null;
  const [year, month, day, hour, minute, second = 0, zoneHour = 0, zoneMinute = 0] = (m?.slice(1) ?? []).map((v) =>
    v === undefined ? undefined : Number(v),
  );
  const valid =
    m &&
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysIn(year!, month!) &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    zoneHour! <= 23 &&
    zoneMinute! <= 59;
  const date = valid ? new Date(value as string) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new GraphQLError(
      'DateTime must be an existing instant as an ISO-8601 string with a time zone, e.g. 2026-11-30T12:00:00Z',
      {
        extensions: { code: 'BAD_USER_INPUT' },
      },
    );
  }
  return date;
}

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO-8601 string with a time zone; always returned in UTC.',
  serialize: (d) => d.toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

/** A JSON object as given: its size and content are the domain's business (submission.ts metadataText). */
function parseJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new GraphQLError('JSONObject must be a JSON object', { extensions: { code: 'BAD_USER_INPUT' } });
  return value as Record<string, unknown>;
}

builder.scalarType('JSONObject', {
  description: 'A JSON object.',
  serialize: (v) => v,
  parseValue: parseJsonObject,
  parseLiteral: (ast, variables) =>
    parseJsonObject(ast.kind === Kind.OBJECT ? valueFromASTUntyped(ast, variables) : undefined),
});

export const ScoringModeEnum = builder.enumType('ScoringMode', {
  values: {
    BEST: { description: "a player's best single match" },
    SUM: { description: 'the total of their matches' },
    LAST: {
      description: 'their latest match (a rating, a level: it may go down); two in one time unit: the better, as BEST',
    },
  },
});
export const SortOrderEnum = builder.enumType('SortOrder', {
  values: {
    DESC: { description: 'more points rank first' },
    ASC: { description: 'fewer points rank first (time trials)' },
  },
});
export const RankStyleEnum = builder.enumType('RankStyle', {
  values: {
    ORDINAL: { description: '1,2,3,4: equal points are ordered by who reached them first' },
    COMPETITION: { description: '1,2,2,4: equal points share a rank' },
  },
});
export const WindowEnum = builder.enumType('Window', {
  values: {
    SEASON: { description: 'the whole season' },
    DAY: { description: "a UTC day (from the season's reset offset: resetOffsetMinutes)" },
    WEEK: { description: 'an ISO week (UTC)' },
    MONTH: { description: 'a calendar month (UTC)' },
    CUSTOM: { description: "each span of the board's periodHours from the season's startsAt" },
  },
});
export const SeasonStatusEnum = builder.enumType('SeasonStatus', {
  values: ['SCHEDULED', 'ACTIVE', 'CLOSED'] as const,
});
