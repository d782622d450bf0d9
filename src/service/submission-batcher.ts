import { createHash } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { claimText, type MatchResultMessage } from '../domain/submission.js';

/** Where accepted results go: Kafka, through an idempotent producer (acks = all). */
export interface ResultQueue {
  /** Resolves once Kafka acknowledged every message (acks=all). */
  send(messages: readonly MatchResultMessage[]): Promise<void>;
}

/** postgres/match-claims.ts: claims matchIds, answers the payload hash each one holds. */
export interface ClaimStore {
  claim(claims: ReadonlyArray<{ matchId: string; hash: string }>): Promise<Map<string, string>>;
}

interface Waiting {
  messages: readonly MatchResultMessage[];
  hash: string;
  resolve(): void;
  reject(err: unknown): void;
}

/** The SHA-256 (hex) of a submission's canonical payload: what its matchId claim holds. */
export function payloadHash(messages: readonly MatchResultMessage[]): string {
  return createHash('sha256').update(claimText(messages)).digest('hex');
}

/**
 * Coalesces concurrent submissions into rounds. A round claims the matchIds of every submission
 * it holds in one PostgreSQL statement, then produces all their messages in one Kafka request,
 * and answers each submission only after that request was acknowledged. One round runs at a
 * time and the next takes everything that arrived meanwhile: the idempotent producer sends one
 * request per broker at a time anyway (kafkajs' broker lock), so separate sends would only queue.
 *
 * The claim is the authoritative matchId check: the first payload claimed for a matchId wins,
 * in every API process; a later submission with the same payload is a retry (accepted, its
 * messages produced again, which ingest stores once), any other is refused with CONFLICT.
 * Without PostgreSQL nothing is produced: UNAVAILABLE, and the game server retries.
 */
export function createSubmissionBatcher(deps: {
  queue: ResultQueue;
  claims?: ClaimStore;
  /** Most messages per round (a submission is never split): keeps a produce request small. */
  maxMessages?: number;
  onRound?(round: { submissions: number; messages: number }): void;
}): ResultQueue {
  const maxMessages = deps.maxMessages ?? 5_000;
  const waiting: Waiting[] = [];
  let running = false;

  function next(): void {
    if (running || waiting.length === 0) return;
    running = true;
    // setImmediate: submissions parsed in this turn of the event loop join this round.
    setImmediate(() => {
      let count = 0;
      let n = 0;
      while (n < waiting.length && (n === 0 || count + waiting[n]!.messages.length <= maxMessages)) count += waiting[n++]!.messages.length;
      const round = waiting.splice(0, n);
      void run(round).finally(() => {
        running = false;
        next();
      });
    });
  }

  async function run(round: Waiting[]): Promise<void> {
    let accepted = round;
    if (deps.claims) {
      let held: Map<string, string>;
      try {
        held = await deps.claims.claim(round.map((w) => ({ matchId: w.messages[0]!.matchId, hash: w.hash })));
      } catch {
        const err = new DomainError('UNAVAILABLE', 'matchIds cannot be claimed now; retry with the same matchId');
        for (const w of round) w.reject(err);
        return;
      }
      accepted = [];
      for (const w of round) {
        const matchId = w.messages[0]!.matchId;
        if (held.get(matchId) === w.hash) accepted.push(w);
        else w.reject(new DomainError('CONFLICT', `match ${matchId} was already submitted with different results`, 'matchId'));
      }
    }
    if (accepted.length === 0) return;
    const messages = accepted.flatMap((w) => w.messages);
    deps.onRound?.({ submissions: accepted.length, messages: messages.length });
    try {
      await deps.queue.send(messages);
      for (const w of accepted) w.resolve();
    } catch (err) {
      for (const w of accepted) w.reject(err);
    }
  }

  return {
    send(messages) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ messages, hash: payloadHash(messages), resolve, reject });
        next();
      });
    },
  };
}
