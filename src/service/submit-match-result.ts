import { badInput, isDomainError, playerBlocked, unavailable } from '../domain/errors.js';
import { parsePlayerScopes, scopesMessage, type ScopesMessage } from '../domain/scopes.js';
import type { Season } from '../domain/season.js';
import { parsePlayerId } from '../domain/result-message.js';
import { validateSubmission, type SubmissionInput } from '../domain/submission.js';
import type { ResultQueue } from './submission-batcher.js';

export type { ResultQueue } from './submission-batcher.js';

/** Players barred from a season (src/service/blocked-players.ts), cached briefly by the caller. */
export interface BlockedPlayers {
  /** The blocked ones among `playerIds`. */
  blockedAmong(seasonId: number, playerIds: readonly string[]): Promise<readonly string[]>;
}

export interface PlayerNames {
  /** Returns the ids whose stored name changed. */
  upsert(names: ReadonlyArray<{ id: string; displayName: string }>): Promise<unknown>;
}

/**
 * The trusted path of a game server's match: validate against the season, then hand every
 * player result to the queue (in the API: service/submission-batcher.ts, which claims the
 * matchId and produces) and answer only once Kafka acknowledged them all. Kafka down means
 * UNAVAILABLE, never a silent accept; the game server retries with the same matchId, which is
 * safe because (season, matchId, playerId) is stored at most once.
 */
export async function submitMatchResult(
  deps: {
    seasonById(id: number): Promise<Season | undefined>;
    queue: ResultQueue;
    /** Produces scope changes (kafka/producer.ts sendScopes): acknowledged before the results are sent. */
    scopes?: { send(messages: readonly ScopesMessage[]): Promise<void> };
    names: PlayerNames;
    now(): Date;
    skewMs: number;
    sendTimeoutMs: number;
    onNamesFailed?(err: unknown): void;
    blocked?: BlockedPlayers;
    onBlockedCheckFailed?(err: unknown): void;
  },
  input: SubmissionInput,
): Promise<{ matchId: string; accepted: number }> {
  const seasons = await Promise.all(input.seasonIds.map((id) => deps.seasonById(id)));
  const messages = validateSubmission(input, seasons, deps.now(), deps.skewMs);
  // Valid, so every season exists and every id parses.
  const playerIds = input.results.map((r) => parsePlayerId(r.playerId));
  const scopeChanges = input.results.flatMap((r, i) =>
    r.scopes ? [scopesMessage(playerIds[i]!, parsePlayerScopes(r.scopes))] : [],
  );
  await refuseBlocked(deps, input.seasonIds, playerIds);
  // Names are personal data kept out of Kafka and Redis; losing one update is harmless (the next
  // submission carries it again), so a PostgreSQL hiccup here must not fail the match. They are
  // stored (and their change announced) before the results are sent: the boards' update events
  // come after, so a push of the new top shows the new names. A match then refused by Kafka has
  // only refreshed what its game server says its players are called.
  const names = input.results.flatMap((r, i) =>
    r.displayName ? [{ id: playerIds[i]!, displayName: r.displayName }] : [],
  );
  if (names.length > 0) await deps.names.upsert(names).catch((err) => deps.onNamesFailed?.(err));
  try {
    // Acknowledged first, so each lands on its player's partition before their results: ingest
    // applies the change, then the results count on the player's new scope boards.
    if (scopeChanges.length > 0) {
      if (!deps.scopes) throw badInput('scopes', 'this server takes no scopes');
      await withTimeout(deps.scopes.send(scopeChanges), deps.sendTimeoutMs);
    }
    await withTimeout(deps.queue.send(messages), deps.sendTimeoutMs);
  } catch (err) {
    if (isDomainError(err)) throw err;
    throw unavailable('the result queue is unavailable; retry with the same matchId');
  }
  return { matchId: messages[0]!.matchId, accepted: messages.length };
}

/**
 * PLAYER_BLOCKED when a player of the match is blocked in one of its seasons: the whole match is
 * refused, like any other invalid result, and the game server resubmits it without them. The
 * check fails open: if the list cannot be read, the consumer (which checks again and fails
 * closed) dead-letters them.
 */
async function refuseBlocked(
  deps: { blocked?: BlockedPlayers; onBlockedCheckFailed?(err: unknown): void },
  seasonIds: readonly number[],
  playerIds: readonly string[],
): Promise<void> {
  if (!deps.blocked) return;
  // A player blocked in a season is blocked on each of its boards.
  for (const seasonId of seasonIds) {
    let blocked: readonly string[];
    try {
      blocked = await deps.blocked.blockedAmong(seasonId, playerIds);
    } catch (err) {
      deps.onBlockedCheckFailed?.(err);
      return;
    }
    if (blocked.length > 0) throw playerBlocked(seasonId, blocked);
  }
}

/** `p`, or a rejection once `ms` passed. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
