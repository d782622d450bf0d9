// A game server's match as the API takes it: checked against each of its seasons and boards, then
// turned into Kafka messages (domain/result-message.ts), one per board and player, and claimed by
// its canonical text. Ingest's check of a message against its board is here too (checkIngestable).

import { compareIds } from './board-deltas.js';
import {
  badInput,
  playerBlocked,
  pointsOutOfRange,
  seasonClosed,
  seasonNotFound,
  seasonNotStarted,
  timeOutOfRange,
} from './errors.js';
import { checkName, packKeys } from './board-keys.js';
import { metadataText, parseMatchId, parsePlayerId, type MatchResultMessage } from './result-message.js';
import { boardsOf, seasonStatusAt, type Season } from './season.js';

/** A match as a game server submits it: it counts in every season of `seasonIds`, once in each. */
export interface SubmissionInput {
  matchId: string;
  seasonIds: readonly number[];
  endedAt: Date;
  results: ReadonlyArray<{
    playerId: string;
    /** The stat 'points' (what a season without boards ranks). */
    points?: number | null | undefined;
    /** Further named stats, for the boards that rank them (docs/design.md#boards). */
    stats?: ReadonlyArray<{ name: string; value: number }> | null | undefined;
    displayName?: string | null | undefined;
    metadata?: Record<string, unknown> | null | undefined;
    /** Sets the player's region and groups, before this result counts (docs/design.md#scopes). */
    scopes?: { region?: string | null; groups?: readonly string[] | null } | null | undefined;
  }>;
}

/** Most results one submission may carry. */
export const MAX_RESULTS_PER_MATCH = 100;
/** Most seasons one match may count in (an all-time board, this season, a weekend event, ...). */
export const MAX_SEASONS_PER_MATCH = 8;
/** Most stats one player's result may carry. */
export const MAX_STATS_PER_RESULT = 16;
/** Longest display name, in Unicode code points. */
export const MAX_DISPLAY_NAME_LENGTH = 64;

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
    // A board of another stat names it (a multi-key board's keys are checked by packKeys).
    const stat = season.keys ? 'points' : (season.stat ?? 'points');
    const range = `an integer in 0..${season.maxPointsPerMatch}`;
    if (stat !== 'points') throw badInput('stats', `stat ${stat} must be ${range} on board ${season.board}`);
    throw pointsOutOfRange('points', `points must be ${range}`);
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

/**
 * What ingest takes from Kafka: a parsed message for its season that is not final, within the
 * season's rules, from a player not blocked in it (an unknown season is SEASON_NOT_FOUND at
 * the lookup). Throws the
 * DomainError that sends the message to the DLQ; returns its endedAt. A closed season still takes
 * results already in Kafka at its close (their endedAt is inside it); once its final standings
 * are written it takes nothing more. No "not in the future" check: a replay hours later is valid.
 */
export function checkIngestable(msg: MatchResultMessage, season: Season, blocked: ReadonlySet<string>): Date {
  if (season.finalizedAt) throw seasonClosed(season.id, 'is closed and final');
  const endedAt = new Date(msg.endedAt);
  checkResultAgainstSeason({ points: msg.points, endedAt }, season, undefined, 0);
  if (blocked.has(msg.playerId)) throw playerBlocked(season.id, [msg.playerId]);
  return endedAt;
}

