import type { KafkaMessage } from 'kafkajs';
import type { AcceptedResult } from '../domain/board-deltas.js';
import { badInput, DomainError, isDomainError, seasonNotFound } from '../domain/errors.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import { parseMatchResultMessage } from '../domain/result-message.js';
import { checkIngestable } from '../domain/submission.js';
import { parseScopesMessage, type PlayerScopes } from '../domain/scopes.js';

/** A message that can never be applied, and why: it goes to the DLQ. */
export interface Poison {
  message: KafkaMessage;
  error: DomainError;
}

/** A chunk's messages sorted into results to apply and poison, with the seasons looked up for them. */
export interface Classified {
  good: AcceptedResult[];
  poison: Poison[];
  seasons: ReadonlyMap<number, { season: Season; blocked: ReadonlySet<string> }>;
}

/** Season lookups (cached by the caller); they reject when PostgreSQL is unreachable. */
export interface SeasonLookups {
  seasonById(id: number): Promise<Season | undefined>;
  blockedIn?(seasonId: number): Promise<ReadonlySet<string>>;
}

const NOBODY: ReadonlySet<string> = new Set();

/** A message value as JSON; a value that is not JSON is bad input (poison). */
export function parseValue(value: Buffer | null): unknown {
  try {
    return JSON.parse(value?.toString('utf8') ?? '');
  } catch {
    throw badInput('value', 'message value is not JSON');
  }
}

/**
 * Sorts a chunk of one partition into good results and poison (a DomainError: malformed, unknown
 * season, not ingestable). Any other error is infrastructure (a season lookup failed): it rejects,
 * and the chunk is retried whole.
 */
export async function classifyChunk(
  messages: readonly KafkaMessage[],
  partition: number,
  lookups: SeasonLookups,
): Promise<Classified> {
  const good: AcceptedResult[] = [];
  const poison: Poison[] = [];
  // Per chunk: each season and its blocked players are looked up once, not once per message.
  const seasons = new Map<number, { season: Season; blocked: ReadonlySet<string> }>();
  for (const message of messages) {
    try {
      const msg = parseMatchResultMessage(parseValue(message.value));
      let known = seasons.get(msg.seasonId);
      if (!known) {
        const season = await lookups.seasonById(msg.seasonId);
        if (!season) throw seasonNotFound(msg.seasonId);
        // A player blocked in a season is blocked on each of its boards.
        known = { season, blocked: (await lookups.blockedIn?.(seasonIdOf(season))) ?? NOBODY };
        seasons.set(season.id, known);
      }
      const endedAt = checkIngestable(msg, known.season, known.blocked);
      // A literal, not a spread: this runs once per message.
      good.push({
        matchId: msg.matchId,
        playerId: msg.playerId,
        seasonId: msg.seasonId,
        points: msg.points,
        endedAt,
        partition,
        offset: message.offset,
        metadata: msg.metadata ?? null,
      });
    } catch (err) {
      if (!isDomainError(err)) throw err; // infrastructure (season lookup): retry the chunk
      poison.push({ message, error: err });
    }
  }
  return { good, poison, seasons };
}

/** The DLQ records of a chunk's poison: the message as it came, and why and where from in headers. */
export function dlqRecords(poison: readonly Poison[], source: { topic: string; partition: number }) {
  return poison.map(({ message, error }) => ({
    key: message.key,
    value: message.value,
    headers: {
      'x-error-code': error.code,
      'x-error-field': error.field ?? '',
      'x-error-message': error.message,
      'x-source-topic': source.topic,
      'x-source-partition': String(source.partition),
      'x-source-offset': message.offset,
    },
  }));
}

/** One step of a chunk: results, then the scope changes that follow them (phasesOf). */
export interface Phase {
  results: KafkaMessage[];
  scopes: KafkaMessage[];
}

/**
 * Splits a chunk into phases applied one after the other, so that each player's scope changes
 * land between exactly the results they came between (docs/design.md#scopes): a player's k-th
 * change closes their k-th phase. Players are independent, so phase k gathers every player's
 * k-th stretch: a chunk where each player's change precedes their results is two phases.
 */
export function phasesOf(messages: readonly KafkaMessage[], isScopes: (m: KafkaMessage) => boolean): Phase[] {
  if (!messages.some(isScopes)) return [{ results: [...messages], scopes: [] }];
  const phases: Phase[] = [];
  const phaseOf = new Map<string, number>();
  for (const m of messages) {
    const player = m.key?.toString('utf8') ?? '';
    const k = phaseOf.get(player) ?? 0;
    const phase = (phases[k] ??= { results: [], scopes: [] });
    if (isScopes(m)) {
      phase.scopes.push(m);
      phaseOf.set(player, k + 1);
    } else phase.results.push(m);
  }
  return phases;
}

/** A phase's scope changes, and its poison (a malformed message: the DLQ). */
export function classifyScopes(messages: readonly KafkaMessage[]): {
  changes: Array<{ playerId: string; scopes: PlayerScopes }>;
  poison: Poison[];
} {
  const changes: Array<{ playerId: string; scopes: PlayerScopes }> = [];
  const poison: Poison[] = [];
  for (const message of messages) {
    try {
      changes.push(parseScopesMessage(parseValue(message.value)));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      poison.push({ message, error: err });
    }
  }
  return { changes, poison };
}
