import { z } from 'zod';
import { badInput } from './errors.js';
import { MAX_GRAPHQL_INT } from './season.js';

// The message on Kafka's `match-results` topic, one per player result and board (domain/submission.ts
// makes them), and the ids and metadata it carries: its shape, how the API writes it and how ingest
// reads it back.

/** One player's result of one match: the Kafka message on `match-results`, keyed by playerId. */
export interface MatchResultMessage {
  v: 1;
  matchId: string;
  seasonId: number;
  /** ISO-8601 UTC, as Date#toISOString writes it. */
  endedAt: string;
  playerId: string;
  points: number;
  /** The result's metadata as JSON text (an object of at most MAX_METADATA_BYTES); absent: none. */
  metadata?: string;
}

/** Largest metadata of one result, in bytes of its JSON text (UTF-8). */
export const MAX_METADATA_BYTES = 1024;

const INT64_MAX = 9_223_372_036_854_775_807n;
// No sign, no spaces, no leading zero, ASCII digits only; at most 19 digits before the range check.
const PLAYER_ID = /^[1-9][0-9]{0,18}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical decimal string of a player id (a positive int64), or BAD_USER_INPUT 'playerId'. */
export function parsePlayerId(s: string): string {
  // BigInt, not Number: ids above 2^53 would silently round to a neighbour's id.
  if (typeof s !== 'string' || !PLAYER_ID.test(s))
    throw badInput('playerId', `playerId must be a decimal integer in 1..${INT64_MAX}`);
  // Up to 18 digits is below 2^63 and, without a leading zero, already canonical: no BigInt (the
  // ingest hot path parses one per message).
  if (s.length <= 18) return s;
  if (BigInt(s) > INT64_MAX) throw badInput('playerId', `playerId must be a decimal integer in 1..${INT64_MAX}`);
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
  metadata: z.string().optional(),
});

function fieldOf(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code === 'unrecognized_keys') return issue.keys[0];
  const head = issue.path[0];
  return head === undefined ? undefined : String(head);
}

// endedAt exactly as Date#toISOString writes it (what the API produces).
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The message as the API writes it, checked without zod (several times faster, and ingest runs
 * this per message); undefined for anything else, which the schema then accepts or explains.
 */
function canonicalMessage(json: unknown): MatchResultMessage | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  let keys = 0;
  for (const _ in o) keys++;
  // Six keys, and the six below all present, or a seventh, metadata: no unknown key (strictObject).
  const { v, matchId, seasonId, endedAt, playerId, points, metadata } = o;
  if (keys !== (metadata === undefined ? 6 : 7)) return undefined;
  if (
    v !== 1 ||
    (metadata !== undefined && typeof metadata !== 'string') ||
    typeof matchId !== 'string' ||
    typeof playerId !== 'string' ||
    !Number.isSafeInteger(points) ||
    !Number.isSafeInteger(seasonId) ||
    (seasonId as number) < 1 ||
    (seasonId as number) > MAX_GRAPHQL_INT ||
    typeof endedAt !== 'string' ||
    !CANONICAL_ISO.test(endedAt)
  )
    return undefined;
  const ms = Date.parse(endedAt);
  // The round trip refuses dates that do not exist (2026-02-30) as the schema does.
  if (Number.isNaN(ms) || new Date(ms).toISOString() !== endedAt) return undefined;
  return {
    v: 1,
    matchId: parseMatchId(matchId),
    seasonId: seasonId as number,
    endedAt,
    playerId: parsePlayerId(playerId),
    points: points as number,
    ...(metadata === undefined ? {} : { metadata: checkMetadataText(metadata as string) }),
  };
}

/** Validates a decoded Kafka message; throws BAD_USER_INPUT (reason, field) for anything else. */
export function parseMatchResultMessage(json: unknown): MatchResultMessage {
  const fast = canonicalMessage(json);
  if (fast) return fast;
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
    ...(m.metadata === undefined ? {} : { metadata: checkMetadataText(m.metadata) }),
  };
}

/**
 * A result's metadata as stored and sent: the JSON text of an object, at most MAX_METADATA_BYTES
 * of UTF-8; BAD_USER_INPUT 'metadata' for anything else. The text is the object as the game server
 * sent it (its keys in its order), so a retry of the same payload has the same text.
 */
export function metadataText(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badInput('metadata', 'metadata must be a JSON object');
  return checkMetadataText(JSON.stringify(value));
}

/** Checks the metadata text of a message: its size, and that it is a JSON object. */
function checkMetadataText(text: string): string {
  if (Buffer.byteLength(text, 'utf8') > MAX_METADATA_BYTES)
    throw badInput('metadata', `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badInput('metadata', 'metadata must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badInput('metadata', 'metadata must be a JSON object');
  return text;
}