// Controls; format characters (bidi overrides and isolates, zero-width spaces, soft hyphen, BOM,
// tags), except ZWNJ/ZWJ, which scripts and emoji sequences need; line and paragraph separators;
// Hangul fillers, which render as nothing. Any of them lets one name pass for another.
const HIDDEN = /[\p{Cc}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|(?![\u200C\u200D])\p{Cf}/u;
// ZWNJ/ZWJ only join two non-ASCII characters ("A\u200Dnn" would look like "Ann").
const LOOSE_JOINER = /(?:^|\p{ASCII})[\u200C\u200D]|[\u200C\u200D](?:$|\p{ASCII})/u;

/**
 * A display name as stored: NFC (one spelling per look for composed letters). Refused
 * (BAD_USER_INPUT on displayName) when longer than MAX_DISPLAY_NAME_LENGTH characters or when it
 * holds characters that hide or reorder what is shown (HIDDEN, LOOSE_JOINER): name spoofing.
 */
export function normalizeDisplayName(name: string, where = 'displayName'): string {
  const nfc = name.normalize('NFC');
  if ([...nfc].length > MAX_DISPLAY_NAME_LENGTH)
    throw badInput('displayName', `${where} exceeds ${MAX_DISPLAY_NAME_LENGTH} characters`);
  if (HIDDEN.test(nfc) || LOOSE_JOINER.test(nfc)) {
    throw badInput('displayName', `${where} contains control, invisible or bidirectional formatting characters`);
  }
  return nfc;
}

function checkDisplayName(name: string | null | undefined, index: number): void {
  if (name !== null && name !== undefined) normalizeDisplayName(name, `results[${index}].displayName`);
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

/**
 * The seasons a match counts in, ascending: 1..MAX_SEASONS_PER_MATCH distinct ids (BAD_USER_INPUT
 * 'seasonIds' otherwise). Ascending, so the order a game server lists them in changes nothing.
 */
function parseSeasonIds(ids: readonly number[]): number[] {
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_SEASONS_PER_MATCH)
    throw badInput('seasonIds', `seasonIds must hold 1..${MAX_SEASONS_PER_MATCH} seasons`);
  const sorted = [...ids].sort((a, b) => a - b);
  if (sorted.some((id, i) => !Number.isInteger(id) || id < 1 || id === sorted[i - 1]))
    throw badInput('seasonIds', 'seasonIds must be distinct season ids');
  return sorted;
}

/**
 * A result's stats by name: `points` is the stat 'points', `stats` the others. BAD_USER_INPUT
 * 'stats' for a bad or repeated name, a value that is not an integer, or too many.
 */
function statsOf(r: SubmissionInput['results'][number], index: number): Map<string, number> {
  const stats = new Map<string, number>();
  if (r.points != null) stats.set('points', r.points);
  const extra = r.stats ?? [];
  if (!Array.isArray(extra) || extra.length > MAX_STATS_PER_RESULT)
    throw badInput('stats', `results[${index}].stats must hold at most ${MAX_STATS_PER_RESULT} stats`);
  for (const { name, value } of extra) {
    checkName(name, 'stats');
    if (stats.has(name))
      throw badInput('stats', `results[${index}] carries the stat ${name} twice (points is the stat points)`);
    if (!Number.isSafeInteger(value)) throw badInput('stats', `stat ${name} must be an integer`);
    stats.set(name, value);
  }
  if (stats.size === 0) throw badInput('stats', `results[${index}] carries neither points nor stats`);
  return stats;
}

/**
 * The value a result counts on a board: its stat, or its keys packed (domain/board-keys.ts);
 * undefined when it lacks one (it does not count on that board).
 */
function boardValue(board: Season, stats: ReadonlyMap<string, number>): number | undefined {
  return board.keys ? packKeys(board.keys, (stat) => stats.get(stat)) : stats.get(board.stat ?? 'points');
}

/**
 * Validates a whole submission against each of its seasons (`seasons[i]` is the one of
 * `input.seasonIds[i]`, undefined if none) and returns one Kafka message per board and player
 * that counts there, ids canonicalised: a season's board takes a player's result when it carries
 * the board's stats, each within the board's range. Every season must take every player on at
 * least one of its boards and every stat must count somewhere, or nothing is sent.
 */
export function validateSubmission(
  input: SubmissionInput,
  seasons: readonly (Season | undefined)[],
  now: Date,
  skewMs: number,
): MatchResultMessage[] {
  const seasonIds = parseSeasonIds(input.seasonIds);
  const open = seasonIds.map((id) => {
    const season = checkSeasonOpen(id, seasons[input.seasonIds.indexOf(id)], now);
    if (season.id !== id) throw new Error(`season ${season.id} passed for seasonId ${id}`);
    return season;
  });
  const matchId = parseMatchId(input.matchId);
  const { results } = input;
  if (!Array.isArray(results) || results.length < 1 || results.length > MAX_RESULTS_PER_MATCH) {
    throw badInput('results', `results must hold 1..${MAX_RESULTS_PER_MATCH} entries`);
  }
  const endedAt = input.endedAt;
  if (Number.isNaN(endedAt.getTime())) throw badInput('endedAt', 'endedAt must be a valid date');
  const ended = endedAt.toISOString();
  const seen = new Set<string>();
  const players = results.map((r, index) => {
    const playerId = parsePlayerId(r.playerId);
    // Two results for one player in one match would make the (match, player) key ambiguous.
    if (seen.has(playerId)) throw badInput('results', `player ${playerId} appears twice in one match`);
    seen.add(playerId);
    checkDisplayName(r.displayName, index);
    const metadata = r.metadata == null ? {} : { metadata: metadataText(r.metadata) };
    return { playerId, stats: statsOf(r, index), metadata };
  });
  const used = new Set<string>();
  const messages: MatchResultMessage[] = [];
  for (const season of open) {
    const counted = new Set<string>();
    for (const board of boardsOf(season)) {
      for (const stat of board.keys?.map((k) => k.stat) ?? [board.stat ?? 'points']) used.add(stat);
      for (const p of players) {
        const points = boardValue(board, p.stats);
        if (points === undefined) continue;
        checkResultAgainstSeason({ points, endedAt }, board, now, skewMs);
        counted.add(p.playerId);
        messages.push({
          v: 1,
          matchId,
          seasonId: board.id,
          endedAt: ended,
          playerId: p.playerId,
          points,
          ...p.metadata,
        });
      }
    }
    const missing = players.find((p) => !counted.has(p.playerId));
    if (missing)
      throw badInput('stats', `player ${missing.playerId}'s result counts on no board of season ${season.id}`);
  }
  for (const p of players)
    for (const stat of p.stats.keys())
      if (!used.has(stat)) throw badInput('stats', `no board of the match's seasons ranks the stat ${stat}`);
  return messages;
}

/**
 * The canonical text of a submission for its matchId claim: its boards (season ids, ascending,
 * comma separated), endedAt in epoch ms, and `player:points` of the first board in player id
 * order, each followed by `#` and its metadata as a JSON string literal when it has some; then,
 * for each further board whose results differ from the first's, `|id:` and its own. Two
 * submissions are the same match exactly when their texts are equal; a match counted on one
 * board per season without metadata has the text it had before boards or metadata existed.
 * drizzle/0002_match_claims.sql writes the same text in SQL (for matches stored before claims
 * existed): change both or neither.
 */
export function claimText(messages: readonly MatchResultMessage[]): string {
  const seasons = [...new Set(messages.map((m) => m.seasonId))].sort((a, b) => a - b);
  const resultsOf = (seasonId: number) =>
    messages
      .filter((m) => m.seasonId === seasonId)
      .map(
        (m) => [m.playerId, m.metadata === undefined ? m.points : `${m.points}#${JSON.stringify(m.metadata)}`] as const,
      )
      .sort(([a], [b]) => compareIds(a, b))
      .map(([p, points]) => `${p}:${points}`)
      .join(',');
  const first = resultsOf(seasons[0]!);
  const further = seasons.slice(1).flatMap((id) => {
    const own = resultsOf(id);
    return own === first ? [] : [`|${id}:${own}`];
  });
  return `${seasons.join(',')}|${Date.parse(messages[0]!.endedAt)}|${first}${further.join('')}`;
}
