import { createHash } from 'node:crypto';
import { conflict, unavailable } from '../domain/errors.js';
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
 * Runs `run` on everything queued, one batch at a time: items queued while a batch runs form the
 * next one (at most `max` by `size`, never splitting an item). `run` must settle its items itself.
 */
function coalesce<T>(run: (batch: T[]) => Promise<void>, size: (item: T) => number, max: number): (item: T) => void {
  const waiting: T[] = [];
  let running = false;
  function next(): void {
    if (running || waiting.length === 0) return;
    running = true;
    // setImmediate: items queued in this turn of the event loop join this batch.
    setImmediate(() => {
      let total = 0;
      let n = 0;
      while (n < waiting.length && (n === 0 || total + size(waiting[n]!) <= max)) total += size(waiting[n++]!);
      void run(waiting.splice(0, n)).finally(() => {
        running = false;
        next();
      });
    });
  }
  return (item) => {
    waiting.push(item);
    next();
  };
}

/**
 * Coalesces concurrent submissions in two stages, each one batch at a time and each running
 * while the other does: claims (all matchIds of a batch in one PostgreSQL statement), then
 * produce (all messages of a batch in one Kafka request). Each submission is answered only after
 * the request holding its messages was acknowledged. One produce at a time is no loss: the
 * idempotent producer sends one request per broker at a time anyway (kafkajs' broker lock), so
 * separate sends would only queue.
 *
 * The claim is the authoritative matchId check: the first payload claimed for a matchId wins,
 * in every API process; a later submission with the same payload is a retry (accepted, its
 * messages produced again, which ingest stores once), any other is refused with CONFLICT.
 * Without PostgreSQL nothing is produced: UNAVAILABLE, and the game server retries.
 */
export function createSubmissionBatcher(deps: {
  queue: ResultQueue;
  claims?: ClaimStore;
  /** Most messages per produce request (a submission is never split): keeps a request small. */
  maxMessages?: number;
  onRound?(round: { submissions: number; messages: number }): void;
}): ResultQueue {
  const maxMessages = deps.maxMessages ?? 5_000;
  const count = (w: Waiting) => w.messages.length;

  const produce = coalesce<Waiting>(
    async (batch) => {
      const messages = batch.flatMap((w) => w.messages);
      deps.onRound?.({ submissions: batch.length, messages: messages.length });
      try {
        await deps.queue.send(messages);
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    },
    count,
    maxMessages,
  );

  const claim = coalesce<Waiting>(
    async (batch) => {
      let held: Map<string, string>;
      try {
        held = await deps.claims!.claim(batch.map((w) => ({ matchId: w.messages[0]!.matchId, hash: w.hash })));
      } catch {
        const err = unavailable('matchIds cannot be claimed now; retry with the same matchId');
        for (const w of batch) w.reject(err);
        return;
      }
      for (const w of batch) {
        const matchId = w.messages[0]!.matchId;
        if (held.get(matchId) === w.hash) produce(w);
        else w.reject(conflict('matchId', `match ${matchId} was already submitted with different results`));
      }
    },
    count,
    10 * maxMessages,
  );

  return {
    send(messages) {
      return new Promise<void>((resolve, reject) => {
        (deps.claims ? claim : produce)({ messages, hash: payloadHash(messages), resolve, reject });
      });
    },
  };
}
