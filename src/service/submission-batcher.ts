import { createHash } from 'node:crypto';
import { badInput, conflict, unavailable } from '../domain/errors.js';
import { type MatchResultMessage } from '../domain/result-message.js';
import { claimText } from '../domain/submission.js';
import { coalesce } from './coalesce.js';
import { context, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import { failed, traceHeaders, tracer } from '../tracing.js';

/** Where accepted results go: Kafka, through an idempotent producer (acks = all). */
export interface ResultQueue {
  /**
   * Resolves once Kafka acknowledged every message (acks=all). `headers[i]`: the trace context
   * headers of `messages[i]` (tracing.ts traceHeaders), none without a trace.
   */
  send(
    messages: readonly MatchResultMessage[],
    headers?: ReadonlyArray<Record<string, string> | undefined>,
  ): Promise<void>;
}

/** postgres/match-claims.ts: claims matchIds, answers the payload hash each one holds. */
export interface ClaimStore {
  claim(claims: ReadonlyArray<{ matchId: string; hash: string; endedAt: Date }>): Promise<Map<string, string>>;
}

/** Most messages whose matchIds one claim statement takes (a submission is never split). */
const CLAIMS_PER_STATEMENT = 50_000;
/** Claim statements in flight at once (each a PostgreSQL commit). */
const CLAIMS_IN_FLIGHT = 4;

interface Waiting {
  messages: readonly MatchResultMessage[];
  /** About how many bytes its messages take in a produce request (bytesOf). */
  bytes: number;
  hash: string;
  /** The submission's context (its submitMatchResult span): its messages carry a child of it. */
  trace: Context;
  resolve(): void;
  reject(err: unknown): void;
}

/** A record's bytes in a produce request beside its value: its key, headers and framing. */
const RECORD_OVERHEAD = 40;

/** How many bytes `messages` take in a produce request (their JSON as the producer writes it). */
const bytesOf = (messages: readonly MatchResultMessage[]) =>
  messages.reduce((n, m) => n + RECORD_OVERHEAD + m.playerId.length + Buffer.byteLength(JSON.stringify(m)), 0);

/** The SHA-256 (hex) of a submission's canonical payload: what its matchId claim holds. */
export function payloadHash(messages: readonly MatchResultMessage[]): string {
  return createHash('sha256').update(claimText(messages)).digest('hex');
}

/**
 * Coalesces concurrent submissions in two stages that run side by side: claims (all matchIds
 * waiting in one PostgreSQL statement, a few statements in flight), then produce (all claimed
 * messages waiting in one Kafka request, one request at a time). Each submission is answered only after
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
  /**
   * Most bytes per produce request (a submission is never split): below the broker's
   * message.max.bytes (1 MiB by default) even when every message lands on one partition, with
   * metadata of up to 1 KB each. 900 KB: about 4,000 messages without metadata.
   */
  maxRequestBytes?: number;
  onRound?(round: { submissions: number; messages: number }): void;
}): ResultQueue {
  const maxRequestBytes = deps.maxRequestBytes ?? 900_000;
  const count = (w: Waiting) => w.messages.length;

  const produce = coalesce<Waiting>(
    async (batch) => {
      const messages = batch.flatMap((w) => w.messages);
      deps.onRound?.({ submissions: batch.length, messages: messages.length });
      // One publish span per submission, in its trace; without an SDK, no-op spans and no headers.
      const spans = batch.map((w) => tracer.startSpan('publish match results', { kind: SpanKind.PRODUCER }, w.trace));
      const headers = traced(batch, spans);
      try {
        await deps.queue.send(messages, headers);
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const span of spans) failed(span, err);
        for (const w of batch) w.reject(err);
      } finally {
        for (const span of spans) span.end();
      }
    },
    (w) => w.bytes,
    maxRequestBytes,
  );

  const claim = coalesce<Waiting>(
    async (batch) => {
      let held: Map<string, string>;
      try {
        held = await deps.claims!.claim(
          batch.map((w) => ({
            matchId: w.messages[0]!.matchId,
            hash: w.hash,
            endedAt: new Date(w.messages[0]!.endedAt),
          })),
        );
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
      // Claims commit (an fsync) several at a time: on a busy disk one commit can take hundreds of ms.
    },
    count,
    CLAIMS_PER_STATEMENT,
    CLAIMS_IN_FLIGHT,
  );

  return {
    send(messages) {
      const bytes = bytesOf(messages);
      // A produce request the broker could refuse as too large, on every retry: refused at once.
      if (bytes > maxRequestBytes)
        return Promise.reject(
          badInput('results', `the match is too large to send (${messages.length} results with their metadata)`),
        );
      return new Promise<void>((resolve, reject) => {
        (deps.claims ? claim : produce)({
          messages,
          bytes,
          hash: payloadHash(messages),
          trace: context.active(),
          resolve,
          reject,
        });
      });
    },
  };
}

/** Each message's trace headers (its submission's publish span), or undefined when none has any. */
function traced(batch: readonly Waiting[], spans: readonly Span[]) {
  const carried = batch.map((w, i) => traceHeaders(trace.setSpan(w.trace, spans[i]!)));
  if (!carried.some(Boolean)) return undefined;
  return batch.flatMap((w, i) => w.messages.map(() => carried[i]));
}
