import { z } from 'zod';
import { badInput, pointsOutOfRange, seasonClosed, seasonNotFound, seasonNotStarted, timeOutOfRange } from './errors.js';
import { MAX_GRAPHQL_INT, seasonStatusAt, type Season } from './season.js';

/** One player's result of one match: the Kafka message on `match-results`, keyed by playerId. */
export interface MatchResultMessage {
  v: 1;
  matchId: string;
  seasonId: number;
  /** ISO-8601 UTC, as Date#toISOString writes it. */
  endedAt: string;
  playerId: string;
  points: number;
}

/** A match as a game server submits it. */
export interface SubmissionInput {
  matchId: string;
  seasonId: number;
  endedAt: Date;
  results: ReadonlyArray<{ playerId: string; points: number; displayName?: string | null | undefined }>;
}

/** Most results one submission may carry. */
export const MAX_RESULTS_PER_MATCH = 100;
/** Longest display name, in Unicode code points. */
export const MAX_DISPLAY_NAME_LENGTH = 64;

const INT64_MAX = 9_223_372_036_854_775_807n;
// No sign, no spaces, no leading zero, ASCII digits only; at most 19 digits before the range check.
const PLAYER_ID = /^[1-9][0-9]{0,18}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;


/** The canonical decimal string of a player id (a positive int64), or BAD_USER_INPUT 'playerId'. */
export function parsePlayerId(s: string): string {
  // BigInt, not Number: ids above 2^53 would silently round to a neighbour's id.
  if (typeof s !== 'string' || !PLAYER_ID.test(s) || BigInt(s) > INT64_MAX) {
    throw badInput('playerId', `playerId must be a decimal integer in 1..${INT64_MAX}`);
  }
  return BigInt(s).toString();
}

/** The lower-case canonical form of a match id (a UUID of any version), or BAD_USER_INPUT 'matchId'. */
export function parseMatchId(s: string): string {
  if (typeof s !== 'string' || !UUID.test(s)) throw badInput('matchId', 'matchId must be a UUID');
  return s.toLowerCase();
}

const messageSchema = z.strictObject({
  v: z.literal(1),
  matchId: z.string(),
  seasonId: z.int().min(1).max(MAX_GRAPHQL_INT),
  // Z only: an offset would be a second spelling of the same instant.
  endedAt: z.iso.datetime(),
  playerId: z.string(),
  // Range is the season's business (checkResultAgainstSeason); here only the type.
  points: z.int(),
});

function fieldOf(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code === 'unrecognized_keys') return issue.keys[0];
  const head = issue.path[0];
  return head === undefined ? undefined : String(head);
}

/** Validates a decoded Kafka message; throws BAD_USER_INPUT (reason, field) for anything else. */
export function parseMatchResultMessage(json: unknown): MatchResultMessage {
  const parsed = messageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined ? undefined : fieldOf(issue);
    throw badInput(field, `invalid match result message: ${issue?.message ?? 'unknown'}`);
  }
  const m = parsed.data;
  return {
    v: 1,
    matchId: parseMatchId(m.matchId),
    seasonId: m.seasonId,
    endedAt: new Date(m.endedAt).toISOString(),
    playerId: parsePlayerId(m.playerId),
    points: m.points,
  };
}

/**
 * Checks one result against its season: points in 0..maxPointsPerMatch, endedAt inside the season
 * and (when `now` is given) not in the future beyond `skewMs`. The consumer passes no `now`: Kafka
 * lag must not reject a result the API already accepted.
 */
export function checkResultAgainstSeason(
  msg: { points: number; endedAt: Date },
  season: Season,
  now: Date | undefined,
  skewMs: number,
): void {
  if (!Number.isInteger(msg.points) || msg.points < 0 || msg.points > season.maxPointsPerMatch) {
    throw pointsOutOfRange('points', `points must be an integer in 0..${season.maxPointsPerMatch}`);
  }
  const ended = msg.endedAt.getTime();
  if (Number.isNaN(ended)) throw badInput('endedAt', 'endedAt must be a valid date');
  if (ended < season.startsAt.getTime() || ended >= season.endsAt.getTime()) {
    throw timeOutOfRange('endedAt', 'endedAt must be within the season');
  }
  if (now !== undefined && ended > now.getTime() + skewMs) {
    throw timeOutOfRange('endedAt', 'endedAt is in the future');
  }
}

function checkDisplayName(name: string | null | undefined, index: number): void {
  if (name === null || name === undefined) return;
  if ([...name].length > MAX_DISPLAY_NAME_LENGTH) {
    throw badInput('displayName', `results[${index}].displayName exceeds ${MAX_DISPLAY_NAME_LENGTH} characters`);
  }
  if (/\p{Cc}/u.test(name)) throw badInput('displayName', `results[${index}].displayName contains control characters`);
}

function checkSeasonOpen(seasonId: number, season: Season | undefined, now: Date): Season {
  if (season === undefined) throw seasonNotFound(seasonId);
  const status = seasonStatusAt(season, now);
  if (status === 'CLOSED') throw seasonClosed(season.id);
  if (status === 'SCHEDULED') {
    throw seasonNotStarted(season.id);
  }
  return season;
}

/** Validates a whole submission and returns one Kafka message per player, ids canonicalised. */
export function validateSubmission(
  input: SubmissionInput,
  season: Season | undefined,
  now: Date,
  skewMs: number,
): MatchResultMessage[] {
  const open = checkSeasonOpen(input.seasonId, season, now);
  if (open.id !== input.seasonId) throw new Error(`season ${open.id} passed for seasonId ${input.seasonId}`);
  const matchId = parseMatchId(input.matchId);
  const { results } = input;
  if (!Array.isArray(results) || results.length < 1 || results.length > MAX_RESULTS_PER_MATCH) {
    throw badInput('results', `results must hold 1..${MAX_RESULTS_PER_MATCH} entries`);
  }
  const endedAt = input.endedAt;
  const seen = new Set<string>();
  return results.map((r, index) => {
    const playerId = parsePlayerId(r.playerId);
    // Two points for one player in one match would make the (match, player) key ambiguous.
    if (seen.has(playerId)) throw badInput('results', `player ${playerId} appears twice in one match`);
    seen.add(playerId);
    checkDisplayName(r.displayName, index);
    checkResultAgainstSeason({ points: r.points, endedAt }, open, now, skewMs);
    return { v: 1, matchId, seasonId: open.id, endedAt: endedAt.toISOString(), playerId, points: r.points };
  });
}
