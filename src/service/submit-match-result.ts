import { DomainError, isDomainError } from '../domain/errors.js';
import type { Season } from '../domain/season.js';
import { validateSubmission, type MatchResultMessage, type SubmissionInput } from '../domain/submission.js';

export interface ResultQueue {
  /** Resolves once Kafka acknowledged every message (acks=all). */
  send(messages: readonly MatchResultMessage[]): Promise<void>;
}

export interface PlayerNames {
  upsert(names: ReadonlyArray<{ id: string; displayName: string }>): Promise<void>;
}

/**
 * The trusted path of a game server's match: validate against the season, then hand every
 * player result to Kafka and answer only once Kafka acknowledged them all. Kafka down means
 * UNAVAILABLE, never a silent accept; the game server retries with the same matchId, which is
 * safe because (matchId, playerId) is stored at most once.
 */
export async function submitMatchResult(
  deps: {
    seasonById(id: number): Promise<Season | undefined>;
    queue: ResultQueue;
    names: PlayerNames;
    now(): Date;
    skewMs: number;
    sendTimeoutMs: number;
    onNamesFailed?(err: unknown): void;
  },
  input: SubmissionInput,
): Promise<{ matchId: string; accepted: number }> {
  const season = await deps.seasonById(input.seasonId);
  const messages = validateSubmission(input, season, deps.now(), deps.skewMs);
  try {
    await withTimeout(deps.queue.send(messages), deps.sendTimeoutMs);
  } catch (err) {
    if (isDomainError(err)) throw err;
    throw new DomainError('UNAVAILABLE', 'the result queue is unavailable; retry with the same matchId');
  }
  // Names are personal data kept out of Kafka and Redis; losing one update is harmless (the next
  // submission carries it again), so a PostgreSQL hiccup here must not fail an accepted match.
  const names = input.results.flatMap((r, i) =>
    r.displayName ? [{ id: messages[i]!.playerId, displayName: r.displayName }] : []);
  if (names.length > 0) await deps.names.upsert(names).catch((err) => deps.onNamesFailed?.(err));
  return { matchId: messages[0]!.matchId, accepted: messages.length };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}
